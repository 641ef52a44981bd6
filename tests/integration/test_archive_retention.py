"""The archive's retention: an archived game expires EMPIRE_ARCHIVE_TTL_S after its
archive (30 days by default; 0 keeps it for good), so the archive in Valkey is bounded by the
games of the retention, not by the site's age; the adjudicator archives with that setting."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adjudicator.app import wire
from shared.runtime.archive import ValkeyArchive, archive_key
from shared.runtime.service import build
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration

DOC = {"v": 1, "game_id": "g-ret", "record": [{"id": "1-0", "type": "game_created"}]}


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[Any]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


async def test_an_archived_game_expires_after_the_retention(r: Any) -> None:
    await ValkeyArchive(r, ttl_s=7 * 86400).put("g-ret", DOC)
    pttl = await r.pttl(archive_key("g-ret"))
    assert 7 * 86400_000 - 60_000 < pttl <= 7 * 86400_000, pttl
    assert await ValkeyArchive(r).get("g-ret") == DOC


async def test_a_retention_of_zero_keeps_the_archive_for_good(r: Any) -> None:
    await ValkeyArchive(r, ttl_s=0).put("g-forever", {**DOC, "game_id": "g-forever"})
    assert await r.pttl(archive_key("g-forever")) == -1


async def test_the_adjudicator_archives_with_the_setting(r: Any, redis_url: str) -> None:
    assert Settings().archive_ttl_s == 30 * 86400  # the documented default
    kit = build("adjudicator", Settings(archive_ttl_s=3600, redis_url=redis_url))
    adj = wire(kit)  # as create_app wires it
    await adj.archive.put("g-adj", {**DOC, "game_id": "g-adj"})
    await kit.redis.aclose()
    pttl = await r.pttl(archive_key("g-adj"))
    assert 3600_000 - 60_000 < pttl <= 3600_000, pttl
