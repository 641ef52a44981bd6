"""End of game: healthy location VP + end-game innovations + track VP (EEND-17, 18, 23)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules.empires_end import GAME
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.data import TILES
from shared.rules.empires_end.scoring import breakdown
from shared.rules.empires_end.state import State

pytestmark = pytest.mark.unit

ORDER = (
    "farm-3",
    "road-2",
    "farm-8",
    "city",
    "town-6",
    "army-5",
    "road-14",
    "town-12",
    "army-9",
    "road-7",
    "farm-11",
)


def base(n: int = 2) -> State:
    state = sc.new_game(n, order=ORDER)
    for seat in range(n):
        state = sc.set_res(state, seat)
    return state


def test_location_vp_total_is_93() -> None:
    assert sum(t.vp for t in TILES) == 93
    assert len({t.vp for t in TILES}) == 11  # every location has a different value
    assert breakdown(base(), 0) == {
        "total": 93,
        "vp_track": 0,
        "locations": 93,
        "innovations": 0,
        "destroyed": 0,
    }


def test_track_plus_healthy_locations_only() -> None:
    state = sc.set_vp(base(), 0, -4)
    state = sc.set_empire(state, 0, destroyed=["city", "farm-3"])
    assert breakdown(state, 0)["total"] == -4 + 93 - 16 - 3


def test_end_adjacent_type_requires_healthy_eend_17() -> None:
    """EEND-17: 'VP per adjacent location of a type' counts healthy ones only, and only while
    the innovation's own location is healthy."""
    state = sc.set_empire(base(), 0, innovations={"road-2": ["riots-6"]})  # 2 VP / Farm
    assert breakdown(state, 0)["innovations"] == 4
    state = sc.set_empire(state, 0, destroyed=["farm-8"])
    assert breakdown(state, 0)["innovations"] == 2
    state = sc.set_empire(state, 0, destroyed=["road-2"])
    assert breakdown(state, 0)["innovations"] == 0


def test_token_scoring_coins_only_as_coins_eend_18() -> None:
    """EEND-18: token scoring counts the listed token; coins count only as coins."""
    state = sc.set_res(base(), 0, wheat=5, axe=2, coin=3)
    state = sc.set_empire(state, 0, innovations={"city": ["riots-4"], "army-5": ["barbarians-11"]})
    assert breakdown(state, 0)["innovations"] == 3 + 2


def test_destroyed_scoring_copy_and_most_destroyed() -> None:
    state = base(3)
    state = sc.set_empire(
        state,
        0,
        destroyed=["road-2", "town-6", "army-9"],
        innovations={"farm-3": ["riots-1"], "farm-8": ["riots-2"], "city": ["riots-9"]},
    )
    state = sc.set_empire(
        state, 1, destroyed=["farm-3", "farm-8", "city"], innovations={"road-14": ["riots-3"]}
    )
    # seat 0: 2 x 3 destroyed = 6; most destroyed (tied with seat 1) = 13; copy the best = 13.
    assert breakdown(state, 0)["innovations"] == 6 + 13 + 13
    # seat 1: riots-3 under road-14 (healthy) with army-5 and town-12 healthy -> 0
    assert breakdown(state, 1)["innovations"] == 0
    state = sc.set_empire(state, 1, destroyed=["farm-3", "farm-8", "city", "army-5", "town-12"])
    assert breakdown(state, 1)["innovations"] == 2 * 2
    assert breakdown(state, 0)["innovations"] == 6 + 0 + 6  # no longer the most destroyed
    state = sc.set_empire(
        state, 2, innovations={"city": ["riots-10"]}, destroyed=["farm-8", "town-6"]
    )
    assert breakdown(state, 2)["innovations"] == 3 * 2


def test_tie_break_clockwise_from_first_player_eend_23() -> None:
    """EEND-23: the tied player closest to the first player going clockwise (the first player
    included) wins the tie."""
    state = replace(base(3), first=2)
    outcome = GAME.score(state)  # all three tied at 93
    assert [r.place for r in outcome.results] == [2, 3, 1]
    assert outcome.winners == (2,)
    assert "EEND-23" in outcome.tiebreak
    state = sc.set_vp(state, 1, 1)
    assert [r.place for r in GAME.score(state).results] == [3, 1, 2]
    assert GAME.score(state).results[1].figures["total"] == 94
