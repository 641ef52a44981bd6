"""Every Attack/Defend combination as a table (rulebook "Attack & Defend", EE-4 … EE-9).

Each row sets the ready piles and the top actions with a real round-1 Plan (3 players:
seat 0's L attacks seat 1, its R seat 2; seat 1 is attacked by 0's L and 2's R), applies
the listed decisions in order and checks every pile and every attack record at the end of
the round. Ready = (Soldiers, Goods); score = (Soldiers, Goods, Inventions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from shared.rules.api import Act, Rejection, Transition, Turn
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.data import RESOURCES, Action
from shared.rules.empire_engine.scenario import position, round1
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.unit

SOLDIER = {"type": "loot", "take": "soldier"}
GOOD = {"type": "loot", "take": "good"}


def salvage(take: str) -> dict[str, Any]:
    return {"type": "salvage", "take": take}


def block(attacker: int) -> dict[str, Any]:
    return {"type": "block", "attacker": attacker}


@dataclass(frozen=True)
class Case:
    name: str
    ready: tuple[tuple[int, int], ...]
    tops: tuple[tuple[Action, Action], ...]
    final_ready: tuple[tuple[int, int], ...]
    final_score: tuple[tuple[int, int, int], ...]
    attacks: tuple[tuple[int, str, int, str, str | None], ...]
    decisions: tuple[tuple[int, dict[str, Any]], ...] = ()
    start: int = 0
    returned_soldiers: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Z = (0, 0, 0)
NEUTRAL: tuple[Action, Action] = ("produce", "defend")  # +2 Goods, Defend wasted when not attacked

CASES = [
    Case(
        "single attack undefended: the attacker takes a Soldier (EE-4)",
        ready=((1, 0), (1, 1), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), NEUTRAL),
        decisions=((0, SOLDIER),),
        final_ready=((0, 0), (0, 1), (0, 2)),
        final_score=((1, 0, 0), Z, Z),
        attacks=((0, "L", 1, "success", "soldier"),),
    ),
    Case(
        "single attack undefended: the attacker takes a Good (EE-4)",
        ready=((1, 0), (1, 1), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), NEUTRAL),
        decisions=((0, GOOD),),
        final_ready=((0, 0), (1, 0), (0, 2)),
        final_score=((0, 1, 0), Z, Z),
        attacks=((0, "L", 1, "success", "good"),),
    ),
    Case(
        "single attack undefended: a target with only Goods leaves no choice",
        ready=((1, 0), (0, 2), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), NEUTRAL),
        final_ready=((0, 0), (0, 1), (0, 2)),
        final_score=((0, 1, 0), Z, Z),
        attacks=((0, "L", 1, "success", "good"),),
    ),
    Case(
        "single attack undefended on an empty ready pile: a Soldier from the stock",
        ready=((1, 0), (0, 0), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), NEUTRAL),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((1, 0, 0), Z, Z),
        attacks=((0, "L", 1, "success", "stock"),),
    ),
    Case(
        "single attack defended: attacker gets nothing, defender a stock Soldier; Salvage works",
        ready=((1, 0), (1, 1), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "defend"), NEUTRAL),
        decisions=((1, salvage("invention")),),
        final_ready=((0, 0), (1, 1), (0, 2)),
        final_score=(Z, (1, 0, 1), Z),
        attacks=((0, "L", 1, "blocked", None),),
    ),
    Case(
        "single attack from the right neighbour defended",
        ready=((0, 0), (1, 1), (1, 0)),
        tops=(NEUTRAL, ("salvage", "defend"), ("produce", "attack")),
        decisions=((1, salvage("soldier")),),
        final_ready=((0, 2), (1, 1), (0, 2)),
        final_score=(Z, (2, 0, 0), Z),
        attacks=((2, "R", 1, "blocked", None),),
    ),
    Case(
        "double attack undefended: each attacker chooses, in turn order (EE-4)",
        ready=((1, 0), (2, 2), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), ("produce", "attack")),
        decisions=((0, SOLDIER), (2, GOOD)),
        final_ready=((0, 0), (1, 1), (0, 2)),
        final_score=((1, 0, 0), Z, (0, 1, 0)),
        attacks=((0, "L", 1, "success", "soldier"), (2, "R", 1, "success", "good")),
    ),
    Case(
        "double attack undefended, one resource: the start player's attack is first (EE-5)",
        ready=((1, 0), (0, 1), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), ("produce", "attack")),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((0, 1, 0), Z, (1, 0, 0)),
        attacks=((0, "L", 1, "success", "good"), (2, "R", 1, "success", "stock")),
    ),
    Case(
        "double attack undefended, one resource, target starts: seat 2 is first after it (EE-5)",
        start=1,
        ready=((1, 0), (0, 1), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), ("produce", "attack")),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((1, 0, 0), Z, (0, 1, 0)),
        attacks=((2, "R", 1, "success", "good"), (0, "L", 1, "success", "stock")),
    ),
    Case(
        "double attack undefended, one resource, seat 2 starts: seat 2 is first (EE-5)",
        start=2,
        ready=((1, 0), (0, 1), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), ("produce", "attack")),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((1, 0, 0), Z, (0, 1, 0)),
        attacks=((2, "R", 1, "success", "good"), (0, "L", 1, "success", "stock")),
    ),
    Case(
        "double attack undefended on an empty ready pile: both take a stock Soldier",
        ready=((1, 0), (0, 0), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), ("produce", "attack")),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((1, 0, 0), Z, (1, 0, 0)),
        attacks=((0, "L", 1, "success", "stock"), (2, "R", 1, "success", "stock")),
    ),
    Case(
        "double attack defended: the defender blocks seat 2, seat 0 succeeds (EE-8)",
        ready=((1, 0), (1, 1), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "defend"), ("produce", "attack")),
        decisions=((1, block(2)), (0, GOOD)),
        final_ready=((0, 0), (1, 0), (0, 2)),
        final_score=((0, 1, 0), (1, 0, 0), Z),
        attacks=((0, "L", 1, "success", "good"), (2, "R", 1, "blocked", None)),
    ),
    Case(
        "double attack defended: the defender blocks seat 0, seat 2 succeeds (EE-8)",
        ready=((1, 0), (1, 1), (1, 0)),
        tops=(("attack", "defend"), ("salvage", "defend"), ("produce", "attack")),
        decisions=((1, block(0)), (2, SOLDIER)),
        final_ready=((0, 0), (0, 1), (0, 2)),
        final_score=(Z, (1, 0, 0), (1, 0, 0)),
        attacks=((0, "L", 1, "blocked", None), (2, "R", 1, "success", "soldier")),
    ),
    Case(
        "attack without a Soldier is no attack: Export and Salvage succeed (EE-7)",
        ready=((0, 0), (0, 2), (0, 0)),
        tops=(("attack", "defend"), ("salvage", "export"), NEUTRAL),
        decisions=((1, salvage("good")),),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=(Z, (0, 3, 0), Z),
        attacks=((0, "L", 1, "unsupported", None),),
    ),
    Case(
        "attack without a Soldier is no attack: Defend gets no Soldier (EE-7)",
        ready=((0, 0), (0, 0), (0, 0)),
        tops=(("attack", "defend"), NEUTRAL, NEUTRAL),
        final_ready=((0, 0), (0, 2), (0, 2)),
        final_score=(Z, Z, Z),
        attacks=((0, "L", 1, "unsupported", None),),
    ),
    Case(
        "two Attacks with one Soldier: both fail, the Soldier is still returned (EE-7)",
        ready=((1, 0), (0, 1), (0, 0)),
        tops=(("attack", "attack"), ("salvage", "export"), NEUTRAL),
        decisions=((1, salvage("invention")),),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=(Z, (0, 1, 1), Z),
        attacks=((0, "L", 1, "unsupported", None), (0, "R", 2, "unsupported", None)),
        returned_soldiers=1,
    ),
    Case(
        "two Attacks with two Soldiers hit both neighbours",
        ready=((2, 0), (0, 1), (0, 0)),
        tops=(("attack", "attack"), ("salvage", "export"), ("produce", "export")),
        final_ready=((0, 0), (0, 0), (0, 1)),
        final_score=((0, 2, 0), Z, Z),
        attacks=((0, "L", 1, "success", "good"), (0, "R", 2, "success", "good")),
        returned_soldiers=2,
    ),
    Case(
        "all attack Soldiers are paid before any attack resolves (EE-6)",
        ready=((1, 0), (1, 0), (0, 0)),
        tops=(("attack", "defend"), ("attack", "export"), NEUTRAL),
        final_ready=((0, 0), (0, 0), (0, 2)),
        final_score=((1, 0, 0), Z, (1, 0, 0)),
        attacks=((0, "L", 1, "success", "stock"), (1, "L", 2, "blocked", None)),
    ),
]

CASES_2P = [
    Case(
        "2 players: both Attacks hit the opponent; its one resource, then a stock Soldier (EE-9)",
        ready=((2, 0), (0, 1)),
        tops=(("attack", "attack"), ("salvage", "export")),
        final_ready=((0, 0), (0, 0)),
        final_score=((1, 1, 0), Z),
        attacks=((0, "L", 1, "success", "good"), (0, "R", 1, "success", "stock")),
    ),
    Case(
        "2 players: Defend blocks one of a double attack, the other succeeds (EE-9, EE-8)",
        ready=((2, 0), (1, 1)),
        tops=(("attack", "attack"), ("salvage", "defend")),
        decisions=((0, GOOD),),
        final_ready=((0, 0), (1, 0)),
        final_score=((0, 1, 0), (1, 0, 0)),
        attacks=((0, "L", 1, "blocked", None), (0, "R", 1, "success", "good")),
    ),
    Case(
        "2 players: a defended single attack, Arm first pays for it; Salvage still works",
        ready=((0, 0), (0, 0)),
        tops=(("arm", "attack"), ("salvage", "defend")),
        decisions=((1, salvage("invention")),),
        final_ready=((1, 0), (0, 0)),
        final_score=(Z, (1, 0, 1)),
        attacks=((0, "R", 1, "blocked", None),),
    ),
    Case(
        "2 players: mutual attacks are both paid before either resolves (EE-6)",
        ready=((1, 0), (0, 0)),
        tops=(("produce", "attack"), ("arm", "attack")),
        final_ready=((0, 1), (0, 0)),
        final_score=((1, 0, 0), (0, 1, 0)),
        attacks=((0, "R", 1, "success", "soldier"), (1, "R", 0, "success", "good")),
    ),
]

CASES_4P = [
    Case(
        "4 players: the opposite seat is out of reach; untouched seats Export and Salvage",
        ready=((2, 0), (0, 1), (1, 1), (0, 1)),
        tops=(("attack", "attack"),) + (("salvage", "export"),) * 3,
        decisions=((2, salvage("soldier")),),
        final_ready=((0, 0), (0, 0), (1, 0), (0, 0)),
        final_score=((0, 2, 0), Z, (1, 1, 0), Z),
        attacks=((0, "L", 1, "success", "good"), (0, "R", 3, "success", "good")),
    ),
]


def named(text: str) -> Case:
    return next(c for c in CASES + CASES_2P + CASES_4P if text in c.name)


def run(case: Case) -> tuple[State, list[str]]:
    n = len(case.ready)
    state = position(n, ready=case.ready, start_player=case.start)
    tops = {seat: t for seat, t in enumerate(case.tops)}
    result = GAME.apply(state, round1(state, tops))
    assert isinstance(result, Transition), result
    state, events = result.state, [e.type for e in result.events]
    for seat, action in case.decisions:
        node = GAME.next(state)
        assert isinstance(node, Turn) and seat in node.seats, (node, seat)
        assert action in GAME.legal_actions(state, seat)
        result = GAME.apply(state, Act(seat=seat, action=action))
        assert isinstance(result, Transition), result
        state = result.state
        events += [e.type for e in result.events]
    assert state.phase == "plan" and state.round == 2, "round did not end after the decisions"
    return state, events


@pytest.mark.parametrize("case", CASES + CASES_2P + CASES_4P, ids=lambda c: c.name)
def test_attack_and_defend_table(case: Case) -> None:
    state, _ = run(case)
    assert tuple((p.ready.soldiers, p.ready.goods) for p in state.players) == case.final_ready
    assert (
        tuple((p.score.soldiers, p.score.goods, p.score.inventions) for p in state.players)
        == case.final_score
    )
    got = tuple((a.attacker, a.engine, a.target, a.status, a.loot) for a in state.attacks)
    assert got == case.attacks
    if case.returned_soldiers is not None:
        assert state.returned.soldiers == case.returned_soldiers
    for kind in RESOURCES:  # every resource is accounted for
        held = sum(p.ready.get(kind) + p.score.get(kind) for p in state.players)
        assert held == state.supplied.get(kind) - state.returned.get(kind)


def test_ee7_ee8_export_and_salvage_fail_only_after_a_successful_attack() -> None:
    """EE-7: unsupported attacks do not stop Export/Salvage; EE-8: a defended double attack
    still lets the other attack through, so the defender's Salvage fails."""
    _, events = run(named("no attack: Export and Salvage succeed"))
    assert "export" in events and "salvage" in events and "export_failed" not in events
    _, events = run(named("blocks seat 2, seat 0 succeeds"))
    assert "salvage_failed" in events and "block" in events


