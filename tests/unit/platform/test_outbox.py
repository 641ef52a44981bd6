"""The outbox writes faststream's own wire format (shared.runtime.outbox).

``encode`` re-implements faststream's ``BinaryMessageFormatV1`` (the outbox pipelines XADDs
itself); these tests hold it to faststream's encoder byte for byte and read it back through
faststream's stream parser, headers included, so a faststream upgrade that changes the format
fails here rather than in a running game."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from faststream.redis.parser import BinaryMessageFormatV1
from faststream.redis.parser.parsers import RedisStreamParser, SimpleParserConfig

from shared.runtime.jsonutil import loads
from shared.runtime.outbox import Outbox, encode

pytestmark = pytest.mark.unit
BODY = {"type": "act", "v": 1, "game_id": "g-7", "seat": 2, "payload": {"n": [1, 2.5, None]},
        "text": "Ünïcode ✓"}
CASES: list[tuple[str, str | None, dict[str, str] | None]] = [
    ("cid-1", None, None),
    ("cid-2", "reply.gw-1", None),
    ("cid-3", None, {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}),
    ("cid-4", "reply.gw-2", {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01",
                             "tracestate": "k=v", "x-empty": ""}),
]


def faststream_encode(body: Any, cid: str, reply_to: str | None,
                      headers: dict[str, str] | None) -> bytes:
    return asyncio.run(BinaryMessageFormatV1.encode(message=body, reply_to=reply_to,
                                                    headers=headers, correlation_id=cid))


@pytest.mark.parametrize(("cid", "reply_to", "headers"), CASES)
def test_encode_is_faststreams_encoder_byte_for_byte(cid: str, reply_to: str | None,
                                                     headers: dict[str, str] | None) -> None:
    assert encode(BODY, cid, reply_to, headers) == faststream_encode(BODY, cid, reply_to, headers)


def test_a_header_may_override_the_correlation_id_as_in_faststream() -> None:
    headers = {"correlation_id": "other"}
    assert encode(BODY, "cid", None, headers) == faststream_encode(BODY, "cid", None, headers)


@pytest.mark.parametrize(("cid", "reply_to", "headers"), CASES)
def test_faststreams_stream_parser_reads_it_back(cid: str, reply_to: str | None,
                                                 headers: dict[str, str] | None) -> None:
    parser = RedisStreamParser(config=SimpleParserConfig(message_format=BinaryMessageFormatV1))
    raw = {"type": "stream", "channel": "s", "message_ids": [b"1-0"],
           "data": {b"__data__": encode(BODY, cid, reply_to, headers)}}
    msg = asyncio.run(parser.parse_message(raw))
    assert loads(msg.body) == BODY
    assert msg.correlation_id == cid
    assert msg.reply_to == (reply_to or "")
    assert msg.content_type == "application/json"
    for k, v in (headers or {}).items():
        assert msg.headers[k] == v


class _Redis:
    """Records XADDs (a single publish goes straight to ``xadd``)."""

    def __init__(self) -> None:
        self.added: list[tuple[str, dict[str, bytes], int | None]] = []

    async def xadd(self, stream: str, fields: dict[str, bytes], maxlen: int | None = None
                   ) -> bytes:
        self.added.append((stream, fields, maxlen))
        return b"1-0"


def test_publish_carries_headers_and_correlation_id() -> None:
    redis = _Redis()
    out = Outbox(redis)
    tp = {"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"}
    asyncio.run(out.publish(BODY, stream="adj.actions", correlation_id="c-9", headers=tp,
                            reply_to="r"))
    [(stream, fields, _)] = redis.added
    assert stream == "adj.actions"
    data, headers = BinaryMessageFormatV1.parse(fields["__data__"])
    assert loads(data) == BODY
    assert headers["correlation_id"] == "c-9"
    assert headers["reply_to"] == "r"
    assert headers["traceparent"] == tp["traceparent"]


def test_publish_rejects_unknown_keyword_arguments_and_writes_nothing() -> None:
    redis = _Redis()
    out = Outbox(redis)
    with pytest.raises(TypeError):
        asyncio.run(out.publish(BODY, stream="adj.actions", pipeline=object()))  # type: ignore[call-arg]
    assert redis.added == []
