"""Random play of Empire's End for 2, 3 and 4 seats: the game always ends; no stash goes
negative; every disaster card is in exactly one place (deck, hands, discard, locations, the
table); states round-trip through JSON; views never show another seat's secrets (EEND-21);
every legal action is accepted."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.rules._kit.playout import default_actor, default_chooser, play
from shared.rules.api import Act, Move, Rejection, Simultaneous, Turn
from shared.rules.empires_end import GAME
from shared.rules.empires_end.data import CARD_IDS, CONFLICT_IDS, RESOURCES, TILE_IDS
from shared.rules.empires_end.scenario import cards_everywhere, with_player
from shared.rules.empires_end.state import State

pytestmark = pytest.mark.property

PRIVATE_EVENTS = {"tokens_gained", "converted", "repeated", "paid", "hand_dealt"}
SECRET_KEYS = {"card_drawn": "card", "card_sold": "card", "hand_discarded": "cards"}


def invariants(state: State) -> None:
    for p in state.players:
        assert all(p.res.get(r) >= 0 for r in RESOURCES), p.res
        assert sorted(loc.tile for loc in p.empire) == sorted(TILE_IDS)
        assert len(p.hand) <= 4
    if state.setup_step >= 3:  # the disaster deck exists
        assert sorted(cards_everywhere(state)) == sorted(CARD_IDS)
    if state.setup_step >= 4:
        conflicts = [*state.conflict_deck, *state.conflict_discard]
        if state.conflict_card:
            conflicts.append(state.conflict_card)
        assert sorted(conflicts) == sorted(CONFLICT_IDS)


def secrecy(state: State) -> None:
    """EEND-21: altering one seat's stash and hand (and the deck order) changes no other view."""
    views = {v: GAME.view(state, v) for v in (None, *range(state.n))}
    for view in views.values():
        assert json.loads(json.dumps(view)) == view
    for seat in range(state.n):
        p = state.players[seat]
        res = replace(p.res, wheat=p.res.wheat + 7, coin=p.res.coin + 3)
        swap = min(len(p.hand), len(state.deck))
        hand = (*state.deck[:swap], *p.hand[swap:])
        deck = (*reversed(state.deck[swap:]), *p.hand[:swap])
        other = with_player(state, seat, replace(p, res=res, hand=hand))
        other = replace(other, deck=deck)
        for viewer, view in views.items():
            if viewer != seat:
                assert GAME.view(other, viewer) == view, (seat, viewer)


def round_trip(state: State) -> None:
    data = json.loads(json.dumps(GAME.encode(state)))
    assert GAME.decode(data) == state


def all_legal_accepted(state: State) -> None:
    node = GAME.next(state)
    if isinstance(node, Turn):
        for seat in node.seats:
            legal = GAME.legal_actions(state, seat)
            assert legal, f"awaited seat {seat} has no legal action"
            assert GAME.default_action(state, seat) in legal
            for action in legal[:60]:
                result = GAME.apply(state, Act(seat=seat, action=action))
                assert not isinstance(result, Rejection), (action, result)
    elif isinstance(node, Simultaneous):
        for slot in node.slots:
            assert GAME.check_choice(slot, slot.default)


def run(n: int, seed: int, **kw: Any) -> State:
    sample = random.Random(seed ^ 0x5EED)
    checked = [0]

    def on_step(state: State, move: Move) -> None:
        invariants(state)
        if sample.random() < 0.04:
            checked[0] += 1
            round_trip(state)
            secrecy(state)
            all_legal_accepted(state)

    out = play(GAME, n, seed=seed, on_step=on_step, max_steps=5_000, **kw)
    assert out.finished, f"{n} seats, seed {seed}: not finished after {out.steps} steps"
    invariants(out.state)
    round_trip(out.state)
    for ev in out.events:
        json.dumps(ev.data)  # events cross the wire as JSON
        if ev.type in PRIVATE_EVENTS:
            assert ev.visible_to is not None and len(ev.visible_to) == 1
        if ev.type in SECRET_KEYS and ev.visible_to is None:
            assert SECRET_KEYS[ev.type] not in ev.data
    outcome = GAME.score(out.state)
    assert sorted(r.place for r in outcome.results) == list(range(1, n + 1))
    totals: list[Any] = [r.figures["total"] for r in outcome.results]
    best = max(totals)
    assert totals[outcome.winners[0]] == best
    final: State = out.state
    return final


@pytest.mark.parametrize("n", [2, 3, 4])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_random_play_invariants(n: int, seed: int) -> None:
    run(n, seed)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_timeouts_only_game_ends(n: int) -> None:
    """A game where every turn times out (default actions, empty fists) still ends."""
    seats = range(n)
    run(
        n,
        n,
        actors={s: default_actor for s in seats},
        choosers={s: default_chooser for s in seats},
    )


_STATES: list[State] = []


def _sample_states() -> list[State]:
    if not _STATES:
        out = play(GAME, 3, seed=11, on_step=lambda s, m: _STATES.append(s))
        _STATES[:] = _STATES[:: max(1, len(_STATES) // 40)]
        _STATES.append(out.state)
    return _STATES


_TYPES = ["bid", "take", "free_bid", "replace", "end_turn", "destroy", "place", "shore_up"]
_TYPES += ["convert", "repeat", "end_economy", "choose_order", "build", "sell", "repair"]
_TYPES += ["swap", "move", "refresh", "discard_hand", "end_industry", "nonsense"]
_VALUES = st.one_of(
    st.integers(-3, 12),
    st.sampled_from(["wheat", "coin", "city", "fire-1", "economy"]),
    st.none(),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(
    index=st.integers(min_value=0),
    seat=st.integers(-1, 4),
    kind=st.sampled_from(_TYPES),
    fields=st.dictionaries(
        st.sampled_from(
            [
                "disaster",
                "resource",
                "card",
                "tile",
                "coins",
                "source",
                "option",
                "target",
                "first",
                "a",
                "b",
                "extra",
            ]
        ),
        _VALUES,
        max_size=4,
    ),
)
def test_garbage_actions_are_rejected_never_raised(
    index: int, seat: int, kind: str, fields: dict[str, Any]
) -> None:
    states = _sample_states()
    state = states[index % len(states)]
    action = {"type": kind, **fields}
    result = GAME.apply(state, Act(seat=seat, action=action))
    if not isinstance(result, Rejection):
        assert action in GAME.legal_actions(state, seat)
