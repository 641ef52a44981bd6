"""The gateway's micro-cache of public answers (services/gateway/edge/micro_cache.py): one
computation for concurrent identical requests, reused within its window, failures never
kept, off at 0."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.edge.micro_cache import MicroCache

pytestmark = pytest.mark.unit


async def test_concurrent_callers_share_one_computation_and_its_answer() -> None:
    calls = 0

    async def compute() -> dict[str, int]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return {"n": calls}

    cache = MicroCache(60.0, "/t")
    got = await asyncio.gather(*(cache.get("q", compute) for _ in range(20)))
    assert calls == 1 and all(g == {"n": 1} for g in got)
    assert await cache.get("q", compute) == {"n": 1}  # within its window
    assert await cache.get("other", compute) == {"n": 2}  # another query


async def test_a_failure_is_not_kept_and_zero_turns_it_off() -> None:
    async def broken() -> dict[str, int]:
        raise RuntimeError("lobby down")

    async def fine() -> dict[str, int]:
        return {"ok": 1}

    cache = MicroCache(60.0, "/t")
    with pytest.raises(RuntimeError):
        await cache.get("q", broken)
    assert await cache.get("q", fine) == {"ok": 1}
    calls = 0

    async def count() -> dict[str, int]:
        nonlocal calls
        calls += 1
        return {}

    off = MicroCache(0, "/t")
    for _ in range(3):
        await off.get("q", count)
    assert calls == 3


async def test_queries_kept_are_bounded() -> None:
    async def compute() -> dict[str, int]:
        return {}

    cache = MicroCache(60.0, "/t", size=4)
    for i in range(10):
        await cache.get(i, compute)
    assert len(cache._answers) == 4
