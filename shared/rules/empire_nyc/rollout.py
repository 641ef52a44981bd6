"""Search playouts of Empire: The Game of New York: ``registry.get_fast("empire-nyc")``.

Not a second rules implementation: a small adapter over the one engine for
``shared.ai.search``'s rollouts (the ``_kit.fast.FastEngine`` shape). ``from_state``
and ``to_state`` clone; ``playout`` plays random seats on one clone in place, through the
same functions ``GAME.apply`` runs on its clones (``engine.chance``, ``engine.act``) without
building events. Its random seats are ``_kit.playout.play``'s (``random_actor``: the same
``random.Random`` calls in the same order, the dealer's draws from the same key), so a seed
plays the same game on both paths.
"""

from __future__ import annotations

import random

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, dice_drawer, random_player
from shared.rules._kit.model import Events
from shared.rules.api import Chance, Turn
from shared.rules.empire_nyc import GAME
from shared.rules.empire_nyc.actions import ACTION
from shared.rules.empire_nyc.combat import roll_request
from shared.rules.empire_nyc.engine import act, chance
from shared.rules.empire_nyc.engine import node as next_node
from shared.rules.empire_nyc.legal import legal_actions
from shared.rules.empire_nyc.state import NycState

_QUIET = Events(keep=False)


def from_state(state: NycState) -> NycState:
    return state.clone()


def to_state(state: NycState) -> NycState:
    return state.clone()


def playout(state: NycState, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``state`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the draws of
    # _kit.playout's random seats without choice's frame (tests/property pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    dice = dice_drawer(key)  # draws.dice for this key, the keyed HMAC made once
    validate = ACTION.validate_python
    out = FastPlayout(state=state)
    for _ in range(max_steps):
        move: FastMove
        if state.phase == "roll":
            label, count = roll_request(state)
            values = tuple(dice(label, 6, count))
            move = ("chance", label, values)
            chance(state, values, _QUIET)
        else:
            node = next_node(state)  # (not GAME.next: its memo holds this very object)
            if isinstance(node, Turn):
                seat = node.seats[below(1)]
                actions = legal_actions(state, seat)
                action = actions[below(len(actions))]
                move = ("act", seat, action)
                refused = act(state, seat, validate(action), _QUIET)
                assert refused is None, refused  # a listed action is always accepted
            elif isinstance(node, Chance):
                values = tuple(draw(key, node.label, node.draw, node.n, node.count))
                move = ("chance", node.label, values)
                chance(state, values, _QUIET)
            else:
                out.finished = True
                break
        out.steps += 1
        if on_step is not None:
            on_step(state, move)
    return out


play_random = random_player(GAME.setup, playout)
