"""Scoring (EE-13, EE-15), game length (EE-14), mandatory actions (EE-10), stock (EE-11),
out-of-scope edition abilities (EE-16)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.api import Act, Terminal, Transition
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.scenario import gears, position, round1
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.unit


def final(score: list[tuple[int, int, int]], ready: list[tuple[int, int]], **options: Any) -> State:
    n = len(score)
    state = position(n, ready=ready, score=score, tops=[("arm", "invent")] * n, options=options)
    state.phase, state.round = "over", state.rounds  # a state built here: nobody holds it
    return state


@pytest.mark.parametrize(
    ("zero_bonus", "points"),
    [(False, [9, 5, 0]), (True, [12, 8, 3])],
)
def test_ee13_points_and_majorities(zero_bonus: bool, points: list[int]) -> None:
    """1 point per resource; +3 per type to the most, ties all score; EE-13: no bonus for a
    type nobody has (the alternative flag gives it to everyone)."""
    state = final(
        [(2, 0, 1), (1, 0, 1), (0, 0, 0)], [(0, 0)] * 3, majority_bonus_at_zero=zero_bonus
    )
    outcome = GAME.score(state)
    assert [r.figures["points"] for r in outcome.results] == points
    assert outcome.results[0].figures["bonus_types"] == (
        ["soldier", "good", "invention"] if zero_bonus else ["soldier", "invention"]
    )
    assert [r.place for r in outcome.results] == [1, 2, 3]


def test_ee15_ready_pile_breaks_ties_then_victory_is_shared() -> None:
    """EE-15: equal points -> most resources in the ready pile; still equal -> shared."""
    state = final([(1, 1, 0), (1, 1, 0), (1, 1, 0), (0, 0, 0)], [(1, 0), (0, 2), (2, 0), (5, 5)])
    outcome = GAME.score(state)
    assert [r.figures["points"] for r in outcome.results] == [8, 8, 8, 0]
    assert [r.place for r in outcome.results] == [3, 1, 1, 4]
    assert outcome.winners == (1, 2)
    assert "ready pile" in outcome.tiebreak and "shared" in outcome.tiebreak


@pytest.mark.parametrize(
    ("n", "long_game", "rounds"),
    [(2, False, 8), (3, False, 9), (4, False, 8), (2, True, 12), (3, True, 12), (4, True, 12)],
)
def test_ee14_number_of_rounds(n: int, long_game: bool, rounds: int) -> None:
    """EE-14: 8 rounds with 2 or 4 players, 9 with 3, 12 in the longer variant."""
    out = play(GAME, n, {"long_game": long_game}, seed=n)
    assert out.finished and out.state.rounds == rounds
    assert sum(1 for e in out.events if e.type == "plan_revealed") == rounds
    starts = [e.data["start_player"] for e in out.events if e.type == "round_started"]
    first = out.state.start_player - (rounds - 1)
    assert starts == [(first + k) % n for k in range(1, rounds)]


def test_last_round_ends_the_game_and_reveals_score_piles() -> None:
    """EE-12: score piles are revealed at the end."""
    state = position(2, ready=[(0, 3), (0, 0)], tops=[("arm", "attack")] * 2, round=8)
    result = GAME.apply(state, gears(state, {0: (2, "none", "none"), 1: (2, "none", "none")}))
    assert isinstance(result, Transition)
    # L +2: Arm -> Produce; R +1: Attack -> Export
    assert GAME.next(result.state) == Terminal()
    over = [e for e in result.events if e.type == "game_over"]
    assert over and over[0].visible_to is None
    piles = over[0].data["score_piles"]
    assert piles == {
        "0": {"soldiers": 0, "goods": 5, "inventions": 0},
        "1": {"soldiers": 0, "goods": 2, "inventions": 0},
    }
    view: Any = GAME.view(result.state, 1)
    assert view["players"][0]["score"] == piles["0"]
    assert GAME.legal_actions(result.state, 0) == []
    assert [r.place for r in GAME.score(result.state).results] == [1, 2]


def test_ee10_group1_actions_are_automatic() -> None:
    """EE-10: Arm +2 Soldiers and Produce +2 Goods to the ready pile, Invent +1 Invention to
    the score pile."""
    state = position(2, ready=[(0, 0), (0, 0)])
    result = GAME.apply(state, round1(state, {0: ("arm", "invent"), 1: ("produce", "invent")}))
    assert isinstance(result, Transition)
    p0, p1 = result.state.players
    assert (p0.ready.soldiers, p0.ready.goods, p0.score.inventions) == (2, 0, 1)
    assert (p1.ready.soldiers, p1.ready.goods, p1.score.inventions) == (0, 2, 1)


def test_ee10_export_moves_all_goods() -> None:
    """EE-10: Export moves every Good of the ready pile (after this round's Produce)."""
    state = position(2, ready=[(1, 5), (0, 0)])
    result = GAME.apply(state, round1(state, {0: ("produce", "export"), 1: ("arm", "invent")}))
    assert isinstance(result, Transition)
    p0 = result.state.players[0]
    assert (p0.ready.soldiers, p0.ready.goods, p0.score.goods) == (1, 0, 7)


def test_ee10_attack_is_mandatory_with_a_soldier() -> None:
    """EE-10: an Attack with a Soldier is always made, even into an empty ready pile: the
    Soldier goes to the stock and the attacker takes a stock Soldier to its score pile."""
    state = position(2, ready=[(0, 0), (1, 0)])
    result = GAME.apply(state, round1(state, {0: ("salvage", "invent"), 1: ("produce", "attack")}))
    assert isinstance(result, Transition)
    p1 = result.state.players[1]
    assert (p1.ready.soldiers, p1.score.soldiers) == (0, 1)
    assert result.state.returned.soldiers == 1
    assert result.state.phase == "plan"  # seat 0's Salvage failed: no decision pending


@pytest.mark.parametrize("take", ["soldier", "good", "invention"])
def test_ee10_salvage_takes_the_chosen_type(take: str) -> None:
    state = position(2, ready=[(0, 0), (0, 0)])
    result = GAME.apply(state, round1(state, {0: ("salvage", "invent"), 1: ("arm", "invent")}))
    assert isinstance(result, Transition)
    assert result.state.phase == "salvage" and GAME.default_action(result.state, 0) == {
        "type": "salvage",
        "take": "invention",
    }
    done = GAME.apply(result.state, Act(seat=0, action={"type": "salvage", "take": take}))
    assert isinstance(done, Transition)
    score = done.state.players[0].score
    expected = {"soldier": (1, 0, 1), "good": (0, 1, 1), "invention": (0, 0, 2)}[take]
    assert (score.soldiers, score.goods, score.inventions) == expected


def test_ee11_the_stock_is_unlimited() -> None:
    """EE-11: no stock limit of 15 per type; nobody has to give resources back."""
    state = position(2, ready=[(15, 15), (0, 0)], score=[(10, 10, 14), (0, 0, 0)])
    result = GAME.apply(state, round1(state, {0: ("arm", "invent"), 1: ("produce", "invent")}))
    assert isinstance(result, Transition)
    p0 = result.state.players[0]
    assert (p0.ready.soldiers, p0.score.inventions) == (17, 15)
    assert result.state.supplied.soldiers == 27 and result.state.returned.soldiers == 0


def test_ee16_no_edition_abilities_every_empire_is_identical() -> None:
    """EE-16: published-edition empire abilities are out of scope: every seat gets the same
    engines and resources, and no option turns abilities on."""
    props = GAME.options_schema()["properties"]
    assert isinstance(props, dict)
    assert not any("abilit" in k or "empire" in k for k in props)
    state = GAME.setup({"random_start_player": False}, 4)
    assert all(p == state.players[0] for p in state.players)
    layouts = {str(GAME.view(state, s)["layout"]) for s in range(4)}
    assert len(layouts) == 1
