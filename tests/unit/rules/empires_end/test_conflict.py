"""Conflict phases: the rulebook example, ties and upheaval (EEND-15), refresh (EEND-16), the
sealed fist bid through a Simultaneous round (EEND-21, EEND-22)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules.api import Act, JointAction, Json, Rejection, Simultaneous
from shared.rules.empires_end import GAME
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.conflict import tier
from shared.rules.empires_end.data import CONFLICT, TILE_IDS
from shared.rules.empires_end.state import Res, State

pytestmark = pytest.mark.unit

CITY_LAST = (*[t for t in TILE_IDS if t != "city"], "city")


def conflict(n: int, card: str, **kw: Any) -> State:
    state = sc.new_game(n, conflicts=[card])
    for key, value in kw.items():
        seat = int(key[-1])
        if key.startswith("res"):
            state = sc.set_res(state, seat, **value)
        elif key.startswith("empire"):
            state = sc.set_empire(state, seat, **value)
        elif key.startswith("vp"):
            state = sc.set_vp(state, seat, value)
    state, ev = sc.goto_phase(state, 5)
    assert state.phase == "conflict" and state.conflict_card == card
    assert [e.data for e in ev if e.type == "conflict_revealed"] == [{"card": card}]
    return state


def fists(state: State, *bids: tuple[int, int]) -> JointAction:
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    choices: dict[str, Json] = {f"s{i}": {"axes": a, "coins": c} for i, (a, c) in enumerate(bids)}
    return JointAction(round_id=node.round_id, choices=choices)


def test_rulebook_conflict_example() -> None:
    """Rulebook conflict example (card K1): you 5 -> 5 VP + 1 coin; A 3 -> nothing (avoids the
    penalty for 2 or less); B 8 -> 7 VP + 2 wheat, plus 3 VP + 1 coin for the most strength.
    You and A swap the 1st highest-VP healthy location with the 11th; A's is already there.
    Revealed axes and coins are discarded."""
    you, a, b = 0, 1, 2
    state = conflict(
        3,
        "K1",
        res0={"axe": 1},
        res1={"axe": 1},
        res2={"axe": 2, "coin": 2},
        empire1={"order": CITY_LAST, "destroyed": ["army-5"]},
    )
    assert [sc.view(state, None)["players"][s]["base_strength"] for s in range(3)] == [4, 2, 4]
    city_pos = [loc.tile for loc in state.players[you].empire].index("city")
    eleventh = state.players[you].empire[10].tile
    state, ev = sc.run(state, fists(state, (1, 0), (1, 0), (2, 2)))
    results: Any = ev[0].data["results"]
    assert ev[0].type == "conflict_resolved" and ev[0].visible_to is None
    assert [r["strength"] for r in results] == [5, 3, 8]
    assert [r["tier"] for r in results] == ["tier2", "none", "tier3"]
    assert [r["victory"] for r in results] == [False, False, True]
    assert [p.vp for p in state.players] == [5, 0, 7 + 3]
    assert state.players[you].res == Res(coin=1)
    assert state.players[a].res == Res()
    assert state.players[b].res == Res(wheat=2, coin=1)
    # Upheaval: 1st highest (City, 16) <-> 11th location; A's City is already 11th.
    assert state.players[you].empire[10].tile == "city"
    assert state.players[you].empire[city_pos].tile == eleventh
    assert results[0]["upheaval"] == ["city", eleventh]
    assert results[1]["upheaval"] is None
    assert [loc.tile for loc in state.players[a].empire] == list(CITY_LAST)
    assert state.conflict_discard == ("K1",) and state.conflict_card is None
    assert state.phase == "industry"


def test_one_threshold_only_and_penalty_below_zero() -> None:
    card = CONFLICT["K1"]
    assert [tier(card, s) for s in (0, 2, 3, 4, 5, 7, 8, 20)] == [
        "penalty",
        "penalty",
        "none",
        "none",
        "tier2",
        "tier2",
        "tier3",
        "tier3",
    ]
    state = conflict(2, "K10", res0={}, res1={}, empire0={"destroyed": ["army-5", "army-9"]}, vp1=0)
    state, _ = sc.run(state, fists(state, (0, 0), (0, 0)))
    assert state.players[0].vp == -5  # strength 0 <= 2: lose 5 (negative VP allowed)
    assert state.players[1].vp == 3  # strength 4: no tier, but the victory +3


def test_ties_share_victory_and_avoid_upheaval_eend_15() -> None:
    """EEND-15: everyone tied for the highest strength gets the Victory bonus and avoids the
    upheaval; the others swap their Nth-highest healthy location with position P."""
    state = conflict(3, "K2", res0={"axe": 2}, res1={"coin": 2}, res2={"axe": 1})
    before2 = [loc.tile for loc in state.players[2].empire]
    state, ev = sc.run(state, fists(state, (2, 0), (0, 2), (1, 0)))
    results: Any = ev[0].data["results"]
    assert [r["victory"] for r in results] == [True, True, False]
    assert [p.vp for p in state.players] == [3 + 2, 3 + 2, 3]  # K2: >=4: +3 VP +1 axe; win +2
    assert [loc.tile for loc in state.players[0].empire] == list(TILE_IDS)
    assert [loc.tile for loc in state.players[1].empire] == list(TILE_IDS)
    # K2 upheaval: 2nd highest healthy (road-14, 14 VP) <-> position 1.
    after2 = [loc.tile for loc in state.players[2].empire]
    assert after2[0] == "road-14" and after2[before2.index("road-14")] == before2[0]


def test_upheaval_rank_counts_healthy_locations_only_eend_15() -> None:
    """EEND-15: rank by printed VP among healthy tiles; fewer healthy tiles than the rank (or
    already in place) -> nothing happens."""
    state = conflict(2, "K2", res0={"axe": 5}, res1={}, empire1={"destroyed": ["city", "road-14"]})
    state, _ = sc.run(state, fists(state, (5, 0), (0, 0)))
    # Healthy by VP: town-12 (12), farm-11 (11): the 2nd is farm-11 -> position 1.
    assert state.players[1].empire[0].tile == "farm-11"
    only_one = [t for t in TILE_IDS if t != "farm-3"]
    state = conflict(2, "K3", res0={"axe": 5}, res1={}, empire1={"destroyed": only_one})
    state, ev = sc.run(state, fists(state, (5, 0), (0, 0)))
    assert sc.data(ev, "conflict_resolved")[0]["results"][1]["upheaval"] is None
    assert [loc.tile for loc in state.players[1].empire] == list(TILE_IDS)


def test_conflict_refresh_refreshes_all_exhausted_eend_16() -> None:
    """EEND-16: a refresh icon refreshes all of that player's exhausted abilities."""
    exhausted = ["famine-1", "famine-2", "barbarians-9"]
    state = conflict(
        2,
        "K2",
        res0={"axe": 3},
        empire0={
            "innovations": {
                "farm-3": ["famine-1"],
                "city": ["famine-2"],
                "farm-11": ["barbarians-9"],
            },
            "exhausted": exhausted,
        },
        empire1={"innovations": {"city": ["famine-3"]}, "exhausted": ["famine-3"]},
    )
    state, _ = sc.run(state, fists(state, (3, 0), (0, 0)))
    assert not any(i.exhausted for loc in state.players[0].empire for i in loc.innovations)
    assert any(i.exhausted for loc in state.players[1].empire for i in loc.innovations)


