"""Valkey memory near its limit: the gateway refuses new players, tables and games
with a typed 503 storage/full once used_memory passes EMPIRE_MEMORY_SOFT_LIMIT of maxmemory,
and lets the moves of running games through; the ratio is a metric."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.gateway.edge.memory_guard import MEMORY_RATIO, MemoryGuard
from shared.runtime.valkey import EmbeddedValkey

pytestmark = pytest.mark.integration


async def test_the_guard_trips_before_maxmemory_and_the_server_never_evicts() -> None:
    server = EmbeddedValkey(shipped=True)
    server.start()
    admin = aioredis.Redis.from_url(server.url)
    gw = aioredis.Redis.from_url(server.url_for("gateway"))
    try:
        used = int((await admin.info("memory"))["used_memory"])
        await admin.config_set("maxmemory", str(used + 4 * 1024 * 1024))
        guard = MemoryGuard(gw, soft_limit=0.85)  # as the gateway's own ACL user (+info)
        assert await guard.sample() < 0.85 and not guard.refuses("create_table")
        n = 0
        while await guard.sample() < 0.85:
            await admin.set(f"ballast:{n}", b"x" * 64 * 1024)
            n += 1
        assert guard.full and MEMORY_RATIO._value.get() >= 0.85
        for op in ("create_player", "create_table", "join_table", "add_bot", "start_table"):
            assert guard.refuses(op), op
        for op in ("get_table", "list_tables", "leave_table"):
            assert not guard.refuses(op), op
        # the headroom is real: a game's writes still succeed (nothing evicted, no OOM yet)
        await admin.set("g:{g-1}:state", b"s" * 1024)
        assert await admin.exists("ballast:0") == 1
    finally:
        await admin.aclose()
        await gw.aclose()
        server.stop()
