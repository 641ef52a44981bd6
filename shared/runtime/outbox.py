"""Publishing to streams with automatic pipelining.

``Outbox.publish(body, stream=..., maxlen=...)`` has the signature of faststream's
``broker.publish`` for streams and writes the same wire format (one ``__data__`` field in
faststream's binary format), so every faststream subscriber reads it unchanged. The XADDs
issued while the event loop is busy with other work (the handlers of one consumed batch,
many WebSockets) go to Valkey in one pipelined round trip; each caller still returns only
once its own entry is stored (or raises its own error), so nothing is acknowledged before
what it published is durable.

Every XADD is trimmed (``MAXLEN ~``) at most at the stream's cap from its byte budget
(``streams.maxlen``); a caller may only ask for a smaller cap.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Mapping
from struct import pack
from typing import Any

from shared.protocol import streams
from shared.runtime import tracing
from shared.runtime.jsonutil import dumpb
from shared.runtime.redis import Client

_IDENTITY = b"\x89BIN\x0d\x0a\x1a\x0a"  # faststream's BinaryMessageFormatV1
_HEADERS_START = len(_IDENTITY) + 2 + 8
_DATA_KEY = "__data__"


def _field(s: str) -> bytes:
    b = s.encode()
    return pack(">H", len(b)) + b


def encode(body: Any, correlation_id: str, reply_to: str | None = None,
           headers: Mapping[str, str] | None = None) -> bytes:
    """faststream's BinaryMessageFormatV1 of a JSON body: its headers are the correlation id,
    the content type, for a request the channel its reply goes to, then ``headers`` (which,
    as in faststream, may override the ones before; a trace context travels here)."""
    fields: dict[str, str] = {"correlation_id": correlation_id,
                              "content-type": "application/json"}
    if reply_to:
        fields["reply_to"] = reply_to
    if headers:
        fields.update(headers)
    head = b"".join(_field(k) + _field(str(v)) for k, v in fields.items())
    return b"".join((_IDENTITY, pack(">HIIH", 1, _HEADERS_START,
                                     2 + _HEADERS_START + len(head), len(fields)),
                     head, dumpb(body)))


class Outbox:
    """Coalesces concurrent stream publishes into pipelines (no MULTI: each XADD is atomic
    on its own, as with one command per publish)."""

    def __init__(self, redis: Client, max_batch: int = 256) -> None:
        self.redis = redis
        self.max_batch = max_batch
        self._pending: list[tuple[str, bytes, int | None, asyncio.Future[Any]]] = []
        self._scheduled = False
        self._tasks: set[asyncio.Future[None]] = set()
        self._ids = itertools.count()
        self._prefix = f"{os.getpid():x}-{id(self):x}-"

    async def publish(self, body: Any, stream: str, maxlen: int | None = None, *,
                      correlation_id: str | None = None, reply_to: str | None = None,
                      headers: Mapping[str, str] | None = None) -> Any:
        """XADD ``body`` to ``stream`` (faststream's wire format); returns the entry id once
        it is stored. Unknown keyword arguments are a ``TypeError``, not silently dropped."""
        with tracing.publish_span(stream):
            _, data, maxlen = self.entry(body, stream, maxlen, correlation_id=correlation_id,
                                         reply_to=reply_to, headers=headers)
            fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._pending.append((stream, data, maxlen, fut))
            if not self._scheduled:
                self._scheduled = True
                asyncio.get_running_loop().call_soon(self._start_flush)
            return await fut

    def entry(self, body: Any, stream: str, maxlen: int | None = None, *,
              correlation_id: str | None = None, reply_to: str | None = None,
              headers: Mapping[str, str] | None = None) -> tuple[str, bytes, int]:
        """What ``publish`` would XADD: (stream, the ``__data__`` field, its MAXLEN ~ cap),
        for a caller that writes it in a step of its own (a Lua script)."""
        carried = dict(headers) if headers else {}
        if "traceparent" not in carried:  # a caller's own trace context wins
            tracing.inject(carried)  # the trace continues in whoever reads the entry
        data = encode(body, correlation_id or self._prefix + str(next(self._ids)),
                      reply_to, carried)
        cap = streams.maxlen(stream)
        return stream, data, cap if maxlen is None else min(maxlen, cap)

    def _start_flush(self) -> None:
        self._scheduled = False
        batch, self._pending = self._pending, []
        for i in range(0, len(batch), self.max_batch):
            task = asyncio.ensure_future(self._flush(batch[i:i + self.max_batch]))
            self._tasks.add(task)  # a reference until it is done
            task.add_done_callback(self._tasks.discard)

    async def _flush(self, batch: list[tuple[str, bytes, int | None, asyncio.Future[Any]]]
                     ) -> None:
        try:
            if len(batch) == 1:
                stream, data, maxlen, _ = batch[0]
                results: list[Any] = [await self.redis.xadd(stream, {_DATA_KEY: data},
                                                            maxlen=maxlen)]
            else:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for stream, data, maxlen, _ in batch:
                        pipe.xadd(stream, {_DATA_KEY: data}, maxlen=maxlen)
                    results = await pipe.execute(raise_on_error=False)
        except Exception as exc:
            for *_, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        for (*_, fut), res in zip(batch, results, strict=True):
            if fut.done():
                continue
            if isinstance(res, Exception):
                fut.set_exception(res)
            else:
                fut.set_result(res)
