"""The bus's acknowledgements (shared/runtime/bus.py: the live reader's, and the reclaim
subscriber's under faststream's AckPolicy.MANUAL): a handled entry is XACKed and deleted; a
failing one stays pending, is reclaimed and retried, and after MAX_DELIVERIES goes to the
dead-letter stream, acknowledged; nothing else acks."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from shared.protocol import streams
from shared.runtime import bus
from shared.runtime.jsonutil import loads, text
from shared.runtime.outbox import Outbox
from shared.runtime.redis import ensure_group
from shared.runtime.settings import Settings
from shared.runtime.tasks import cancel_and_wait
from tests.e2e.conftest import with_db

pytestmark = pytest.mark.integration
DB = 15  # its own logical database (11-14: test_storage_bounds flushes them)


async def test_handled_entries_are_acked_and_a_poison_one_is_dead_lettered(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "RECLAIM_IDLE_MS", 300)  # read when the subscriber is made
    tag = secrets.token_hex(3)
    stream, group = f"t-acks-{tag}", "g-acks"
    url = with_db(redis_url, DB)
    settings = Settings(redis_url=url, instance=f"acks-{tag}", max_records=10)
    broker = bus.make_broker(settings)
    admin = aioredis.Redis.from_url(url)
    seen: dict[str, int] = {}

    async def handler(body: dict[str, Any]) -> None:
        seen[body["id"]] = seen.get(body["id"], 0) + 1
        if body["id"] == "poison":
            raise ValueError("always fails")

    reader = bus.consume(broker, stream, group, settings, handler)
    await ensure_group(admin, stream, group)
    await broker.start()
    live = asyncio.create_task(reader.run(admin))
    try:
        out = Outbox(admin)
        for i in ("a", "poison", "b"):
            await out.publish({"id": i, "game_id": "g"}, stream=stream)
        dead: list[Any] = []
        for _ in range(200):  # bounded: five deliveries ~0.3 s apart
            dead = [e for e in await admin.xrange(streams.DEAD_LETTERS)
                    if text(e[1][b"stream"]) == stream]
            pending = (await admin.xpending(stream, group))["pending"]
            if dead and pending == 0:
                break
            await asyncio.sleep(0.05)
    finally:
        await cancel_and_wait(live)
        await broker.stop()
    try:
        assert seen["a"] == 1 and seen["b"] == 1  # handled once each, never redelivered
        assert seen["poison"] == streams.MAX_DELIVERIES
        assert len(dead) == 1 and loads(dead[0][1][b"body"])["id"] == "poison"
        assert (await admin.xpending(stream, group))["pending"] == 0
        assert await admin.xlen(stream) == 0  # acknowledged entries are deleted too
    finally:
        await admin.delete(stream)
        await admin.xdel(streams.DEAD_LETTERS, *[e[0] for e in dead])
        await admin.aclose()


async def test_the_live_reader_outlives_a_failed_acknowledgement(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Valkey drops the connection as a batch is acknowledged: the reader keeps reading (the
    next entry is handled), and the entry whose XACK failed stays pending until the reclaim
    subscriber takes it over, handles it again and acknowledges it."""
    monkeypatch.setattr(streams, "RECLAIM_IDLE_MS", 300)
    tag = secrets.token_hex(3)
    stream, group = f"t-ackfail-{tag}", "g-ackfail"
    url = with_db(redis_url, DB)
    settings = Settings(redis_url=url, instance=f"ackfail-{tag}", max_records=1,
                        read_retry_s=0.05)
    broker = bus.make_broker(settings)
    admin = aioredis.Redis.from_url(url)
    seen: list[str] = []
    real = bus.acknowledge
    failures = [ConnectionError("Valkey went away")]

    async def flaky(*args: Any, **kwargs: Any) -> None:
        if failures:
            raise failures.pop()
        await real(*args, **kwargs)

    monkeypatch.setattr(bus, "acknowledge", flaky)

    async def handler(body: dict[str, Any]) -> None:
        seen.append(body["id"])

    reader = bus.consume(broker, stream, group, settings, handler)
    await ensure_group(admin, stream, group)
    await broker.start()
    bus.settle_polling(broker)
    live = asyncio.create_task(reader.run(admin))
    try:
        out = Outbox(admin)
        await out.publish({"id": "first", "game_id": "g"}, stream=stream)
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.02)
        await out.publish({"id": "second", "game_id": "g"}, stream=stream)
        for _ in range(300):  # bounded: a reclaim ~0.3 s after the entry went idle
            pending = (await admin.xpending(stream, group))["pending"]
            if seen.count("first") == 2 and "second" in seen and pending == 0:
                break
            await asyncio.sleep(0.02)
        assert not live.done()  # the failed acknowledgement did not end the reader
    finally:
        await cancel_and_wait(live)
        await broker.stop()
    try:
        assert seen.count("second") == 1
        assert seen.count("first") == 2  # its XACK failed: reclaimed and handled again
        assert (await admin.xpending(stream, group))["pending"] == 0
        assert await admin.xlen(stream) == 0
    finally:
        await admin.delete(stream)
        await admin.aclose()
