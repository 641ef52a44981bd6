"""The kit's fast paths (engine speed) give exactly what the validated and
canonical-JSON paths give: ``check_choice``'s type-strict membership, ``event``, the contract's
dataclass values and their JSON at the edge, ``Frozen.model_copy``, the one-entry memo of
``next`` / ``legal_actions``, and the act guard by membership in the memoised legal list."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from shared.rules import registry
from shared.rules._kit.model import NotJson, event
from shared.rules._kit.playout import play
from shared.rules.api import (
    Act,
    Chance,
    Event,
    Json,
    Rejection,
    SealedSlot,
    Turn,
    default_check_choice,
    from_json,
    to_json,
)
from shared.rules.empire_nyc import GAME as NYC

pytestmark = pytest.mark.unit

ALLOWED: tuple[Json, ...] = (0, 1, True, "a", None, [1, 2], {"k": 1, "j": [True, "x"]},
                             2**53 - 1, 2**53 + 1, {"n": {"m": [0]}})
CHOICES: list[Any] = [0, 1, True, False, 1.0, 0.0, "a", "b", None, [1, 2], [1, 2.0], (1, 2),
                      [True, 2], {"k": 1, "j": [True, "x"]}, {"k": 1, "j": [1, "x"]},
                      {"k": 1.0, "j": [True, "x"]}, 2**53 - 1, 2**53 + 1, {"n": {"m": [0]}},
                      {"n": {"m": [False]}}, {"n": {"m": (0,)}}, [], {}]


@pytest.mark.parametrize("choice", CHOICES, ids=repr)
def test_check_choice_is_the_canonical_json_membership(choice: Any) -> None:
    game = registry.get("empire-engine")  # uses the kit's check_choice
    for allowed in (ALLOWED, ALLOWED[::-1], (), None):
        slot = SealedSlot(seat=0, key="s0", allowed=allowed, default=0)
        assert game.check_choice(slot, choice) is default_check_choice(slot, choice)


def test_event_is_checked_json_and_round_trips_through_the_edge() -> None:
    data: dict[str, Json] = {"a": 1, "b": [1, {"c": "x"}], "f": 1.5, "n": None, "t": True}
    for vis in (None, (1, 2), ()):
        made = event(type="x", data=data, visible_to=vis)
        assert made == Event(type="x", data=data, visible_to=vis)
        assert to_json(made) == {"type": "x", "data": data,
                                 "visible_to": None if vis is None else list(vis)}
        assert from_json(Event, to_json(made)) == made
    assert event(type="x") == Event(type="x")
    for bad in ({"a": (1,)}, {1: 2}, {"a": {1, 2}}):
        with pytest.raises(NotJson):
            event(type="x", data=bad)  # type: ignore[arg-type]
    with pytest.raises(NotJson):
        event(type="x", visible_to=[1])  # type: ignore[arg-type]


def test_values_refuse_bad_json_at_the_edge() -> None:
    """``from_json`` is the wire's check: types, bounds and unknown keys (a hostile client's
    slot or move never reaches the rules unchecked)."""
    assert from_json(Chance, {"label": "a", "draw": "dice", "n": 6, "count": 2}) == Chance(
        label="a", draw="dice", n=6, count=2)
    for bad in ({"label": "a", "draw": "dice", "n": 0},  # n >= 1
                {"label": "a", "draw": "coin", "n": 2},  # not a draw
                {"label": "a", "draw": "dice", "n": 6, "extra": 1}):  # unknown key
        with pytest.raises(ValidationError):
            from_json(Chance, bad)
    with pytest.raises(ValidationError):
        from_json(SealedSlot, {"seat": "zero", "key": "s0", "default": 0})
    assert to_json(Turn(seats=(2,), open_to=(1,))) == {"kind": "turn", "seats": [2],
                                                       "open_to": [1]}
    assert hash(Turn(seats=(2,), open_to=(1,))) == hash(Turn(seats=(2,), open_to=(1,)))


def test_act_guard_by_membership_is_type_strict() -> None:
    """An act listed by ``legal_actions`` applies without a parse; one equal to a listed act
    only by Python's equality (``true`` for ``1``) is parsed and refused like any other."""
    game = registry.get("empires-end")  # acts_enumerated, strict action models
    seen = 0
    for state, move in _acts(game, 3, seed=5):
        legal = game.legal_actions(state, move.seat)
        with_int = [a for a in legal if isinstance(a, dict) and any(
            type(v) is int for v in a.values())]
        for a in with_int[:1]:
            k = next(k for k, v in a.items() if type(v) is int)
            forgeries: list[Json] = [{**a, k: float(a[k])}]
            if a[k] in (0, 1):
                forgeries.append({**a, k: bool(a[k])})
            for forged in forgeries:
                game.legal_actions(state, move.seat)  # the memo is this state's
                result = game.apply(state, Act(seat=move.seat, action=forged))
                assert isinstance(result, Rejection), forged
            good = game.apply(state, Act(seat=move.seat, action=a))
            assert not isinstance(good, Rejection)
            seen += 1
    assert seen > 0


