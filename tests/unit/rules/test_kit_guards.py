"""The kit's guards (shared/rules/_kit/base.py): every game refuses a move that does not answer
its pending node with the same code, before any of its own rules run."""

from __future__ import annotations

from typing import Any

import pytest

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules import registry
from shared.rules._kit.base import GameBase, chance_fits
from shared.rules._kit.playout import Actor, Chooser, play
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Json,
    Move,
    Rejection,
    Simultaneous,
    Turn,
)

pytestmark = pytest.mark.unit
FAST: dict[str, dict[str, Json]] = {"empire-cards": {"max_hands": 1, "max_turns_per_hand": 30}}


def first_of_each_kind(name: str) -> dict[str, Any]:
    """A state at each node kind the game reaches in one seeded game (and its end)."""
    game = registry.get(name)
    n = game.min_seats
    bot = ai.get_bot(name)
    actors: dict[int, Actor] = {i: bot_actor(bot) for i in range(1, n)}
    choosers: dict[int, Chooser] = {i: bot_chooser(bot) for i in range(1, n)}
    seen: dict[str, Any] = {}

    def keep(state: Any, move: Move) -> None:
        seen.setdefault(game.next(state).kind, state)

    out = play(game, n, FAST.get(name, {}), seed=3, actors=actors, choosers=choosers,
               on_step=keep)
    assert out.finished
    seen["terminal"] = out.state
    return seen


def code(name: str, state: Any, move: Move) -> str:
    result = registry.get(name).apply(state, move)
    assert isinstance(result, Rejection), move
    return result.code


@pytest.mark.parametrize("name", registry.names())
def test_every_game_uses_the_template(name: str) -> None:
    game: object = registry.get(name)
    assert isinstance(game, GameBase)
    assert type(game).apply is GameBase.apply  # no game re-implements the guards


@pytest.mark.parametrize("name", registry.names())
def test_the_guards_answer_alike_in_every_game(name: str) -> None:
    game = registry.get(name)
    at = first_of_each_kind(name)
    over = at["terminal"]
    for move in (Act(seat=0, action={"type": "x"}), JointAction(round_id="r", choices={}),
                 ChanceOutcome(label="x", values=(0,))):
        assert code(name, over, move) == "action/wrong_phase"

    state = at["turn"]
    node = game.next(state)
    assert isinstance(node, Turn)
    idle = next(s for s in range(-1, 9) if s not in node.seats and s not in node.open_to)
    assert code(name, state, Act(seat=idle, action={"type": "x"})) == "action/not_your_turn"
    assert code(name, state, Act(seat=node.seats[0], action="x")) == "action/malformed"
    assert code(name, state, JointAction(round_id="r", choices={})) == "action/wrong_phase"
    assert code(name, state, ChanceOutcome(label="x", values=(0,))) == "action/wrong_phase"

    state = at["chance"]
    chance = game.next(state)
    assert isinstance(chance, Chance)
    assert code(name, state, ChanceOutcome(label=chance.label + "x", values=(0,))) == (
        "action/unknown_round")
    too_many = tuple(range(chance.n + 1))
    assert code(name, state, ChanceOutcome(label=chance.label, values=too_many)) == (
        "action/malformed")
    assert code(name, state, Act(seat=0, action={"type": "x"})) == "action/wrong_phase"

    if "simultaneous" not in at:
        return
    state = at["simultaneous"]
    sealed = game.next(state)
    assert isinstance(sealed, Simultaneous)
    choices = {slot.key: slot.default for slot in sealed.slots}
    first = sealed.slots[0].key
    for bad, want in (
        (JointAction(round_id=sealed.round_id + "x", choices=choices), "action/unknown_round"),
        (JointAction(round_id=sealed.round_id, choices={**choices, "zz": 0}), "action/malformed"),
        (JointAction(round_id=sealed.round_id, choices=choices, defaulted=("zz",)),
         "action/malformed"),
        (JointAction(round_id=sealed.round_id, choices={**choices, first: 1.5}),
         "action/illegal"),
        (Act(seat=0, action={"type": "x"}), "action/wrong_phase"),
    ):
        assert code(name, state, bad) == want, bad


def test_chance_values_fit_their_draw() -> None:
    shuffle = Chance(label="s", draw="shuffle", n=3)
    assert chance_fits(shuffle, (2, 0, 1)) and not chance_fits(shuffle, (0, 0, 1))
    below = Chance(label="b", draw="below", n=3, count=2)
    assert chance_fits(below, (0, 2)) and not chance_fits(below, (3, 0))
    assert not chance_fits(below, (1,))
    dice = Chance(label="d", draw="dice", n=6, count=2)
    assert chance_fits(dice, (1, 6)) and not chance_fits(dice, (0, 6))
    assert not chance_fits(dice, (7, 1))
