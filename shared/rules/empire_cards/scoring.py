"""Final ranking of a match (CG-19)."""

from __future__ import annotations

from shared.rules.api import Json, Outcome, SeatResult
from shared.rules.empire_cards.data import REGIMES
from shared.rules.empire_cards.state import State

TIEBREAK = (
    "Emperor Overlord first; then most different achievement regimes held; then most "
    "achievement cards; then most hands won; still equal: shared place"
)


def score(state: State) -> Outcome:
    keys: list[tuple[bool, int, int, int]] = []
    figures: list[dict[str, Json]] = []
    for seat, p in enumerate(state.players):
        counts: dict[str, int] = {r: p.achievements(r) for r in REGIMES}
        distinct = sum(1 for r in REGIMES if counts[r])
        total = sum(counts.values())
        overlord = state.overlord == seat
        keys.append((overlord, distinct, total, p.hands_won))
        figures.append(
            {
                **counts,
                "regimes": distinct,
                "achievements": total,
                "hands_won": p.hands_won,
                "overlord": overlord,
            }
        )
    results = tuple(
        SeatResult(
            seat=seat, place=1 + sum(1 for k in keys if k > keys[seat]), figures=figures[seat]
        )
        for seat in range(state.n_seats)
    )
    return Outcome(results=results, tiebreak=TIEBREAK)
