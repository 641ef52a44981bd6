"""Search playouts of Empire: ``registry.get_fast("empire")``.

Not a second rules implementation: a small adapter over the one engine for
``shared.ai.search``'s rollouts (the ``_kit.fast.FastEngine`` shape). ``from_state`` and
``to_state`` clone; ``playout`` plays random seats on one clone in place, through the same
functions ``GAME.apply`` runs on its clones (``engine.legal``, ``engine.act`` and the move
functions beside it) without building events; a bidder's action is picked by its index in
``engine.legal``'s order without listing the raises. Its random seats are ``_kit.playout.play``'s
(``random_actor``/``random_chooser``: the same ``random.Random`` calls in the same order, the
dealer's draws from the same key), so a seed plays the same game on both paths.
"""

from __future__ import annotations

import random

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player
from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empire import GAME
from shared.rules.empire.actions import ACTION
from shared.rules.empire.claiming import claim_node, deal_nations
from shared.rules.empire.commerce import SALES
from shared.rules.empire.data import MAX_SALE, NATIONS, ROW_LENGTH
from shared.rules.empire.engine import (
    ASSIGN_LABEL,
    NATIONS_LABEL,
    ROW_LABEL,
    START_LABEL,
    act,
    assign_nations,
    claim,
    deal_row,
    draw_start_player,
    finish_trading,
    legal,
    sell,
)
from shared.rules.empire.exploration import apply_bid, is_tied, trade_responses
from shared.rules.empire.state import EmpireState

_QUIET = Events(keep=False)


def from_state(state: EmpireState) -> EmpireState:
    return state.clone()


def to_state(state: EmpireState) -> EmpireState:
    return state.clone()


def _act(state: EmpireState, seat: int, action: Json) -> None:
    """A "done" or a trade answer of ``legal(state, seat)``: "done" straight to its move
    function, an answer (rare in playouts) parsed as the contract parses it."""
    if action == {"type": "done"}:
        finish_trading(state, seat, _QUIET)
    else:
        act(state, seat, ACTION.validate_python(action), _QUIET)


def playout(state: EmpireState, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``state`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the draws of
    # _kit.playout's random seats without choice's frame (tests/property pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    out = FastPlayout(state=state)
    n = state.n
    for _ in range(max_steps):
        phase = state.phase
        move: FastMove
        if phase == "exploration":  # the polled bidder is the one awaited seat
            a = state.auction
            assert a is not None
            seat = a.to_act
            below(1)  # play's rng.choice of that one seat still draws
            # legal(state, seat) is pass, withdraw when tied, the raises from bid + 1 to the
            # seat's gold, then the trade answers: pick the index, build only that action
            tied = is_tied(a, seat)
            bid = a.bids[seat]
            raises = max(0, state.holdings[seat].gold - bid)
            answers = trade_responses(state, seat) if state.offers else []
            i = below(1 + tied + raises + len(answers))
            if i == 0:
                action: Json = {"type": "pass"}
                apply_bid(state, seat, "pass", None, _QUIET)
            elif tied and i == 1:
                action = {"type": "withdraw"}
                apply_bid(state, seat, "withdraw", None, _QUIET)
            elif i <= tied + raises:
                action = {"type": "raise", "bid": bid + i - tied}
                apply_bid(state, seat, "raise", bid + i - tied, _QUIET)
            else:
                action = answers[i - 1 - tied - raises]
                _act(state, seat, action)
            move = ("act", seat, action)
        elif phase == "trade_window":
            waiting = [s for s in range(n) if not state.done[s]]
            seat = waiting[below(len(waiting))]
            actions = legal(state, seat)
            action = actions[below(len(actions))]
            move = ("act", seat, action)
            _act(state, seat, action)
        elif phase == "commerce":
            sold = []
            for h in state.holdings:
                allowed = SALES[min(h.goods, MAX_SALE)]
                sold.append(allowed[below(len(allowed))])
            picks = tuple(sold)
            move = ("joint", f"commerce:{state.round}", {f"s{s}": p for s, p in enumerate(picks)})
            sell(state, picks, (), _QUIET)
        elif phase == "claim":
            c = state.claim
            assert c is not None
            if c.assign_seats:  # E-14 cap: the colliding seats get the free nations
                values = draw(key, ASSIGN_LABEL, "shuffle", len(c.assign_nations))
                move = ("chance", ASSIGN_LABEL, tuple(values))
                assign_nations(state, tuple(values), _QUIET)
            else:
                node = claim_node(state)
                choices: dict[str, Json] = {}
                for slot in node.slots:
                    allowed_claims = slot.allowed or ()
                    choices[slot.key] = allowed_claims[below(len(allowed_claims))]
                move = ("joint", node.round_id, choices)
                picks = tuple(int(choices[f"s{s}"]) for s in range(n))  # type: ignore[arg-type]
                claim(state, picks, (), _QUIET)
        elif phase == "setup":
            if state.start_player is None:  # E-20
                values = draw(key, START_LABEL, "below", n)
                move = ("chance", START_LABEL, tuple(values))
                draw_start_player(state, values[0], _QUIET)
            elif not state.row:
                values = draw(key, ROW_LABEL, "shuffle", ROW_LENGTH)
                move = ("chance", ROW_LABEL, tuple(values))
                deal_row(state, tuple(values), _QUIET)
            else:
                values = draw(key, NATIONS_LABEL, "shuffle", len(NATIONS))
                move = ("chance", NATIONS_LABEL, tuple(values))
                deal_nations(state, tuple(values), _QUIET)
        else:  # "ended"
            out.finished = True
            break
        out.steps += 1
        if on_step is not None:
            on_step(state, move)
    return out


play_random = random_player(GAME.setup, playout)
