"""Economy phases: the rulebook example, conversions, refresh, repeat (EEND-10, 20, 22, 24)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules.api import Event, Turn
from shared.rules.empires_end import GAME, board
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.data import TILE
from shared.rules.empires_end.state import Res, State

pytestmark = pytest.mark.unit

# The tile layout of the economy example: Farms 11, 8, 3; the 14-point Road; two refresh Roads.
ORDER = (
    "farm-11",
    "road-2",
    "farm-8",
    "city",
    "farm-3",
    "army-5",
    "road-14",
    "town-6",
    "road-7",
    "army-9",
    "town-12",
)


def economy(state: State, **empire: Any) -> tuple[State, list[Event]]:
    state = sc.set_empire(state, 0, **empire)
    state, ev = sc.goto_phase(state, 2)
    assert state.phase == "economy"
    return state, ev


def test_rulebook_economy_example() -> None:
    """Rulebook economy example: 1 hammer (11-pt Farm), 1 axe (8-pt Farm), no wheat from the
    destroyed 3-pt Farm; optional trades on the 14-pt Road (wheat -> hammer OR axe) and the
    'Economy' innovation (wheat -> hammer AND axe); the refresh Roads do nothing."""
    state = sc.new_game(2, order=ORDER)
    state = sc.set_res(state, 0, wheat=2)
    state, ev = economy(state, destroyed=["farm-3"], innovations={"army-5": ["fire-5"]})
    gained = [e for e in ev if e.type == "tokens_gained" and e.data["seat"] == 0]
    assert [e.data for e in gained] == [{"seat": 0, "wheat": 0, "hammer": 1, "axe": 1, "coin": 0}]
    assert all(e.visible_to == (0,) for e in gained)
    assert not [e for e in ev if e.type == "refreshed"]
    assert state.players[0].res == Res(wheat=2, hammer=1, axe=1)
    assert sc.legal(state, 0) == [
        {"type": "convert", "source": "fire-5", "option": 0},  # under army-5 (6th spot)
        {"type": "convert", "source": "road-14", "option": 0},  # 7th spot
        {"type": "convert", "source": "road-14", "option": 1},
        {"type": "end_economy"},
    ]
    state, ev = sc.run(
        state,
        (0, {"type": "convert", "source": "road-14", "option": 1}),  # 3a: wheat -> axe
        (0, {"type": "convert", "source": "fire-5", "option": 0}),  # 3b: wheat -> hammer + axe
    )
    assert state.players[0].res == Res(wheat=0, hammer=2, axe=3)
    assert all(e.visible_to == (0,) for e in ev)
    assert sc.legal(state, 0) == [{"type": "end_economy"}]  # no wheat left
    state, _ = sc.run(state, (0, {"type": "end_economy"}))
    assert GAME.next(state) == Turn(seats=(1,))


def test_conversions_in_any_order_and_allowance_eend_10() -> None:
    """EEND-10: each player orders its own abilities: coin -> wheat + hammer, then the new wheat
    through the Road; the Road allows 2 uses, fire-6 one."""
    state = sc.new_game(2, order=ORDER)
    state = sc.set_res(state, 0, coin=1)
    state, _ = economy(state, innovations={"city": ["fire-6"]})
    start = state.players[0].res  # wheat 1 (3-pt Farm), hammer 1, axe 1, coin 1
    assert start == Res(wheat=1, hammer=1, axe=1, coin=1)
    state, _ = sc.run(
        state,
        (0, {"type": "convert", "source": "fire-6", "option": 0}),
        (0, {"type": "convert", "source": "road-14", "option": 0}),
        (0, {"type": "convert", "source": "road-14", "option": 0}),
    )
    assert state.players[0].res == Res(wheat=0, hammer=4, axe=1, coin=0)
    legal = sc.legal(state, 0)
    assert legal == [{"type": "end_economy"}]


def test_repeat_eend_10() -> None:
    """EEND-10: Repeat cannot target itself; repeating a conversion gives its full allowance
    again; repeating a gain gains again."""
    state = sc.new_game(2, order=ORDER)
    state = sc.set_res(state, 0, wheat=5)
    state, _ = economy(state, innovations={"city": ["fire-8"]})
    targets = [a["target"] for a in sc.legal(state, 0) if a["type"] == "repeat"]
    assert "fire-8" not in targets
    assert set(targets) == {"farm-11", "road-2", "farm-8", "farm-3", "road-14", "road-7"}
    state, _ = sc.run(state, (0, {"type": "repeat", "source": "fire-8", "target": "road-14"}))
    assert state.work[0].conv[0].source == "road-14" and state.work[0].conv[0].left == 4
    for _ in range(4):
        state, _ = sc.run(state, (0, {"type": "convert", "source": "road-14", "option": 0}))
    assert state.players[0].res.wheat == 2  # 5 + 1 (farm) - 4
    assert not any(a["type"] == "convert" for a in sc.legal(state, 0))
    # Repeat a gain instead.
    state = sc.new_game(2, order=ORDER)
    state = sc.set_res(state, 0)
    state, _ = economy(state, innovations={"city": ["fire-8"]})
    state, ev = sc.run(state, (0, {"type": "repeat", "source": "fire-8", "target": "farm-11"}))
    assert state.players[0].res.hammer == 2
    assert not any(a["type"] == "repeat" for a in sc.legal(state, 0))
    assert all(e.visible_to == (0,) for e in ev)


def test_adjacency_gains_and_vp() -> None:
    """Glossary: per adjacent healthy Farm (0, 1 or 2), per adjacent destroyed location; the
    innovation's own location must be healthy."""
    order = (
        "farm-3",
        "road-2",
        "farm-8",
        *[t for t in ORDER if t not in ("farm-3", "road-2", "farm-8")],
    )
    state = sc.new_game(2, order=order)
    state = sc.set_res(state, 0)
    state, ev = economy(state, innovations={"road-2": ["drought-1"]})
    assert state.players[0].res.wheat == 1 + 2  # farm-3 + two adjacent farms
    state = sc.new_game(2, order=order)
    state = sc.set_res(state, 0)
    state, ev = economy(state, innovations={"road-2": ["drought-1"]}, destroyed=["farm-3"])
    assert state.players[0].res.wheat == 1  # only farm-8 adjacent and healthy
    state = sc.new_game(2, order=order)
    state = sc.set_res(state, 0)
    state, ev = economy(
        state, innovations={"road-2": ["drought-7"]}, destroyed=["farm-3", "farm-8"]
    )
    assert state.players[0].vp == 2
    vp_events = [e for e in ev if e.type == "vp_gained"]
    assert vp_events[0].visible_to is None
    state = sc.new_game(2, order=order)
    state = sc.set_res(state, 0)
    state, _ = economy(state, innovations={"road-2": ["drought-7"]}, destroyed=["road-2", "farm-3"])
    assert state.players[0].vp == 0  # under a destroyed location: inactive


