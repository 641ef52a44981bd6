"""Component data, setup and the rulebook's card-play example."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Move,
    Rejection,
    RuleError,
    Simultaneous,
    Transition,
)
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.data import (
    CYCLE,
    ENGINE_ROWS,
    Action,
    EngineName,
    gear_turns,
    orientation_for,
    top_action,
)
from shared.rules.empire_engine.scenario import gears, position
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.unit


def test_engine_cards_hold_the_found_actions() -> None:
    """RULINGS §2.1: L = Arm, Salvage, Produce, Attack; R = Invent, Defend, Export, Attack."""
    assert set(CYCLE["L"]) == {"arm", "salvage", "produce", "attack"}
    assert set(CYCLE["R"]) == {"invent", "defend", "export", "attack"}
    assert set(CYCLE["L"]) & set(CYCLE["R"]) == {"attack"}  # Attack is on both engines
    assert "defend" in CYCLE["R"] and "export" in CYCLE["R"]  # can't Export and Defend together
    assert [row[0] for row in ENGINE_ROWS] == ["L", "R"]


@pytest.mark.parametrize(
    ("engine", "orientation", "top"),
    [
        ("L", 0, "arm"),
        ("L", 1, "attack"),  # one clockwise quarter-turn brings the left edge to the top
        ("L", 2, "produce"),
        ("L", 3, "salvage"),
        ("L", 4, "arm"),
        ("R", 0, "invent"),
        ("R", 1, "attack"),
        ("R", 2, "export"),
        ("R", 3, "defend"),
    ],
)
def test_reconstructed_rotation(engine: EngineName, orientation: int, top: Action) -> None:
    """RULINGS §2.2: top(o) = cycle[(-o) mod 4]; opposite pairs Arm/Produce, Salvage/Attack,
    Invent/Export, Defend/Attack."""
    assert top_action(engine, orientation) == top
    assert top_action(engine, orientation_for(engine, top)) == top


def test_gears_rotate_by_their_value_or_the_boosted_alternate() -> None:
    assert (gear_turns(1, False), gear_turns(1, True)) == (1, 0)
    assert (gear_turns(2, False), gear_turns(2, True)) == (2, 3)


def test_card_play_example_from_the_rulebook() -> None:
    """Rulebook example: '2' Gear below the left Engine, '1' below the right: L turns 2
    quarter-turns and shows Salvage, R turns 1 and shows Attack (from L=Attack, R=Invent)."""
    state = position(2, tops=[("attack", "invent"), ("arm", "invent")], round=2)
    result = GAME.apply(state, gears(state, {0: (2, "none", "none")}))
    assert isinstance(result, Transition)
    placed = {(p.seat, p.engine): p for p in result.state.placements}
    assert (placed[0, "L"].gear, placed[0, "L"].turns, placed[0, "L"].top) == (2, 2, "salvage")
    assert (placed[0, "R"].gear, placed[0, "R"].turns, placed[0, "R"].top) == (1, 1, "attack")
    assert result.state.players[0].engines == (3, 1)


def test_setup_gives_each_player_one_soldier_and_one_good() -> None:
    state = GAME.setup({}, 3)
    assert isinstance(state, State)
    for p in state.players:
        assert (p.ready.soldiers, p.ready.goods, p.ready.inventions) == (1, 1, 0)
        assert p.score.total() == 0 and p.engines is None
    assert (state.supplied.soldiers, state.supplied.goods) == (3, 3)
    assert state.round == 1 and state.phase == "start"


@pytest.mark.parametrize("n", [0, 1, 5])
def test_setup_rejects_bad_seat_counts(n: int) -> None:
    with pytest.raises(RuleError):
        GAME.setup({}, n)


def test_setup_rejects_bad_options() -> None:
    with pytest.raises(RuleError):
        GAME.setup({"long_game": "very"}, 2)
    with pytest.raises(RuleError):
        GAME.setup({"no_such_flag": True}, 2)


def test_options_schema_has_recommended_defaults() -> None:
    props: Any = GAME.options_schema()["properties"]
    defaults = {k: v["default"] for k, v in props.items()}
    assert defaults == {
        "long_game": False,
        "hidden_score_piles": True,
        "majority_bonus_at_zero": False,
        "random_start_player": True,
    }


def test_contract_metadata() -> None:
    assert (GAME.name, GAME.rules_version, GAME.min_seats, GAME.max_seats) == (
        "empire-engine",
        "1",
        2,
        4,
    )


def test_start_player_is_dealt() -> None:
    """The start player marker goes to a seat drawn by the dealer."""
    state = GAME.setup({}, 4)
    node = GAME.next(state)
    assert node == Chance(label="start-player", draw="below", n=4, count=1)
    result = GAME.apply(state, ChanceOutcome(label="start-player", values=(2,)))
    assert isinstance(result, Transition)
    assert result.state.start_player == 2
    assert [e.type for e in result.events] == ["start_player"]
    node = GAME.next(result.state)
    assert isinstance(node, Simultaneous)
    assert node.slots[0].seat == 2


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (ChanceOutcome(label="deal", values=(0,)), "action/unknown_round"),
        (ChanceOutcome(label="start-player", values=(4,)), "action/malformed"),
        (ChanceOutcome(label="start-player", values=(-1,)), "action/malformed"),
        (ChanceOutcome(label="start-player", values=(0, 1)), "action/malformed"),
        (ChanceOutcome(label="start-player", values=()), "action/malformed"),
        (JointAction(round_id="plan:1", choices={}), "action/wrong_phase"),
        (Act(seat=0, action={"type": "salvage", "take": "good"}), "action/wrong_phase"),
    ],
)
def test_bad_moves_at_the_start_are_rejected(move: Move, code: str) -> None:
    state = GAME.setup({}, 4)
    result = GAME.apply(state, move)
    assert isinstance(result, Rejection) and result.code == code


def test_without_random_start_seat_zero_starts() -> None:
    state = GAME.setup({"random_start_player": False}, 2)
    assert state.phase == "plan" and state.start_player == 0


def test_encode_decode_round_trip() -> None:
    state = position(3, tops=[("arm", "defend")] * 3, round=4, start_player=1)
    data = json.loads(json.dumps(GAME.encode(state)))
    assert GAME.decode(data) == state
