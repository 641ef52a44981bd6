"""services/scoring/ports.py ``ScoringStorePort`` in memory."""

from __future__ import annotations

import copy
from typing import Any

from services.scoring.ports import Decide
from shared.runtime.jsonutil import dumps, loads


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
