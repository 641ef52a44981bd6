"""A listing flood costs the lobby one request per query and window: the gateway
answers ``GET /api/tables`` from its per-replica micro-cache (EMPIRE_LISTING_CACHE_MS,
services/gateway/edge/micro_cache.py), concurrent identical requests sharing one lobby RPC."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import httpx
import pytest
import redis

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.protocol import streams
from tests.siege.conftest import report

pytestmark = [pytest.mark.siege]

WINDOW_S = 0.5  # EMPIRE_LISTING_CACHE_MS's default


def _lookups(url: str) -> dict[str, float]:
    """The gateway's cache lookups of the listing, by result (hit, miss)."""
    with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
        body = r.read().decode()
    out = {"hit": 0.0, "miss": 0.0}
    for line in body.splitlines():
        if line.startswith("empire_gateway_cache_total{") and '"/api/tables"' in line:
            for result in out:
                if f'result="{result}"' in line:
                    out[result] += float(line.rsplit(" ", 1)[1])
    return out


def _lobby_requests(admin: redis.Redis) -> int:
    """Requests ever sent to the lobby (its request stream's entries-added: answered
    requests are deleted, the count stays)."""
    return int(admin.xinfo_stream(streams.LOBBY_RPC)["entries-added"])


async def test_a_listing_flood_costs_one_lobby_request_per_window(siege: Supervisor) -> None:
    url = siege.url
    async with Client(url) as c:
        await c.sign_in("listing-flooder")
        auth = {"authorization": f"Bearer {c.token}"}
    assert siege.redis_url is not None
    admin = redis.Redis.from_url(siege.redis_url)
    before, sent_before = _lookups(url), _lobby_requests(admin)
    t0 = time.monotonic()
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        rs = await asyncio.gather(*[http.get("/api/tables", headers=auth) for _ in range(60)])
        rs += [await http.get("/api/tables", headers=auth) for _ in range(20)]
    elapsed = time.monotonic() - t0
    lobby = _lobby_requests(admin) - sent_before
    admin.close()
    after = _lookups(url)
    hits, misses = after["hit"] - before["hit"], after["miss"] - before["miss"]
    report("listing_cache", {"sent": 80, "lobby_requests": lobby, "cache_misses": misses,
                             "cache_hits": hits, "seconds": round(elapsed, 2)})
    assert [r.status_code for r in rs] == [200] * 80, [r.text[:200] for r in rs][:3]
    # one lobby request per window the requests spanned, not one per request; none at
    # all when an earlier test's listing of the same query is still fresh in the cache
    assert lobby <= 2 + int(elapsed / WINDOW_S), (lobby, elapsed)
    assert hits + misses == 80 and misses <= lobby, (hits, misses, lobby)
