"""Every hosted game, played by bots through the gateway's WebSocket to a scored result whose
public record verifies (dealer seed commitment, every draw, every sealed choice)."""

from __future__ import annotations

from typing import Any

import pytest

from services.supervisor import Supervisor
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.e2e

EMPIRE: list[tuple[str, int, dict[str, Any]]] = [
    ("empire", 3, {"version": "beginner"}),
    ("empire", 5, {"version": "beginner"}),
    ("empire", 3, {"version": "standard"}),
    ("empire", 5, {"version": "standard"}),
]
SINGLE: list[tuple[str, int, dict[str, Any]]] = [
    *EMPIRE,
    ("empire-engine", 3, {}),
    ("empires-end", 2, {}),
    ("empire-nyc", 3, {}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 120}),
]
# make test plays one Empire game across replicas (every game and variant on one system,
# above); the other variants and New York, tens of seconds, are make test-full's
REPLICATED: list[Any] = [
    pytest.param(*e, marks=pytest.mark.full) if e != ("empire", 3, {"version": "standard"})
    else e for e in EMPIRE
] + [pytest.param("empire-nyc", 3, {}, marks=pytest.mark.full)]


def _check(played: Any, game: str, seats: int) -> None:
    assert played.problems == [], played.problems
    assert played.counts["draws"] >= 1, "every game draws from the dealer"
    assert len(played.result["outcome"]["results"]) == seats
    if game == "empire":
        # sealed rounds: the entropy round, commerce every round (+ claiming in standard)
        assert played.counts["rounds"] >= 6 and played.counts["commitments"] >= 5 * seats


@pytest.mark.parametrize(("game", "seats", "options"), SINGLE,
                         ids=[f"{g}-{n}-{o.get('version', '')}" for g, n, o in SINGLE])
async def test_bots_play_every_game(system: Supervisor, game: str, seats: int,
                                    options: dict[str, Any]) -> None:
    _check(await play_bot_game(system.url, game, seats, options), game, seats)


@pytest.mark.parametrize(("game", "seats", "options"), REPLICATED,
                         ids=[f"{g}-{n}-{o.get('version', '')}" for g, n, o in
                              (getattr(r, "values", r) for r in REPLICATED)])
async def test_bots_play_with_replicas(replicated: Supervisor, game: str, seats: int,
                                       options: dict[str, Any]) -> None:
    _check(await play_bot_game(replicated.url, game, seats, options), game, seats)
