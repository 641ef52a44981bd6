"""Search playouts of The Empire Engine: ``registry.get_fast("empire-engine")``.

Not a second rules implementation: a small adapter over the one engine for
``shared.rules._kit.search``'s rollouts (the ``_kit.fast.FastEngine`` shape). ``from_state``
and ``to_state`` clone; ``playout`` plays random seats on one clone in place, through the
same functions ``GAME.apply`` runs on its clones (``engine.start``, ``engine.plan``,
``execute.act``) without building events. Its random seats are ``_kit.playout.play``'s
(``random_actor``/``random_chooser``: the same ``random.Random`` calls in the same order, the
dealer's draws from the same key), so a seed plays the same game on both paths.
"""

from __future__ import annotations

import random

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player
from shared.rules._kit.model import Events
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.engine import START_LABEL, plan, start
from shared.rules.empire_engine.execute import act, legal
from shared.rules.empire_engine.planning import plan_slots
from shared.rules.empire_engine.state import State

_QUIET = Events(keep=False)


def from_state(state: State) -> State:
    return state.clone()


def to_state(state: State) -> State:
    return state.clone()


def playout(state: State, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``state`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the draws of
    # _kit.playout's random seats without choice's frame (tests/property pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    out = FastPlayout(state=state)
    for _ in range(max_steps):
        phase = state.phase
        move: FastMove
        if phase == "over":
            out.finished = True
            break
        if phase == "start":
            values = draw(key, START_LABEL, "below", state.n_seats, 1)
            start(state, values[0], _QUIET)
            move = ("chance", START_LABEL, tuple(values))
        elif phase == "plan":
            choices = {}
            for slot in plan_slots(state):
                allowed = slot.allowed or ()
                choices[slot.key] = allowed[below(len(allowed))]
            move = ("joint", f"plan:{state.round}", choices)
            plan(state, choices, _QUIET)
        else:
            awaiting = state.awaiting
            seat = awaiting[below(len(awaiting))]
            actions = legal(state, seat)
            action = actions[below(len(actions))]
            move = ("act", seat, action)
            act(state, seat, action, _QUIET)  # type: ignore[arg-type]
        out.steps += 1
        if on_step is not None:
            on_step(state, move)
    return out


play_random = random_player(GAME.setup, playout)