def test_fist_bid_is_a_sealed_simultaneous_round_eend_21() -> None:
    """EEND-21/22: conflict bids are secret and simultaneous: one slot per seat whose allowed
    choices are exactly the fists the seat can make; default = empty fist."""
    state = conflict(2, "K4", res0={"axe": 1, "coin": 1}, res1={})
    node = GAME.next(state)
    assert isinstance(node, Simultaneous) and node.round_id == "conflict:5"
    s0, s1 = node.slots
    assert (s0.seat, s0.key, s1.seat, s1.key) == (0, "s0", 1, "s1")
    assert sorted(map(str, s0.allowed or ())) == sorted(
        map(str, [{"axes": a, "coins": c} for a in (0, 1) for c in (0, 1)])
    )
    assert s1.allowed == ({"axes": 0, "coins": 0},)
    assert s0.default == {"axes": 0, "coins": 0} and GAME.check_choice(s0, s0.default)
    assert GAME.check_choice(s0, {"axes": 1, "coins": 1})
    assert not GAME.check_choice(s0, {"axes": 2, "coins": 0})
    assert not GAME.check_choice(s0, {"axes": 1})
    assert not GAME.check_choice(s0, {"axes": True, "coins": 0})
    assert not GAME.check_choice(s0, [1, 0])
    # The view shows each seat only its own slot.
    assert [s["key"] for s in sc.view(state, 0)["you"]["my_slots"]] == ["s0"]
    assert "you" not in sc.view(state, None)


def test_joint_action_is_validated() -> None:
    state = conflict(2, "K4", res0={"axe": 1}, res1={})
    wrong_round = JointAction(
        round_id="conflict:4",
        choices={"s0": {"axes": 0, "coins": 0}, "s1": {"axes": 0, "coins": 0}},
    )
    r = GAME.apply(state, wrong_round)
    assert isinstance(r, Rejection) and r.code == "action/unknown_round"
    missing = JointAction(round_id="conflict:5", choices={"s0": {"axes": 0, "coins": 0}})
    r = GAME.apply(state, missing)
    assert isinstance(r, Rejection) and r.code == "action/malformed"
    too_many_axes = fists(state, (1, 0), (1, 0))
    r = GAME.apply(state, too_many_axes)
    assert isinstance(r, Rejection) and r.code == "action/illegal"
    r = GAME.apply(state, Act(seat=0, action={"type": "end_turn"}))
    assert isinstance(r, Rejection) and r.code == "action/wrong_phase"
