"""A short-lived per-replica cache of public answers, so a listing flood does not cost one
lobby RPC per request. The lobby listing (``GET /api/tables``) is the same for every player, so
each gateway replica serves it from here, keyed by the query, for EMPIRE_LISTING_CACHE_MS
(500 ms; 0: off): concurrent identical requests share one lobby RPC (single flight) and its
answer is reused until it is that old. Staleness: a table opened, joined or started shows in
the listing up to that long later (plus the lobby's own EMPIRE_LOBBY_LIST_CACHE_MS); a
table's own page (``GET /api/tables/{id}``) and every change are never cached. Failures are
not cached. What is cached is the answer as sent (the listing's JSON bytes, validated against
its response model once per fill): a hit costs no validation or serialization.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from prometheus_client import Counter

from shared.runtime.metrics import REGISTRY

LOOKUPS = Counter("empire_gateway_cache_total",
                  "Cached public answers (the lobby listing): hit, or miss (one lobby RPC)",
                  ["route", "result"], registry=REGISTRY)
SIZE = 256  # distinct queries kept per replica
T = TypeVar("T")


class MicroCache(Generic[T]):
    def __init__(self, ttl_s: float, route: str, size: int = SIZE) -> None:
        self.ttl_s = ttl_s
        self.route = route
        self.size = size
        self._answers: OrderedDict[Hashable, tuple[float, T]] = OrderedDict()
        self._pending: dict[Hashable, asyncio.Future[T]] = {}

    async def get(self, key: Hashable,
                  compute: Callable[[], Awaitable[T]]) -> T:
        """The answer for ``key``: cached while younger than the TTL, else computed once for
        every concurrent caller. The answer is shared: callers must not change it."""
        if self.ttl_s <= 0:
            return await compute()
        hit = self._answers.get(key)
        if hit is not None and time.monotonic() < hit[0]:
            LOOKUPS.labels(self.route, "hit").inc()
            return hit[1]
        pending = self._pending.get(key)
        if pending is None:
            LOOKUPS.labels(self.route, "miss").inc()
            pending = asyncio.ensure_future(self._fill(key, compute))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        else:
            LOOKUPS.labels(self.route, "hit").inc()
        return await asyncio.shield(pending)

    async def _fill(self, key: Hashable,
                    compute: Callable[[], Awaitable[T]]) -> T:
        out = await compute()
        self._answers[key] = (time.monotonic() + self.ttl_s, out)
        self._answers.move_to_end(key)
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
        return out
