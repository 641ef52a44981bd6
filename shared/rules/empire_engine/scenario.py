"""Positions and sealed rounds built by hand: for rule tests, tutorials and puzzles.

``position`` builds a legal state (the stock accounting included) with given ready piles,
score piles and engine tops; ``round1`` / ``gears`` build the JointAction that the escrow
would hand over for a Plan phase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shared.rules.api import JointAction, Json
from shared.rules.empire_engine.data import ENGINES, Action, Boost, orientation_for, other_gear
from shared.rules.empire_engine.planning import plan_slots, round_id, slot_key
from shared.rules.empire_engine.state import Counts, Options, Player, State


def position(
    n_seats: int,
    *,
    ready: Sequence[tuple[int, int]] | None = None,
    score: Sequence[tuple[int, int, int]] | None = None,
    tops: Sequence[tuple[Action, Action]] | None = None,
    start_player: int = 0,
    round: int = 1,
    options: Mapping[str, Json] | None = None,
) -> State:
    """A Plan-phase state. ``ready``: (soldiers, goods); ``score``: (soldiers, goods,
    inventions); ``tops``: the (L, R) actions on top (required after round 1)."""
    from shared.rules.empire_engine import GAME

    opts = {"random_start_player": False, **(options or {})}
    players: list[Player] = []
    supplied = Counts()
    for seat in range(n_seats):
        s, g = ready[seat] if ready is not None else (1, 1)
        ss, sg, si = score[seat] if score is not None else (0, 0, 0)
        engines = None
        if tops is not None:
            left, right = tops[seat]
            engines = (orientation_for("L", left), orientation_for("R", right))
        players.append(Player(Counts(s, g), Counts(ss, sg, si), engines))
        supplied = Counts(supplied.soldiers + s + ss, supplied.goods + g + sg,
                          supplied.inventions + si)
    if round > 1 and tops is None:
        raise ValueError("engines must be set after round 1")
    base = GAME.setup(dict(opts), n_seats)
    return State(options=Options.model_validate(opts), n_seats=n_seats, rounds=base.rounds,
                 round=round, start_player=start_player, phase="plan",
                 players=tuple(players), supplied=supplied)


def joint(state: State, choices: Mapping[str, Json]) -> JointAction:
    """A JointAction for the pending Plan phase: slot defaults, overridden by ``choices``."""
    full = {slot.key: slot.default for slot in plan_slots(state)}
    full.update(choices)
    return JointAction(round_id=round_id(state), choices=full)


def round1(state: State, tops: Mapping[int, tuple[Action, Action]]) -> JointAction:
    """Round 1: each listed seat places L first with its top, then R (EE-1)."""
    choices: dict[str, Json] = {}
    for seat, (left, right) in tops.items():
        choices[slot_key(seat, 1)] = {"engine": "L", "top": left}
        choices[slot_key(seat, 2)] = {"engine": "R", "top": right}
    return joint(state, choices)


def gears(state: State, plans: Mapping[int, tuple[int, Boost, Boost]]) -> JointAction:
    """Later rounds: (gear under L, boost on the L gear, boost on the R gear); L first."""
    choices: dict[str, Json] = {}
    for seat, (gear_l, boost_l, boost_r) in plans.items():
        gear_r = other_gear(gear_l)
        choices[slot_key(seat, 1)] = {"engine": ENGINES[0], "gear": gear_l, "boost": boost_l}
        choices[slot_key(seat, 2)] = {"engine": ENGINES[1], "gear": gear_r, "boost": boost_r}
    return joint(state, choices)
