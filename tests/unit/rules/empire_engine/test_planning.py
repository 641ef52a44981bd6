"""The Plan phase: fixed-order sealed rounds (EE-1, EE-2), gear resources (EE-3)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules._kit.model import Events
from shared.rules.api import Act, JointAction, Rejection, Simultaneous, Transition
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.planning import resolve_plan
from shared.rules.empire_engine.scenario import gears, joint, position, round1
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.unit


def plan_node(state: State) -> Simultaneous:
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    return node


def ok(state: State, move: Any) -> Transition:
    result = GAME.apply(state, move)
    assert isinstance(result, Transition), result
    return result


def test_ee1_round1_is_an_ordered_sealed_round_clockwise_then_back() -> None:
    """EE-1: start player clockwise, then from the last player anticlockwise; which engine
    is public (public_keys), the chosen action hidden."""
    state = position(3, start_player=1)
    node = plan_node(state)
    assert node.ordered and node.round_id == "plan:1"
    assert [s.key for s in node.slots] == ["s1:1", "s2:1", "s0:1", "s0:2", "s2:2", "s1:2"]
    for slot in node.slots:
        assert slot.public_keys == ("engine",)
        assert slot.allowed is not None and len(slot.allowed) == 8
        assert GAME.check_choice(slot, slot.default)
    assert node.slots[0].default == {"engine": "L", "top": "produce"}
    assert node.slots[-1].default == {"engine": "R", "top": "invent"}


def test_ee1_round1_reveal_sets_the_chosen_tops_in_any_placement_order() -> None:
    state = position(2)
    move = joint(
        state,
        {
            "s0:1": {"engine": "R", "top": "defend"},  # R placed first
            "s0:2": {"engine": "L", "top": "attack"},
            "s1:1": {"engine": "L", "top": "arm"},
            "s1:2": {"engine": "R", "top": "export"},
        },
    )
    result = ok(state, move)
    tops = result.events[0].data["tops"]
    assert tops == {"0": {"L": "attack", "R": "defend"}, "1": {"L": "arm", "R": "export"}}
    assert result.events[0].type == "plan_revealed" and result.events[0].visible_to is None


def test_ee1_second_placement_of_the_same_engine_is_replaced_by_the_other_engine() -> None:
    """EE-1 cross-slot rule: the escrow checks slots one by one, so a seat can name the same
    engine twice; the second placement becomes the other engine with its default action."""
    state = position(2)
    move = joint(
        state,
        {"s0:1": {"engine": "R", "top": "attack"}, "s0:2": {"engine": "R", "top": "export"}},
    )
    result = ok(state, move)
    p1, p2 = [p for p in result.state.placements if p.seat == 0]
    assert (p1.engine, p1.top, p1.overridden) == ("R", "attack", False)
    assert (p2.engine, p2.top, p2.overridden) == ("L", "produce", True)


def test_ee2_later_rounds_seal_gears_with_engine_and_boost_public() -> None:
    """EE-2: which engine and whether a Soldier/Good goes on the gear are public as placed;
    the gear value is hidden. Boosts are offered only for resources in the ready pile."""
    state = position(2, ready=[(1, 0), (0, 0)], tops=[("arm", "invent")] * 2, round=2)
    node = plan_node(state)
    assert node.ordered and node.round_id == "plan:2"
    assert [s.key for s in node.slots] == ["s0:1", "s1:1", "s1:2", "s0:2"]
    by_key = {s.key: s for s in node.slots}
    assert by_key["s0:1"].public_keys == ("engine", "boost")
    allowed0: Any = by_key["s0:1"].allowed
    allowed1: Any = by_key["s1:1"].allowed
    boosts0 = {c["boost"] for c in allowed0}
    boosts1 = {c["boost"] for c in allowed1}
    assert boosts0 == {"none", "soldier"} and boosts1 == {"none"}
    assert by_key["s0:1"].default == {"engine": "L", "gear": 1, "boost": "none"}
    assert by_key["s0:2"].default == {"engine": "R", "gear": 2, "boost": "none"}


@pytest.mark.parametrize(
    ("gear_l", "boost_l", "boost_r", "tops", "expected_ready"),
    [  # from L = Arm, R = Invent and a ready pile of 1 Soldier, 1 Good
        (1, "none", "none", ("attack", "export"), (1, 1)),  # L +1, R +2
        (2, "none", "none", ("produce", "attack"), (1, 1)),  # L +2, R +1
        (1, "soldier", "none", ("arm", "export"), (0, 1)),  # L '1' boosted to 0
        (2, "good", "none", ("salvage", "attack"), (1, 0)),  # L '2' boosted to 3
        (1, "soldier", "good", ("arm", "defend"), (0, 0)),  # R '2' boosted to 3
        (2, "none", "good", ("produce", "invent"), (1, 0)),  # R '1' boosted to 0
    ],
)
def test_ee3_gear_rotation_and_boosts(
    gear_l: int,
    boost_l: Any,
    boost_r: Any,
    tops: tuple[str, str],
    expected_ready: tuple[int, int],
) -> None:
    """Rotation by 1/2 or the boosted 0/3; EE-3: the resource leaves the ready pile and goes
    to the stock at the reveal (so it can never be stolen by this round's attacks)."""
    state = position(2, tops=[("arm", "invent")] * 2, round=2)
    move = gears(state, {0: (gear_l, boost_l, boost_r)})
    assert isinstance(GAME.apply(state, move), Transition)
    revealed = state.clone()
    resolve_plan(revealed, move.choices, Events())  # the Plan phase alone, before Execute
    placed = [p for p in revealed.placements if p.seat == 0]
    assert (placed[0].top, placed[1].top) == tops
    ready = revealed.players[0].ready
    assert (ready.soldiers, ready.goods) == expected_ready
    spent = (boost_l, boost_r)
    assert revealed.returned.soldiers == spent.count("soldier")
    assert revealed.returned.goods == spent.count("good")


def test_ee2_second_gear_is_forced_to_the_other_engine_and_gear() -> None:
    """Cross-slot rule: "places their other Gear below their other Engine". A second slot
    naming the same engine or gear is replaced; its boost is kept."""
    state = position(2, ready=[(1, 1), (1, 1)], tops=[("arm", "invent")] * 2, round=2)
    move = joint(
        state,
        {
            "s0:1": {"engine": "R", "gear": 2, "boost": "none"},
            "s0:2": {"engine": "R", "gear": 2, "boost": "good"},
        },
    )
    result = ok(state, move)
    p1, p2 = [p for p in result.state.placements if p.seat == 0]
    assert (p1.engine, p1.gear, p1.turns, p1.top) == ("R", 2, 2, "export")
    assert (p2.engine, p2.gear, p2.boost, p2.turns, p2.top, p2.overridden) == (
        "L",
        1,
        "good",
        0,
        "arm",
        True,
    )


def test_ee3_a_boost_the_first_gear_used_up_is_dropped() -> None:
    """With one Soldier, both slots may each (validly on their own) put it on a gear; the
    first placement spends it and the second gear turns its plain value."""
    state = position(2, ready=[(1, 0), (0, 0)], tops=[("arm", "invent")] * 2, round=2)
    move = joint(
        state,
        {
            "s0:1": {"engine": "L", "gear": 1, "boost": "soldier"},
            "s0:2": {"engine": "R", "gear": 2, "boost": "soldier"},
        },
    )
    result = ok(state, move)
    p1, p2 = [p for p in result.state.placements if p.seat == 0]
    assert (p1.boost, p1.turns, p1.top) == ("soldier", 0, "arm")
    assert (p2.boost, p2.turns, p2.top, p2.overridden) == ("none", 2, "export", True)
    assert result.state.returned.soldiers == 1
    assert result.state.players[0].ready.soldiers == 2  # 0 left + 2 from Arm


@pytest.mark.parametrize(
    ("choices", "round_id", "code"),
    [
        ({}, "plan:3", "action/unknown_round"),
        ({"s0:1": {"engine": "L", "gear": 1, "boost": "soldier"}}, "plan:2", "action/illegal"),
        ({"s0:1": {"engine": "L", "gear": True, "boost": "none"}}, "plan:2", "action/illegal"),
        ({"s0:1": {"engine": "L", "gear": 1.0, "boost": "none"}}, "plan:2", "action/illegal"),
        ({"s0:1": {"engine": "L", "top": "arm"}}, "plan:2", "action/illegal"),
        ({"s0:1": "L1"}, "plan:2", "action/illegal"),
        ({"s9:1": {"engine": "L", "gear": 1, "boost": "none"}}, "plan:2", "action/malformed"),
    ],
)
def test_joint_actions_are_validated(choices: dict[str, Any], round_id: str, code: str) -> None:
    state = position(2, ready=[(0, 1), (1, 1)], tops=[("arm", "invent")] * 2, round=2)
    move = joint(state, choices)
    result = GAME.apply(state, JointAction(round_id=round_id, choices=move.choices))
    assert isinstance(result, Rejection) and result.code == code


def test_joint_action_must_name_every_slot() -> None:
    state = position(2)
    move = round1(state, {})
    del move.choices["s1:2"]
    result = GAME.apply(state, move)
    assert isinstance(result, Rejection) and result.code == "action/malformed"
    bad = JointAction(round_id="plan:1", choices=round1(state, {}).choices, defaulted=("x",))
    result = GAME.apply(state, bad)
    assert isinstance(result, Rejection) and result.code == "action/malformed"


def test_defaulted_slots_are_accepted() -> None:
    state = position(2)
    move = round1(state, {})
    result = ok(state, JointAction(round_id="plan:1", choices=move.choices, defaulted=("s0:1",)))
    assert result.state.players[0].engines is not None


def test_acts_are_rejected_during_planning() -> None:
    state = position(2)
    result = GAME.apply(state, Act(seat=0, action={"type": "salvage", "take": "good"}))
    assert isinstance(result, Rejection) and result.code == "action/wrong_phase"
    assert GAME.legal_actions(state, 0) == []


def test_ee14_start_player_passes_clockwise_each_round() -> None:
    """EE-14: the start player marker passes clockwise; the plan order follows it."""
    state = position(3, start_player=2)
    result = ok(state, round1(state, {s: ("arm", "invent") for s in range(3)}))
    assert (result.state.round, result.state.start_player) == (2, 0)
    assert [s.key for s in plan_node(result.state).slots][:3] == ["s0:1", "s1:1", "s2:1"]
    assert result.events[-1].type == "round_started"
