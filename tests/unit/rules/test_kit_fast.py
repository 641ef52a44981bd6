"""The kit's fast paths (engine speed) give exactly what the validated and
canonical-JSON paths give: ``check_choice``'s type-strict membership, ``event``, ``construct``,
``Frozen.model_copy``, and the one-entry memo of ``next`` / ``legal_actions``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from shared.rules import registry
from shared.rules._kit.model import construct, event
from shared.rules._kit.playout import play
from shared.rules.api import Chance, Event, Json, SealedSlot, Turn, default_check_choice
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


def test_event_equals_the_validated_event_and_refuses_what_validation_refuses() -> None:
    data: dict[str, Json] = {"a": 1, "b": [1, {"c": "x"}], "f": 1.5, "n": None, "t": True}
    for vis in (None, (1, 2), ()):
        made, valid = event(type="x", data=data, visible_to=vis), Event(
            type="x", data=data, visible_to=vis)
        assert made == valid and made.model_dump(mode="json") == valid.model_dump(mode="json")
    assert event(type="x") == Event(type="x")
    assert event(type="x", visible_to=[1]).visible_to == (1,)  # type: ignore[arg-type]
    for bad in ({"a": (1,)}, {1: 2}, {"a": {1, 2}}):
        with pytest.raises(ValidationError):
            event(type="x", data=bad)  # type: ignore[arg-type]


def test_construct_equals_validation_with_defaults() -> None:
    assert construct(Turn, seats=(1,)) == Turn(seats=(1,))
    assert construct(Chance, label="a", draw="dice", n=6, count=2) == Chance(
        label="a", draw="dice", n=6, count=2)
    assert hash(construct(Turn, seats=(2,), open_to=(1,))) == hash(Turn(seats=(2,), open_to=(1,)))


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
        assert Event.model_validate(e.model_dump()) == e
