"""Hypothesis random play of The Empire Engine for 2–4 seats: the game always ends, no pile
goes negative, every resource is accounted for, every offered move is accepted, states
round-trip through JSON and bad moves are rejected without raising."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.rules._kit.playout import play
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Move,
    Rejection,
    Simultaneous,
    Terminal,
    Transition,
    Turn,
)
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.data import RESOURCES
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.property


options_st = st.fixed_dictionaries(
    {
        "long_game": st.booleans(),
        "hidden_score_piles": st.booleans(),
        "majority_bonus_at_zero": st.booleans(),
        "random_start_player": st.booleans(),
    }
)


def check_invariants(state: State) -> None:
    assert 1 <= state.round <= state.rounds
    assert 0 <= state.start_player < state.n_seats
    for p in state.players:
        for kind in RESOURCES:
            assert p.ready.get(kind) >= 0 and p.score.get(kind) >= 0
        assert p.ready.inventions == 0  # Inventions go straight to the score pile
    for kind in RESOURCES:  # every resource accounted for (stock is unlimited, EE-11)
        held = sum(p.ready.get(kind) + p.score.get(kind) for p in state.players)
        assert held == state.supplied.get(kind) - state.returned.get(kind)
    node = GAME.next(state)
    if isinstance(node, Turn):
        assert node.seats and set(node.seats) == set(state.awaiting)
        for seat in node.seats:
            legal = GAME.legal_actions(state, seat)
            assert legal and GAME.default_action(state, seat) in legal
            for action in legal:  # every offered action is accepted
                assert isinstance(GAME.apply(state, Act(seat=seat, action=action)), Transition)
    elif isinstance(node, Simultaneous):
        assert node.ordered and len(node.slots) == 2 * state.n_seats
        assert len({s.key for s in node.slots}) == len(node.slots)
        for slot in node.slots:
            assert GAME.check_choice(slot, slot.default)
            assert all(GAME.check_choice(slot, c) for c in slot.allowed or ())
    assert GAME.decode(json.loads(json.dumps(GAME.encode(state)))) == state


@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=options_st)
def test_random_play_always_ends_with_sound_piles(
    n: int, seed: int, options: dict[str, Any]
) -> None:
    states: list[State] = []
    out = play(GAME, n, options, seed=seed, on_step=lambda s, m: states.append(s))
    assert out.finished
    final: State = out.state
    states.append(final)
    for state in states:
        check_invariants(state)
    assert isinstance(GAME.next(final), Terminal) and final.round == final.rounds
    assert sum(1 for e in out.events if e.type == "plan_revealed") == final.rounds
    outcome = GAME.score(final)
    assert [r.seat for r in outcome.results] == list(range(n))
    assert min(r.place for r in outcome.results) == 1
    keys = [
        (cast(int, r.figures["points"]), cast(int, r.figures["ready"])) for r in outcome.results
    ]
    for r, k in zip(outcome.results, keys, strict=True):
        assert r.place == 1 + sum(1 for other in keys if other > k)


junk_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.text(max_size=8),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 4), data=st.data())
def test_hypothesis_driven_choices_and_junk_moves(n: int, data: st.DataObject) -> None:
    """Choices drawn by hypothesis (including a seat naming the same engine or gear twice,
    resolved by the cross-slot rule); junk moves are rejected, never raised."""
    state: State = GAME.setup({}, n)
    for _ in range(400):
        node = GAME.next(state)
        if isinstance(node, Terminal):
            break
        junk: Move = data.draw(
            st.one_of(
                st.builds(Act, seat=st.integers(-1, 5), action=junk_json),
                st.builds(JointAction, round_id=st.text(max_size=8), choices=st.just({})),
                st.builds(ChanceOutcome, label=st.text(max_size=8), values=st.just((0,))),
            )
        )
        offered = isinstance(junk, Act) and junk.action in GAME.legal_actions(state, junk.seat)
        if not offered:
            assert isinstance(GAME.apply(state, junk), Rejection)
        move: Move
        if isinstance(node, Chance):
            value = data.draw(st.integers(0, node.n - 1))
            move = ChanceOutcome(label=node.label, values=(value,))
        elif isinstance(node, Simultaneous):
            choices = {s.key: data.draw(st.sampled_from(list(s.allowed or ()))) for s in node.slots}
            move = JointAction(round_id=node.round_id, choices=choices)
        else:
            assert isinstance(node, Turn)
            seat = data.draw(st.sampled_from(list(node.seats)))
            move = Act(
                seat=seat, action=data.draw(st.sampled_from(list(GAME.legal_actions(state, seat))))
            )
        result = GAME.apply(state, move)
        assert isinstance(result, Transition), result
        state = result.state
        check_invariants(state)
    assert state.phase == "over"
