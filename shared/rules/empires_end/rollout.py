"""Search playouts of Empire's End: ``registry.get_fast("empires-end")``.

Not a second rules implementation: a small adapter over the one engine for
``shared.rules._kit.search``'s rollouts (the ``_kit.fast.FastEngine`` shape). ``from_state``
and ``to_state`` clone; ``playout`` plays random seats on one clone in place, through the
same functions ``GAME.apply`` runs on its clones (``engine.chance``, ``engine.joint``,
``engine.act``) without building events. Its random seats are ``_kit.playout.play``'s
(``random_actor``/``random_chooser``: the same ``random.Random`` calls in the same order, the
dealer's draws from the same key), so a seed plays the same game on both paths.
"""

from __future__ import annotations

import random
from typing import Any, get_args

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player, shuffle_drawer
from shared.rules._kit.model import Events
from shared.rules.api import Chance, JointAction, Json, Simultaneous
from shared.rules.empires_end import GAME
from shared.rules.empires_end.actions import Action
from shared.rules.empires_end.build import build
from shared.rules.empires_end.engine import act, awaited, chance, joint, legal, node
from shared.rules.empires_end.state import State

_QUIET = Events(keep=False)
# action type -> its model: the engine's legal actions need no validation to be parsed
_MODELS: dict[str, Any] = {
    get_args(m.model_fields["type"].annotation)[0]: m for m in get_args(get_args(Action)[0])
}


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
    shuffle = shuffle_drawer(key)
    out = FastPlayout(state=state)
    n_track = len(state.track)
    for _ in range(max_steps):
        move: FastMove
        seats = awaited(state)
        if seats:
            seat = seats[below(len(seats))]
            actions = legal(state, seat)
            action: dict[str, Any] = actions[below(len(actions))]  # type: ignore[assignment]
            move = ("act", seat, action)
            act(state, seat, build(_MODELS[action["type"]], **action), _QUIET)
        elif state.phase_index >= n_track:
            out.finished = True
            break
        else:
            nd = node(state)
            if isinstance(nd, Chance):
                values = (shuffle(nd.label, nd.n) if nd.draw == "shuffle"
                          else draw(key, nd.label, nd.draw, nd.n, nd.count))
                move = ("chance", nd.label, tuple(values))
                chance(state, values, _QUIET)
            else:
                assert isinstance(nd, Simultaneous)
                choices: dict[str, Json] = {}
                for slot in nd.slots:
                    allowed = slot.allowed or ()
                    choices[slot.key] = allowed[below(len(allowed))]
                move = ("joint", nd.round_id, choices)
                joint(state, nd, JointAction(round_id=nd.round_id, choices=choices),
                      _QUIET)
        out.steps += 1
        if on_step is not None:
            on_step(state, move)
    return out


play_random = random_player(GAME.setup, playout)
