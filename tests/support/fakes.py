"""In-memory adapters for the ports of shared/runtime/ports.py: the same answers as the Redis
stores (services/*/store.py) for what the services ask, held in dicts. The store contract
tests (tests/integration/test_store_contracts.py) run the same checks against both, so a fake
that drifts from its store fails there."""

from __future__ import annotations

import copy
from typing import Any

from shared.runtime.jsonutil import dumps, loads
from shared.runtime.ports import Decide


class FakePublisher:
    """Records what a service publishes: (stream, body) in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def publish(self, body: Any, /, *, stream: str, maxlen: int | None = None) -> Any:
        self.sent.append((stream, body))
        return None

    def bodies(self, type_: str) -> list[dict[str, Any]]:
        return [b for _, b in self.sent if isinstance(b, dict) and b.get("type") == type_]


class FakeDealerStore:
    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}
        self.orders: dict[str, list[str]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.ttl_ms: dict[str, int] = {}

    async def commit_seed(self, game_id: str, seed_hex: str, rules_version: str,
                          commitment: str, entry: str) -> bool:
        h = self.hashes.setdefault(game_id, {})
        if "seed" in h:
            return False
        h.update(seed=seed_hex, rules_version=rules_version, commitment=commitment)
        self.records.setdefault(game_id, []).append(loads(entry))
        return True

    async def commitment(self, game_id: str) -> str:
        return self.hashes[game_id]["commitment"]

    async def fields(self, game_id: str) -> dict[str, str]:
        return dict(self.hashes.get(game_id, {}))

    async def fix_client_seeds(self, game_id: str, seeds: str) -> bool:
        return self.hashes.setdefault(game_id, {}).setdefault("client_seeds", seeds) == seeds

    async def store_draw(self, game_id: str, label: str, record: str) -> str | None:
        h = self.hashes.setdefault(game_id, {})
        prior = h.get("draw:" + label)
        if prior is not None:
            return prior
        h["draw:" + label] = record
        self.orders.setdefault(game_id, []).append(label)
        return None

    async def order(self, game_id: str) -> list[str]:
        return list(self.orders.get(game_id, []))

    async def reveal(self, game_id: str, entry: str, ttl_ms: int) -> bool:
        h = self.hashes.setdefault(game_id, {})
        if "revealed" in h:
            return False
        h["revealed"] = "1"
        self.records.setdefault(game_id, []).append(loads(entry))
        self.ttl_ms[game_id] = ttl_ms
        return True


class FakeScoringStore:
    def __init__(self) -> None:
        self.ratings: dict[str, dict[str, dict[str, Any]]] = {}  # game -> player -> row
        self.scored: dict[str, dict[str, Any]] = {}  # game id -> record
        self.results: dict[str, dict[str, Any]] = {}
        self.leaderboards: dict[str, dict[str, float]] = {}
        self.histories: dict[str, dict[str, int]] = {}  # hist:<player> / history:<game>

    async def rate_once(self, game: str, game_id: str, ids: list[str], decide: Decide
                        ) -> tuple[dict[str, Any], bool]:
        if game_id in self.scored:
            return copy.deepcopy(self.scored[game_id]), False
        table = self.ratings.setdefault(game, {})
        rows, record = decide([copy.deepcopy(table.get(pid)) for pid in ids])
        table.update(loads(dumps(rows)))
        self.scored[game_id] = loads(dumps(record))
        return record, True

    async def publish(self, record: dict[str, Any], leaderboard: dict[str, float],
                      keep: int) -> None:
        self.results[record["game_id"]] = loads(dumps(record))
        self.leaderboards.setdefault(record["game"], {}).update(leaderboard)
        for key in [f"hist:{p['player_id']}" for p in record["players"]] + [
                f"history:{record['game']}"]:
            h = self.histories.setdefault(key, {})
            h[record["game_id"]] = record["ended_ms"]
            for gid, _ in sorted(h.items(), key=lambda kv: kv[1])[:max(0, len(h) - keep)]:
                del h[gid]