def test_refresh_adjacent_roads() -> None:
    """Starting Roads refresh exhausted abilities under adjacent locations only; the refresh is
    public (exhaust markers are public)."""
    state = sc.new_game(2, order=ORDER)
    state, ev = economy(
        state,
        innovations={"farm-11": ["famine-1"], "farm-8": ["famine-2"], "city": ["famine-3"]},
        exhausted=["famine-1", "famine-2", "famine-3"],
    )
    refreshed = [e for e in ev if e.type == "refreshed"]
    assert [e.data for e in refreshed] == [{"seat": 0, "cards": ["famine-1", "famine-2"]}]
    emp = state.players[0].empire
    assert not emp[0].innovations[0].exhausted and not emp[2].innovations[0].exhausted
    assert emp[3].innovations[0].exhausted  # city is not next to a refresh Road


def test_unlimited_supply_eend_20() -> None:
    """EEND-20: token supplies are unlimited; exhaustion is a per-ability flag."""
    state = sc.new_game(2, order=ORDER)
    state = sc.set_res(state, 0, wheat=30, hammer=25, axe=25, coin=20)
    state, _ = economy(state)
    assert state.players[0].res == Res(wheat=31, hammer=26, axe=26, coin=20)
    exhausted = [f"famine-{i}" for i in range(1, 8)] + ["barbarians-9", "famine-8"]
    state = sc.set_empire(state, 1, innovations={"city": exhausted}, exhausted=exhausted)
    assert sum(i.exhausted for loc in state.players[1].empire for i in loc.innovations) == 9


def test_food_is_wheat_eend_24() -> None:
    """EEND-24: the Road's 'convert 1 Food' takes Wheat; 'kingdom' = own empire (Repeat)."""
    road = TILE["road-14"].ability
    assert road.src == "wheat" and road.times == 2
    assert road.outs == ((("hammer", 1),), (("axe", 1),))


def test_seat_without_choices_finishes_at_once_and_default_is_end() -> None:
    """A seat with no conversion or repeat ability (public knowledge) has nothing to decide;
    others must end explicitly, so waiting never reveals a hidden stash (EEND-21, EEND-22)."""
    state = sc.new_game(3, order=ORDER)
    state = sc.set_empire(state, 1, destroyed=["road-14"])
    state = sc.set_res(state, 2)
    state, _ = sc.goto_phase(state, 2)
    assert GAME.next(state) == Turn(seats=(0, 2))
    assert GAME.default_action(state, 2) == {"type": "end_economy"}
    state, _ = sc.run(state, (2, GAME.default_action(state, 2)), (0, {"type": "end_economy"}))
    assert state.phase == "disaster"


def test_active_abilities_skip_destroyed_locations() -> None:
    state = sc.new_game(2, order=ORDER)
    state = sc.set_empire(state, 0, innovations={"city": ["fire-1"]}, destroyed=["city"])
    refs = [ref for _, ref, _ in board.active(state.players[0], "economy")]
    assert "fire-1" not in refs and "farm-3" in refs
