"""Redis/Valkey clients and stream helpers shared by the services."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from shared.runtime.settings import Settings


def client(settings: Settings) -> Any:
    """A redis-py asyncio client (RedisCluster when configured for a cluster)."""
    if settings.cluster:
        return aioredis.RedisCluster.from_url(settings.redis_url, decode_responses=False)
    # a blocking pool: under a burst, callers wait for a connection instead of failing
    pool = aioredis.BlockingConnectionPool.from_url(settings.redis_url, max_connections=512,
                                                    timeout=10)
    return aioredis.Redis(connection_pool=pool)


async def ensure_group(r: Any, stream: str, group: str) -> None:
    """Create the consumer group at 0 (not $: nothing published before start is lost)."""
    try:
        await r.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise

