"""Valkey memory, watched before it is full: every shipped Valkey runs with
``maxmemory`` and ``noeviction``, so at the limit every write fails, running games' moves
included. The gateway samples ``INFO memory`` and, from EMPIRE_MEMORY_SOFT_LIMIT (a fraction
of maxmemory, default 0.85) on, refuses what would add players, tables or games with a typed
503 ``storage/full`` (Retry-After), while the moves of games already running go on in the
headroom. ``empire_valkey_memory_ratio`` shows the fraction; alert on it well before 1."""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from prometheus_client import Gauge

from services.gateway.ports import RedisClient
from shared.runtime.metrics import REGISTRY

log = structlog.get_logger("gateway")

MEMORY_RATIO = Gauge("empire_valkey_memory_ratio",
                     "Valkey used_memory / maxmemory as the gateway last saw it (0: no maxmemory)",
                     registry=REGISTRY)
GROWTH_OPS = frozenset({"create_player", "create_table", "join_table", "add_bot",
                        "start_table"})


class MemoryGuard:
    def __init__(self, redis: RedisClient, soft_limit: float, interval_s: float = 2.0) -> None:
        self.redis = redis
        self.soft_limit = soft_limit
        self.interval_s = interval_s
        self.ratio = 0.0

    async def sample(self) -> float:
        info = await self.redis.info("memory")
        used, cap = int(info.get("used_memory", 0)), int(info.get("maxmemory", 0))
        self.ratio = used / cap if cap else 0.0
        MEMORY_RATIO.set(self.ratio)
        return self.ratio

    @property
    def full(self) -> bool:
        return self.ratio >= self.soft_limit

    def refuses(self, op: str) -> bool:
        return self.full and op in GROWTH_OPS

    async def loop(self) -> None:
        was_full = False
        while True:
            with contextlib.suppress(Exception):
                await self.sample()
            if self.full != was_full:
                was_full = self.full
                log.warning("storage_soft_limit", full=was_full, ratio=round(self.ratio, 3),
                            soft_limit=self.soft_limit)
            await asyncio.sleep(self.interval_s)
