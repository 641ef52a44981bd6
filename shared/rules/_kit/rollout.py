"""Rollouts: random seats to the end of a game on one clone of its state, no events.

What ``registry.get_rollout(name)`` answers: ``Rollout(game)``, the kit's one rollout driver
over the game's one engine (the ``RolloutDriver`` shape):

* ``from_state(state)``: a playout's own copy of a contract state (a clone);
* ``to_state(state)``: the contract state back (a clone: equal to, and encoding like, the
  state the contract path reaches);
* ``playout(state, rng, key, max_steps, on_step)``: random seats in place;
* ``play_random(...)``: a full game with uniformly random seats, exactly as
  ``_kit.playout.play`` with its default seats: the same ``random.Random`` calls in the same
  order, the same dealer draws (``shared.fairness.draws.draw`` from the same key), so the same
  seed gives the same moves and the same final state.

The driver asks the game's own ``next`` and ``legal_actions`` (unmemoised: the state changes
in place) and plays each move with the game's in-place moves (``GameBase.play_chance``,
``play_joint``, ``play_act``: what ``apply`` runs on its clone) with events off; an act is
built from its listed JSON as the kit's act guard builds it. It is not a second rules
implementation.

The property tests (``tests/property/test_rollouts.py``) check that a rollout plays
``play``'s games move by move over many seeds: the move of every step, the state after it
(compared as encoded JSON) and the final outcome. A playout is pure: no I/O, no clock,
randomness only from the ``random.Random`` it is given and the draw key.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from shared.fairness import draws
from shared.rules._kit.model import QuietEvents
from shared.rules.api import Chance, JointAction, Json, Simultaneous, Terminal, Turn

# (kind, payload) of one applied move, for the equivalence tests:
#   ("chance", label, values) | ("joint", round_id, choices) | ("act", seat, action)
RolloutMove = tuple[str, Any, Any]
OnStep = Callable[[Any, RolloutMove], None]  # called after each move: (state, move)


@dataclass
class RolloutResult:
    state: Any  # the state at the end (``to_state`` gives the contract's copy)
    steps: int = 0
    finished: bool = False


class RolloutDriver(Protocol):
    """What ``registry.get_rollout`` answers."""

    def from_state(self, state: Any) -> Any: ...

    def to_state(self, state: Any) -> Any: ...

    def playout(self, state: Any, rng: random.Random, key: bytes, max_steps: int = 100_000,
                on_step: OnStep | None = None) -> RolloutResult: ...

    def play_random(
        self,
        n_seats: int,
        options: dict[str, Json] | None = None,
        *,
        seed: int = 0,
        max_steps: int = 100_000,
        key: bytes | None = None,
        on_step: OnStep | None = None,
    ) -> RolloutResult: ...


def draw_key(seed: int, key: bytes | None) -> bytes:
    """The draw key ``_kit.playout.play`` uses for ``seed`` unless one is given."""
    return key if key is not None else seed.to_bytes(8, "big") * 4


_QUIET = QuietEvents()


class Rollout:
    """The rollout driver of one game (a ``GameBase`` on a plain state with ``clone()``)."""

    def __init__(self, game: Any) -> None:
        cls = type(game)
        self.game = game
        # the game's own functions, not the template's memo of them (it remembers a state by
        # identity, and a playout changes its one state in place)
        self._next = getattr(cls.next, "__wrapped__", cls.next).__get__(game)
        self._legal = getattr(cls.legal_actions, "__wrapped__", cls.legal_actions).__get__(game)

    def from_state(self, state: Any) -> Any:
        return state.clone()

    def to_state(self, state: Any) -> Any:
        return state.clone()

    def playout(self, state: Any, rng: random.Random, key: bytes, max_steps: int = 100_000,
                on_step: OnStep | None = None) -> RolloutResult:
        """Play ``state`` on (in place) with random seats to the end or ``max_steps`` moves."""
        game = self.game
        next_node, legal = self._next, self._legal
        play_chance, play_joint, play_act = game.play_chance, game.play_joint, game.play_act
        built = game._legal_action
        # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the draws of
        # _kit.playout's random seats without choice's frame (tests/property pins it)
        below = rng._randbelow  # type: ignore[attr-defined]
        draw = draws.draw  # the dealer's own (its HMAC keyed once per key)
        out = RolloutResult(state=state)
        steps = 0
        move: RolloutMove
        for _ in range(max_steps):
            node = next_node(state)
            kind = type(node)
            if kind is Turn:
                seats = node.seats or node.open_to
                seat = seats[below(len(seats))]
                actions = legal(state, seat)
                action = actions[below(len(actions))]
                refused = play_act(state, node, seat, built(action), _QUIET)
                assert refused is None, refused  # a listed action is always accepted
                move = ("act", seat, action)
            elif kind is Chance:
                values = draw(key, node.label, node.draw, node.n, node.count)
                play_chance(state, node, tuple(values), _QUIET)
                move = ("chance", node.label, tuple(values))
            elif kind is Simultaneous:
                choices: dict[str, Json] = {}
                for slot in node.slots:
                    allowed = slot.allowed
                    choices[slot.key] = allowed[below(len(allowed))] if allowed else slot.default
                play_joint(state, node, JointAction(round_id=node.round_id, choices=choices),
                           _QUIET)
                move = ("joint", node.round_id, choices)
            elif kind is Terminal:
                out.finished = True
                break
            else:  # pragma: no cover - the Node union is closed
                raise AssertionError(f"unknown node {node!r}")
            steps += 1
            if on_step is not None:
                out.steps = steps
                on_step(state, move)
        out.steps = steps
        return out

    def play_random(
        self,
        n_seats: int,
        options: dict[str, Json] | None = None,
        *,
        seed: int = 0,
        max_steps: int = 100_000,
        key: bytes | None = None,
        on_step: OnStep | None = None,
    ) -> RolloutResult:
        """``_kit.playout.play(game, n_seats, options, seed=seed)`` with random seats: the
        seats' ``random.Random(seed)`` and the draw key ``draw_key(seed, key)``."""
        return self.playout(self.game.setup(options or {}, n_seats), random.Random(seed),
                            draw_key(seed, key), max_steps, on_step)

