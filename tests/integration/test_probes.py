"""Probes that mean something (issue 26): a stream service whose consumer is wedged fails
liveness, one whose consume loop stopped fails readiness and liveness, a healthy one passes
both; consumers of processes that are gone are removed from their groups."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from shared.runtime.redis import ensure_group
from shared.runtime.service import build, live_probe, ready_probe, reap_consumers
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration


async def _kit(redis_url: str, handler_hangs: bool) -> tuple[object, str, asyncio.Event]:
    stream = f"probe:{uuid.uuid4().hex[:8]}"
    settings = Settings(redis_url=redis_url, liveness_stall_s=1.0, log_json=False,
                        instance=f"probe-{uuid.uuid4().hex[:6]}")
    kit = build("probe-test", settings)
    release = asyncio.Event()

    async def handler(body: dict[str, object]) -> None:
        if handler_hangs:
            await release.wait()  # a handler that never returns: the entry stays pending

    kit.consume(stream, "g", handler)
    await ensure_group(kit.redis, stream, "g")
    await kit.broker.start()
    return kit, stream, release


async def test_a_wedged_consumer_fails_liveness_and_a_healthy_one_passes(redis_url: str) -> None:
    wedged, stream, release = await _kit(redis_url, handler_hangs=True)
    healthy, stream2, _ = await _kit(redis_url, handler_hangs=False)
    try:
        await wedged.redis.xadd(stream, {"__data__": b'{"game_id":"x"}'})  # type: ignore[attr-defined]
        await healthy.redis.xadd(stream2, {"__data__": b'{"game_id":"x"}'})  # type: ignore[attr-defined]
        assert await live_probe(wedged) and await ready_probe(wedged)  # type: ignore[arg-type]
        await asyncio.sleep(2.0)  # past the stall bound (1 s)
        assert not await live_probe(wedged)  # type: ignore[arg-type]
        assert await live_probe(healthy) and await ready_probe(healthy)  # type: ignore[arg-type]
    finally:
        release.set()
        for kit in (wedged, healthy):
            await kit.broker.stop()  # type: ignore[attr-defined]
    # a stopped consume loop: neither ready nor live
    assert not await ready_probe(healthy)  # type: ignore[arg-type]
    assert not await live_probe(healthy)  # type: ignore[arg-type]
    for kit in (wedged, healthy):
        await kit.redis.aclose()  # type: ignore[attr-defined]


async def test_consumers_of_gone_processes_are_removed(redis_url: str) -> None:
    r = aioredis.Redis.from_url(redis_url, decode_responses=True)
    stream = f"reap:{uuid.uuid4().hex[:8]}"
    try:
        await ensure_group(r, stream, "g")
        await r.xadd(stream, {"d": "1"})
        await r.xadd(stream, {"d": "2"})
        await r.xreadgroup("g", "gone-idle", {stream: ">"}, count=1)  # then acked: nothing pending
        await r.xack(stream, "g", (await r.xrange(stream, count=1))[0][0])
        await r.xreadgroup("g", "gone-pending", {stream: ">"}, count=1)  # left pending
        await asyncio.sleep(0.3)
        assert await reap_consumers(r, [(stream, "g")], idle_s=0.1) == 1
        names = {c["name"] for c in await r.xinfo_consumers(stream, "g")}
        assert names == {"gone-pending"}  # kept until reclaim takes its entry
        assert await reap_consumers(r, [(stream, "g")], idle_s=3600) == 0
    finally:
        await r.delete(stream)
        await r.aclose()