def _acts(game: Any, seats: int, seed: int) -> list[tuple[Any, Act]]:
    found: list[tuple[Any, Act]] = []
    play(game, seats, {}, seed=seed, max_steps=400,
         on_step=lambda s, m: found.append((s, m)) if isinstance(m, Act) else None)
    return found


def test_model_copy_matches_pydantic() -> None:
    state = NYC.to_stored(NYC.setup({}, 3))  # a frozen model: the stored form of a state
    mine = state.model_copy(update={"turn": 4, "phase": "deal"})
    theirs = BaseModel.model_copy(state, update={"turn": 4, "phase": "deal"})
    assert mine == theirs and mine.model_fields_set == theirs.model_fields_set
    assert mine is not state and state.turn == 0 and state.phase == "first_player"
    assert state.model_copy() == state
    with pytest.raises(ValidationError):  # still frozen
        mine.turn = 5


@pytest.mark.parametrize("name", registry.names())
def test_engines_emit_only_valid_events_and_memo_answers_like_a_fresh_call(name: str) -> None:
    """Every event a seeded random game emits is a valid ``Event`` (nested values too: the
    fast constructor checks only the top level), and the memoized ``next`` and
    ``legal_actions`` answer what the game's own functions answer for that state."""
    game = registry.get(name)
    cls = type(game)
    seen = 0

    def check(state: Any, move: Any) -> None:
        nonlocal seen
        seen += 1
        assert game.next(state) == cls.next.__wrapped__(game, state)  # type: ignore[attr-defined]
        for seat in range(2):
            fresh = list(cls.legal_actions.__wrapped__(game, state, seat))  # type: ignore[attr-defined]
            assert game.legal_actions(state, seat) == fresh
            assert game.legal_actions(state, seat) == fresh  # the memo's answer

    seats = game.min_seats
    out = play(game, seats, {"max_hands": 1, "max_turns_per_hand": 15}
               if name == "empire-cards" else {}, seed=3, max_steps=400, on_step=check)
    assert seen == out.steps > 0
    for e in out.events:
        assert from_json(Event, to_json(e)) == e


@pytest.mark.parametrize("name", registry.names())
def test_a_playout_log_made_late_is_the_log_each_move_gave(name: str) -> None:
    """``Playout.events`` is made when first read, from each move's records: it holds the
    events each ``apply`` gave, in order, as read right after that move; ``log=False`` plays
    the same game and keeps neither moves nor events."""
    game = registry.get(name)
    options: dict[str, Any] = ({"max_hands": 1, "max_turns_per_hand": 15}
                               if name == "empire-cards" else {})
    seen: list[Event] = []
    out = play(game, game.min_seats, options, seed=5, max_steps=300,
               on_events=seen.extend)
    assert out.events == seen and seen
    late = play(game, game.min_seats, options, seed=5, max_steps=300)  # nothing read per move
    assert late.events == seen and late.moves == out.moves
    bare = play(game, game.min_seats, options, seed=5, max_steps=300, log=False)
    assert bare.steps == out.steps and bare.state == out.state
    assert bare.moves == [] and bare.events == []
