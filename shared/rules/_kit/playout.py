"""Drive any game to its end without services: for tests, property checks and benchmarks.

Chance requests are answered with the dealer's own draw functions from a fixed key, sealed
rounds by each seat's chooser, turns by each seat's actor. Every move goes through
``game.apply``; a Rejection here is a bug in the game or the bot and raises. The seats here
play at random or by defaults; ``shared.ai.playout`` adapts the bots to actors and choosers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.model import construct
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    Game,
    JointAction,
    Json,
    Move,
    Rejection,
    SealedSlot,
    Simultaneous,
    Terminal,
    Transition,
    Turn,
)

Actor = Callable[[Game, Any, int, random.Random], Json]
Chooser = Callable[[Game, Any, SealedSlot, random.Random, dict[str, Json]], Json]


def random_actor(game: Game, state: Any, seat: int, rng: random.Random) -> Json:
    legal = list(game.legal_actions(state, seat))
    return rng.choice(legal)


def random_chooser(game: Game, state: Any, slot: SealedSlot, rng: random.Random,
                   public_parts: dict[str, Json]) -> Json:
    if slot.allowed:
        return rng.choice(list(slot.allowed))
    return slot.default


def default_actor(game: Game, state: Any, seat: int, rng: random.Random) -> Json:
    """The seat that plays only defaults (a timed-out player)."""
    return game.default_action(state, seat)


def default_chooser(game: Game, state: Any, slot: SealedSlot, rng: random.Random,
                    public_parts: dict[str, Json]) -> Json:
    return slot.default


@dataclass
class Playout:
    state: Any
    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    steps: int = 0
    finished: bool = False


def apply_or_raise(game: Game, state: Any, move: Move) -> Transition:
    result = game.apply(state, move)
    if isinstance(result, Rejection):
        raise AssertionError(f"{game.name}: rejected {move!r}: {result.code} {result.message}")
    return result


def play(
    game: Game,
    n_seats: int,
    options: dict[str, Json] | None = None,
    *,
    seed: int = 0,
    actors: dict[int, Actor] | None = None,
    choosers: dict[int, Chooser] | None = None,
    max_steps: int = 100_000,
    key: bytes | None = None,
    on_step: Callable[[Any, Move], None] | None = None,
    on_events: Callable[[list[Event]], None] | None = None,
) -> Playout:
    """Play one game; ``seed`` drives the seats' random choices and (by default) the draws."""
    rng = random.Random(seed)
    draw_key = key if key is not None else seed.to_bytes(8, "big") * 4
    state = game.setup(options or {}, n_seats)
    out = Playout(state=state)
    for _ in range(max_steps):
        node = game.next(state)
        move: Move
        if isinstance(node, Terminal):
            out.finished = True
            break
        if isinstance(node, Chance):
            values = draw(draw_key, node.label, node.draw, node.n, node.count)
            move = construct(ChanceOutcome, label=node.label, values=tuple(values))
        elif isinstance(node, Simultaneous):
            choices: dict[str, Json] = {}
            publics: dict[str, Json] = {}  # ordered rounds: public parts committed so far
            for slot in node.slots:
                chooser = (choosers or {}).get(slot.seat, random_chooser)
                choice = chooser(game, state, slot, rng, dict(publics) if node.ordered else {})
                choices[slot.key] = choice
                if node.ordered and slot.public_keys and isinstance(choice, dict):
                    publics[slot.key] = {k: choice.get(k) for k in slot.public_keys}
            move = JointAction(round_id=node.round_id, choices=choices)
        elif isinstance(node, Turn):
            seat = rng.choice(list(node.seats)) if node.seats else rng.choice(list(node.open_to))
            actor = (actors or {}).get(seat, random_actor)
            move = Act(seat=seat, action=actor(game, state, seat, rng))
        else:  # pragma: no cover - the Node union is closed
            raise AssertionError(f"unknown node {node!r}")
        if on_step is not None:
            on_step(state, move)
        result = apply_or_raise(game, state, move)
        state = result.state
        out.moves.append(move)
        out.events.extend(result.events)
        if on_events is not None:  # what the clients would now receive (bots' memory)
            on_events(list(result.events))
        out.steps += 1
    out.state = state
    return out
