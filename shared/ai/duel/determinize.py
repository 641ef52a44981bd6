"""Search support for Duel. Duel hides nothing but the sealed picks, and they never
reach the state: the view is the whole state."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from shared.ai.search.spec import SearchSpec, win_shares
from shared.rules.api import Json
from shared.rules.duel import DuelOptions, DuelState


def determinize(view: dict[str, Json], seat: int, rng: random.Random) -> DuelState:
    v: dict[str, Any] = view
    points = tuple(int(p) for p in v["points"])
    return DuelState(options=DuelOptions(**v["options"]), n=len(points), first=v["first"],
                     round=int(v["round"]), phase=v["phase"], stake=int(v["stake"]),
                     picks=tuple(v["picks"]), points=points)


def evaluate(state: DuelState) -> Sequence[float]:
    """Points, with the stakes still to play as the scale of an uncertain lead."""
    left = state.options.rounds - state.round + 1
    return win_shares([float(p) for p in state.points], max(1.0, 2.0 * left))


def _heuristic() -> Any:
    from shared.ai.duel.bot import HeuristicBot

    return HeuristicBot()


SEARCH = SearchSpec(determinize=determinize, evaluate=evaluate, heuristic=_heuristic)
