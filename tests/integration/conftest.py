"""Fixtures of the integration tier: a client of the session's real server (tests/conftest.py
``redis_url``), its database emptied first. A test module that needs a logical database of
its own (so no running system's loop reads its keys) sets ``DB`` to another number."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from tests.e2e.conftest import with_db
from tests.support.sealing import seed_escrow_key


@pytest.fixture
async def r(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    db = getattr(request.module, "DB", 0)
    client = aioredis.Redis.from_url(with_db(redis_url, db) if db else redis_url)
    await client.flushdb()
    await seed_escrow_key(client)  # the escrow's sealing key, as a running escrow makes it
    yield client
    await client.aclose()
