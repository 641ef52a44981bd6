"""Views and event visibility: hidden score piles (EE-12), own sealed slots only."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.api import Act, Transition
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.scenario import position, round1
from shared.rules.empire_engine.state import Counts, State

pytestmark = pytest.mark.unit


def test_view_has_the_contract_keys_and_public_table() -> None:
    state = position(3, ready=[(1, 2), (0, 0), (3, 0)], tops=[("arm", "defend")] * 3, round=2)
    view: Any = GAME.view(state, 1)
    assert (view["game"], view["phase"], view["seat"]) == ("empire-engine", "plan", 1)
    players = view["players"]
    assert [p["ready"] for p in players] == [
        {"soldiers": 1, "goods": 2},
        {"soldiers": 0, "goods": 0},
        {"soldiers": 3, "goods": 0},
    ]
    assert players[0]["engines"] == {
        "L": {"orientation": 0, "top": "arm"},
        "R": {"orientation": 3, "top": "defend"},
    }
    assert (players[0]["left"], players[0]["right"]) == (1, 2)


def test_ee12_score_piles_are_hidden_from_opponents_and_spectators() -> None:
    """EE-12: hide opponents' score piles, show ready piles; reveal at the end."""
    state = position(2, score=[(1, 2, 3), (4, 5, 6)], tops=[("arm", "invent")] * 2, round=3)
    mine: Any = GAME.view(state, 0)["players"]
    assert mine[0]["score"] == {"soldiers": 1, "goods": 2, "inventions": 3}
    assert mine[1]["score"] is None
    spectator: Any = GAME.view(state, None)["players"]
    assert all(p["score"] is None for p in spectator)
    over = state.clone()
    over.phase = "over"
    final: Any = GAME.view(over, None)["players"]
    assert final[1]["score"] == {
        "soldiers": 4,
        "goods": 5,
        "inventions": 6,
    }
    open_piles = state.clone()
    open_piles.options = state.options.model_copy(update={"hidden_score_piles": False})
    shown: Any = GAME.view(open_piles, None)["players"]
    assert shown[1]["score"] is not None


def test_ee12_salvage_choice_is_a_private_event() -> None:
    """EE-12: the Salvage type only enters a hidden score pile: others learn that a Salvage
    happened, not what was taken."""
    state = position(2, ready=[(0, 0), (0, 0)])
    result = GAME.apply(state, round1(state, {0: ("salvage", "invent"), 1: ("arm", "invent")}))
    assert isinstance(result, Transition)
    done = GAME.apply(result.state, Act(seat=0, action={"type": "salvage", "take": "good"}))
    assert isinstance(done, Transition)
    salvage = [e for e in done.events if e.type == "salvage"]
    public = [e for e in salvage if e.visible_to is None]
    private = [e for e in salvage if e.visible_to is not None]
    assert [e.data for e in public] == [{"seat": 0}]
    assert [(e.data, e.visible_to) for e in private] == [({"seat": 0, "took": "good"}, (0,))]


def test_sealed_slots_in_the_view_are_the_seats_own() -> None:
    state = position(3, start_player=2)
    view: Any = GAME.view(state, 1)
    assert [s["key"] for s in view["slots"]] == ["s1:1", "s1:2"]
    assert GAME.view(state, None)["slots"] == []
    assert view["pending"] == {
        "round_id": "plan:1",
        "order": [[2, 1], [0, 1], [1, 1], [1, 2], [0, 2], [2, 2]],
    }


def _states() -> list[State]:
    out: list[State] = []
    for n in (2, 3, 4):
        run = play(GAME, n, seed=40 + n, on_step=lambda s, m: out.append(s))
        out.append(run.state)
    return out


def test_no_view_shows_another_seats_score_pile() -> None:
    """Changing one seat's hidden score pile leaves every other seat's view (and the
    spectator's) unchanged, in every state of several random games (EE-12)."""
    checked = 0
    for state in _states():
        if state.phase == "over":
            continue
        for owner in range(state.n_seats):
            altered = state.clone()
            p = altered.players[owner]
            p.score = Counts(soldiers=p.score.soldiers + 7, inventions=3)
            for seat in [None, *range(state.n_seats)]:
                same = GAME.view(state, seat) == GAME.view(altered, seat)
                assert same is (seat != owner), (state.phase, owner, seat)
                checked += 1
    assert checked > 100
