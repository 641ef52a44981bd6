"""services/dealer/ports.py ``DealerStorePort`` in memory."""

from __future__ import annotations

from typing import Any

from shared.runtime.jsonutil import loads


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
