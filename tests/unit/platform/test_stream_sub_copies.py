"""faststream 0.7's stream subscribers deep-copy their StreamSub on every access of
``stream_sub`` (per read, per message's log context, four times per reclaim poll); the
broker makes it one copy per prefix (shared.runtime.bus.memoize_stream_sub)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from faststream.redis import StreamSub
from faststream.redis.schemas import stream_sub as stream_sub_module

from shared.runtime.bus import consume, make_broker
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit


async def _handler(body: dict[str, Any]) -> None:
    return None


def _subscribers(stream: str, group: str, instance: str) -> list[Any]:
    """The stream subscribers ``consume`` registers (its reclaim subscriber; the live reader
    is not a faststream subscriber) on a broker built as the services build theirs."""
    broker = make_broker(Settings(redis_url="redis://127.0.0.1:1/0", instance=instance))
    consume(broker, stream, group, Settings(instance=instance), _handler)
    return [s for s in broker.subscribers if hasattr(s, "_stream_sub")]


def test_every_stream_subscriber_copies_its_settings_once(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    subs = _subscribers("copies:in", "copies", "t1")
    assert len(subs) == 1  # the reclaim subscriber
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
    sub = _subscribers("prefixed:in", "prefixed", "t2")[0]
    assert sub.stream_sub.name == "prefixed:in"
    monkeypatch.setattr(type(sub._outer_config), "prefix", property(lambda _: "tenant:"))
    assert sub.stream_sub.name == "tenant:prefixed:in"
    assert sub._stream_sub.name == "prefixed:in"  # the original is never changed


def test_idle_readers_poll_slower_once_the_service_runs(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """faststream starts subscribers one by one, each after its first poll returns, so they
    start polling at 100 ms; once the broker runs (settle_polling, from the service's
    after-startup hook) a reclaim subscriber looks for abandoned entries every
    RECLAIM_IDLE_MS / 5 (1 s of 5 s: taken over within 1.2x the bound). The live reader's
    XREADGROUP blocks 900 ms (it returns as soon as an entry arrives), under the connection's
    1 s health check."""
    from shared.protocol import streams
    from shared.runtime import bus
    from shared.runtime.redis import healthy

    broker = make_broker(Settings(redis_url="redis://127.0.0.1:1/0", instance="t3"))
    consume(broker, "poll:in", "poll", Settings(instance="t3"), _handler)
    monkeypatch.setattr(streams, "RECLAIM_IDLE_MS", 300)  # a test's short bound: 100 ms floor
    consume(broker, "poll:in2", "poll", Settings(instance="t3"), _handler)
    subs = [s for s in broker.subscribers if hasattr(s, "_stream_sub")]
    assert len(subs) == 2
    assert {s.stream_sub.polling_interval for s in subs} == {bus.START_POLL_MS} == {100}
    assert bus.settle_polling(broker) == 2
    by = {(s.stream_sub.name, s.stream_sub.min_idle_time is not None):
          s.stream_sub.polling_interval for s in subs}
    assert by == {("poll:in", True): 1_000, ("poll:in2", True): 100}
    assert 1000 * healthy("redis://x")["health_check_interval"] > bus.LIVE_BLOCK_MS
    # the read loops read the memoized copy: the one the running subscriber holds
    assert all(s.stream_sub is s.stream_sub for s in subs)