def test_defend_when_not_attacked_is_wasted() -> None:
    _, events = run(named("Defend gets no Soldier"))
    assert events.count("defend_wasted") == 3  # seat 0's unpaid attack does not count
    assert "block" not in events


def test_block_and_loot_decisions_are_validated() -> None:
    case = named("blocks seat 2, seat 0 succeeds")
    state = position(3, ready=case.ready)
    result = GAME.apply(state, round1(state, dict(enumerate(case.tops))))
    assert isinstance(result, Transition)
    state = result.state
    assert state.phase == "block"
    assert GAME.legal_actions(state, 1) == [block(0), block(2)]
    assert GAME.default_action(state, 1) == block(0)
    view: Any = GAME.view(state, 1)
    assert view["pending"] == {"block": [{"defender": 1, "attackers": [0, 2]}]}
    cases = [
        (Act(seat=0, action=block(2)), "action/not_your_turn"),
        (Act(seat=1, action=block(1)), "action/illegal"),
        (Act(seat=1, action=GOOD), "action/illegal"),
        (Act(seat=1, action={"type": "block"}), "action/malformed"),
        (Act(seat=1, action={"type": "block", "attacker": "2"}), "action/malformed"),
        (Act(seat=1, action="block"), "action/malformed"),
        (Act(seat=7, action=block(2)), "action/not_your_turn"),
    ]
    for move, code in cases:
        rejected = GAME.apply(state, move)
        assert isinstance(rejected, Rejection) and rejected.code == code, (move, rejected)


def test_ee4_loot_choice_is_offered_only_to_the_attacker() -> None:
    case = named("takes a Soldier (EE-4)")
    state = position(3, ready=case.ready)
    result = GAME.apply(state, round1(state, dict(enumerate(case.tops))))
    assert isinstance(result, Transition)
    state = result.state
    assert state.phase == "loot" and GAME.next(state) == Turn(seats=(0,))
    assert GAME.legal_actions(state, 0) == [SOLDIER, GOOD]
    assert GAME.legal_actions(state, 1) == []
    view = GAME.view(state, 0)
    assert view["pending"] == {
        "loot": {"attacker": 0, "engine": "L", "target": 1, "status": "success", "loot": None}
    }
