"""Service-tier fixtures: ``r``, a client on the test module's own logical database (its
``DB``), emptied first, so modules that share the server never see each other's keys."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis


@pytest.fixture
async def r(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[aioredis.Redis]:
    base, _, _ = redis_url.rpartition("/")
    client = aioredis.Redis.from_url(f"{base}/{request.module.DB}")
    await client.flushdb()
    yield client
    await client.aclose()
