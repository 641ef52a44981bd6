"""What the scoring shell (services/scoring/service.py) needs from the outside: its store
(services/scoring/store.py over Redis; tests/support/fakes ``FakeScoringStore`` in memory,
checked against it in tests/integration/test_store_contracts.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

Rows = dict[str, dict[str, Any]]
# the rating step: the players' current rows (None for a first game) -> (new rows, record)
Decide = Callable[[list[dict[str, Any] | None]], tuple[Rows, dict[str, Any]]]


class ScoringStorePort(Protocol):
    async def rate_once(self, game: str, game_id: str, ids: list[str], decide: Decide
                        ) -> tuple[dict[str, Any], bool]: ...

    async def publish(self, record: dict[str, Any], leaderboard: dict[str, float],
                      keep: int) -> None: ...
