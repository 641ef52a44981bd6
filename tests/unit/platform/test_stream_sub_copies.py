"""faststream 0.7's stream subscribers deep-copy their StreamSub on every access of
``stream_sub`` (per read, per message's log context, four times per reclaim poll); the
broker makes it one copy per prefix (shared.runtime.bus.memoize_stream_sub, issue 25)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from faststream.redis import StreamSub
from faststream.redis.schemas import stream_sub as stream_sub_module

from shared.runtime.bus import consume, make_broker
from shared.runtime.settings import Settings


def _subscribers(broker: Any) -> list[Any]:
    return [s for s in broker.subscribers if hasattr(s, "_stream_sub")]


def test_every_stream_subscriber_copies_its_settings_once(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    broker = make_broker(Settings(redis_url="redis://127.0.0.1:1/0", instance="t1"))

    async def handler(body: dict[str, Any]) -> None:
        return None

    consume(broker, "copies:in", "copies", Settings(instance="t1"), handler)
    subs = _subscribers(broker)
    assert len(subs) == 2  # the live batch reader and its reclaim twin
    copies = 0
    real = copy.deepcopy

    def counted(obj: Any, *args: Any) -> Any:
        nonlocal copies
        copies += 1
        return real(obj, *args)

    monkeypatch.setattr(stream_sub_module, "deepcopy", counted)
    for sub in subs:
        first = sub.stream_sub
        for _ in range(50):  # reads, log contexts, reclaim polls
            assert sub.stream_sub is first
        assert isinstance(first, StreamSub) and first.name == "copies:in"
        assert first.group == "copies" and str(first.consumer).startswith("t1")
    assert copies <= len(subs), copies  # one each (none when an earlier access made it)


def test_a_new_prefix_gets_its_own_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    broker = make_broker(Settings(redis_url="redis://127.0.0.1:1/0", instance="t2"))

    async def handler(body: dict[str, Any]) -> None:
        return None

    consume(broker, "prefixed:in", "prefixed", Settings(instance="t2"), handler)
    sub = _subscribers(broker)[0]
    assert sub.stream_sub.name == "prefixed:in"
    monkeypatch.setattr(type(sub._outer_config), "prefix", property(lambda _: "tenant:"))
    assert sub.stream_sub.name == "tenant:prefixed:in"
    assert sub._stream_sub.name == "prefixed:in"  # the original is never changed
