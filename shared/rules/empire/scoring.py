"""Scoring (RULEBOOK §11, E-19): most support, then most gold, then a joint win."""

from __future__ import annotations

from shared.rules.api import Json, Outcome, SeatResult
from shared.rules.empire.data import NATIONS
from shared.rules.empire.state import EmpireState

TIEBREAK = (
    "Most support (supporters minus revolts); tied empires compare gold; "
    "empires still tied share the place (a joint win for first) (E-19)."
)


def support(state: EmpireState, seat: int) -> int:
    h = state.holdings[seat]
    return h.supporters - h.revolts


def _key(state: EmpireState, seat: int) -> tuple[int, int]:
    return support(state, seat), state.holdings[seat].gold


def places(state: EmpireState) -> list[int]:
    """Competition ranking: 1 + the number of seats strictly ahead."""
    keys = [_key(state, s) for s in range(state.n)]
    return [1 + sum(k > keys[s] for k in keys) for s in range(state.n)]


def figures(state: EmpireState, seat: int) -> dict[str, Json]:
    h = state.holdings[seat]
    number = state.nations[seat] if state.nations else None
    return {
        "support": h.supporters - h.revolts,
        "supporters": h.supporters,
        "revolts": h.revolts,
        "gold": h.gold,
        "nation": NATIONS[number].name if number is not None else None,
    }


def standings(state: EmpireState) -> list[Json]:
    return [{"seat": s, "place": p, **figures(state, s)} for s, p in enumerate(places(state))]


def score(state: EmpireState) -> Outcome:
    results = tuple(
        SeatResult(seat=s, place=p, figures=figures(state, s)) for s, p in enumerate(places(state))
    )
    return Outcome(results=results, tiebreak=TIEBREAK)
