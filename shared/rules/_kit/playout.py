"""Drive any game to its end without services: for tests, property checks and benchmarks.

Chance requests are answered with the dealer's own draw functions from a fixed key, sealed
rounds by each seat's chooser, turns by each seat's actor. Every move goes through
``game.apply``; a Rejection here is a bug in the game or the bot and raises. The seats here
play at random or by defaults; ``shared.ai.playout`` adapts the bots to actors and choosers.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shared.fairness.draws import draw
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    EventLog,
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

# The moves ``play`` makes, built through their slots where it makes them: what
# ``Act(seat=..., action=...)`` and ``ChanceOutcome(label=..., values=...)`` make, without the
# class call (a third of the cost of building one, on every move).
_new = object.__new__
_set_act_kind, _set_act_seat, _set_act_action = (
    getattr(Act, f).__set__ for f in ("kind", "seat", "action"))
_set_chance_kind, _set_chance_label, _set_chance_values = (
    getattr(ChanceOutcome, f).__set__ for f in ("kind", "label", "values"))


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
    log: EventLog = field(default_factory=EventLog)
    steps: int = 0
    finished: bool = False

    @property
    def events(self) -> list[Event]:
        """Every event of the game so far, made on first read (``EventLog``)."""
        return self.log.events()


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
    log: bool = True,
) -> Playout:
    """Play one game; ``seed`` drives the seats' random choices and (by default) the draws.

    A seat without an actor picks ``rng.choice(game.legal_actions(state, seat))``, one
    without a chooser ``rng.choice(slot.allowed)`` (``random_actor``/``random_chooser``, made
    inline: the same ``random.Random`` calls in the same order). ``log=False`` keeps
    neither the moves nor the events (both stay empty): a benchmark or a rollout that never
    reads them does not hold a game's worth of objects for the collector to walk.

    While the harness keeps the log and plays every seat itself (no actors, choosers or
    callbacks), the cyclic garbage collector is paused, process-wide, and resumed on return: a
    playout makes no reference cycles (tests/property/test_playout_cycles.py), so a collection
    finds nothing to free and only walks the moves and records kept so far, again and again
    (13-20% of a kept Empire's End, New York or Card Game playout). Reference counting frees
    all else as usual. Without the log there is little for a collection to walk, and a bot may
    build cycles (a search tree's parent links): the collector runs as usual then."""
    paused = log and not (actors or choosers or on_step or on_events) and gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _played(game, n_seats, options, seed, actors, choosers, max_steps, key, on_step,
                       on_events, log)
    finally:
        if paused:
            gc.enable()


def _played(game: Game, n_seats: int, options: dict[str, Json] | None, seed: int,
            actors: dict[int, Actor] | None, choosers: dict[int, Chooser] | None,
            max_steps: int, key: bytes | None,
            on_step: Callable[[Any, Move], None] | None,
            on_events: Callable[[list[Event]], None] | None, log: bool) -> Playout:
    rng = random.Random(seed)
    # rng.choice(seq) is seq[rng._randbelow(len(seq))], and _randbelow(n) takes
    # getrandbits(n.bit_length()) until one is below n (CPython 3.11-3.13): written out below,
    # the same draws without two frames per pick (tests/property pins them to rng.choice)
    getrandbits = rng.getrandbits
    draw_key = key if key is not None else seed.to_bytes(8, "big") * 4
    state = game.setup(options or {}, n_seats)
    out = Playout(state=state)
    keep_move = out.moves.append if log else None
    keep = out.log.add if log else None
    actors = actors or {}
    choosers = choosers or {}
    next_node = game.next
    legal_actions = game.legal_actions
    apply = game.apply
    steps = 0
    for _ in range(max_steps):
        node = next_node(state)
        move: Move
        kind = type(node)
        if kind is Turn:
            seats = node.seats or node.open_to  # type: ignore[union-attr]
            n = len(seats)
            bits = n.bit_length()
            at = getrandbits(bits)
            while at >= n:
                at = getrandbits(bits)
            seat = seats[at]
            actor = actors.get(seat) if actors else None
            if actor is None:  # rng.choice(legal_actions(state, seat)), written out as above
                listed = legal_actions(state, seat)
                n = len(listed)
                bits = n.bit_length()
                at = getrandbits(bits)
                while at >= n:
                    at = getrandbits(bits)
                action = listed[at]
            else:
                action = actor(game, state, seat, rng)
            move = _new(Act)  # Act(seat=seat, action=action), through its slots
            _set_act_kind(move, "act")
            _set_act_seat(move, seat)
            _set_act_action(move, action)
        elif kind is Chance:
            label = node.label  # type: ignore[union-attr]
            values = draw(draw_key, label, node.draw, node.n,  # type: ignore[union-attr]
                          node.count)  # type: ignore[union-attr]
            move = _new(ChanceOutcome)  # ChanceOutcome(label=..., values=...), likewise
            _set_chance_kind(move, "chance_outcome")
            _set_chance_label(move, label)
            _set_chance_values(move, tuple(values))
        elif kind is Simultaneous:
            move = _joint(game, state, node, rng, choosers)  # type: ignore[arg-type]
        elif kind is Terminal:
            out.finished = True
            break
        else:  # pragma: no cover - the Node union is closed
            raise AssertionError(f"unknown node {node!r}")
        if on_step is not None:
            on_step(state, move)
        result = apply(state, move)
        if type(result) is Rejection:
            raise AssertionError(f"{game.name}: rejected {move!r}: {result.code} "
                                 f"{result.message}")
        state = result.state  # type: ignore[union-attr]
        if keep is not None:
            keep_move(move)  # type: ignore[misc]
            keep(result)  # type: ignore[arg-type]
        if on_events is not None:  # what the clients would now receive (bots' memory)
            on_events(list(result.events))  # type: ignore[union-attr]
        steps += 1
    out.steps = steps
    out.state = state
    return out


def _joint(game: Game, state: Any, node: Simultaneous, rng: random.Random,
           choosers: dict[int, Chooser]) -> JointAction:
    choices: dict[str, Json] = {}
    publics: dict[str, Json] = {}  # ordered rounds: public parts committed so far
    getrandbits = rng.getrandbits
    for slot in node.slots:
        chooser = choosers.get(slot.seat) if choosers else None
        if chooser is None:
            allowed = slot.allowed
            if allowed:  # rng.choice(allowed), written out as in ``play``
                n = len(allowed)
                bits = n.bit_length()
                at = getrandbits(bits)
                while at >= n:
                    at = getrandbits(bits)
                choice = allowed[at]
            else:
                choice = slot.default
        else:
            choice = chooser(game, state, slot, rng, dict(publics) if node.ordered else {})
        choices[slot.key] = choice
        if node.ordered and slot.public_keys and isinstance(choice, dict):
            publics[slot.key] = {k: choice.get(k) for k in slot.public_keys}
    return JointAction(round_id=node.round_id, choices=choices)
