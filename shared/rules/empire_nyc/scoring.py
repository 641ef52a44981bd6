"""Final ranking."""

from __future__ import annotations

from shared.rules.api import Json, Outcome, SeatResult
from shared.rules.empire_nyc.state import NycState

TIEBREAK = (
    "The winner (whole map, a completed occupation mission, or the leader when the round "
    "limit ends the game, NY-S1) is first. Players still in the game follow, by "
    "neighborhoods held, then cubes on the map (equal on both: shared place). "
    "Eliminated players come last, the later eliminated ahead of the earlier."
)


def score(state: NycState) -> Outcome:
    elim_rank = {e.seat: k for k, e in enumerate(state.eliminated)}
    keys: list[tuple[int, int, int]] = []
    figures: list[dict[str, Json]] = []
    for s in range(state.n_seats):
        mine = [i for i, o in enumerate(state.owner) if o == s]
        cubes = sum(state.cubes[i] for i in mine)
        if state.winner == s:
            key = (0, 0, 0)
        elif s in elim_rank:
            key = (2, -elim_rank[s], 0)
        else:
            key = (1, -len(mine), -cubes)
        keys.append(key)
        figures.append(
            {
                "neighborhoods": len(mine),
                "cubes": cubes,
                "cards": len(state.hands[s]),
                "eliminated_turn": next((e.turn for e in state.eliminated if e.seat == s), None),
                "winner": state.winner == s,
            }
        )
    results = tuple(
        SeatResult(seat=s, place=1 + sum(k < keys[s] for k in keys), figures=figures[s])
        for s in range(state.n_seats)
    )
    return Outcome(results=results, tiebreak=TIEBREAK)
