"""End-of-game scoring: 1 point per scored resource, +3 per type to the most (EE-13),
tie-break on the ready pile, then shared victory (EE-15)."""

from __future__ import annotations

from shared.rules.api import Json, Outcome, SeatResult
from shared.rules.empire_engine.data import MAJORITY_BONUS, RESOURCES, Resource
from shared.rules.empire_engine.state import State

TIEBREAK = (
    "most points (1 per resource in the score pile, +3 to every player with the most of each "
    "type, none when the most is 0), then most resources in the ready pile, then shared victory"
)


def bonus_types(state: State, seat: int) -> list[Resource]:
    """Types for which ``seat`` has the most (ties all score, EE-13: none when the most is 0)."""
    out: list[Resource] = []
    for r in RESOURCES:
        best = max(p.score.get(r) for p in state.players)
        if state.players[seat].score.get(r) == best and (
            best > 0 or state.options.majority_bonus_at_zero
        ):
            out.append(r)
    return out


def points(state: State, seat: int) -> int:
    return state.players[seat].score.total() + MAJORITY_BONUS * len(bonus_types(state, seat))


def score(state: State) -> Outcome:
    keys = [(points(state, s), state.players[s].ready.total()) for s in range(state.n_seats)]
    results: list[SeatResult] = []
    for seat, p in enumerate(state.players):
        types = bonus_types(state, seat)
        fig: dict[str, Json] = {
            "points": keys[seat][0],
            "soldiers": p.score.soldiers,
            "goods": p.score.goods,
            "inventions": p.score.inventions,
            "bonus": MAJORITY_BONUS * len(types),
            "bonus_types": list(types),
            "ready": keys[seat][1],  # EE-15 tie-break
        }
        place = 1 + sum(1 for k in keys if k > keys[seat])  # equal keys share victory (EE-15)
        results.append(SeatResult(seat=seat, place=place, figures=fig))
    return Outcome(results=tuple(results), tiebreak=TIEBREAK)
