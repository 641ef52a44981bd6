"""Search playouts of Empire The Card Game: ``registry.get_fast("empire-cards")``.

Not a second rules implementation: a small adapter over the one engine for
``shared.rules._kit.search``'s rollouts (the ``_kit.fast.FastEngine`` shape). ``from_state``
and ``to_state`` clone; ``playout`` plays random seats on one clone in place, through the
same functions ``GAME.apply`` runs on its clones (``engine.node``, ``engine.chance``,
``match.play_rps``, ``engine.dispatch``, ``ops.runout_refill``) without building events. Its
random seats are ``_kit.playout.play``'s (``random_actor``/``random_chooser``: the same
``random.Random`` calls in the same order, the dealer's draws from the same key), so a seed
plays the same game on both paths.
"""

from __future__ import annotations

import random

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player
from shared.rules._kit.model import Events
from shared.rules.api import Chance, Json, Simultaneous, Terminal
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.actions import ACTION
from shared.rules.empire_cards.engine import chance, dispatch, node
from shared.rules.empire_cards.legal import legal_actions
from shared.rules.empire_cards.match import play_rps
from shared.rules.empire_cards.ops import holdings, runout_refill
from shared.rules.empire_cards.state import State

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
        pending = node(state)
        before = holdings(state)
        move: FastMove
        if isinstance(pending, Terminal):
            out.finished = True
            break
        if isinstance(pending, Chance):
            values = draw(key, pending.label, pending.draw, pending.n, pending.count)
            chance(state, tuple(values), _QUIET)
            move = ("chance", pending.label, tuple(values))
        elif isinstance(pending, Simultaneous):
            choices: dict[str, Json] = {}
            for slot in pending.slots:
                allowed = slot.allowed
                choices[slot.key] = allowed[below(len(allowed))] if allowed else slot.default
            play_rps(state, {s.seat: str(choices[s.key]) for s in pending.slots}, _QUIET)
            move = ("joint", pending.round_id, choices)
        else:
            seats = pending.seats or pending.open_to
            seat = seats[below(len(seats))]
            actions = legal_actions(state, seat)
            action = actions[below(len(actions))]
            refused = dispatch(state, seat, ACTION.validate_python(action), _QUIET)
            assert refused is None, refused
            move = ("act", seat, action)
        runout_refill(before, state, _QUIET)
        out.steps += 1
        if on_step is not None:
            on_step(state, move)
    return out


play_random = random_player(GAME.setup, playout)
