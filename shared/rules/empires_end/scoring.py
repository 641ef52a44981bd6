"""Final scoring: track VP + healthy location VP + end-of-game innovations (EEND-17, 18, 23)."""

from __future__ import annotations

from shared.rules.api import Json, Outcome, SeatResult
from shared.rules.empires_end import board
from shared.rules.empires_end.data import TILE, Ability
from shared.rules.empires_end.state import Player, State

TIEBREAK = (
    "most victory points (track + healthy locations + end-of-game innovations); "
    "a tie goes to the tied player closest to the current first player going clockwise, "
    "the first player included (EEND-23)"
)


def destroyed(p: Player) -> int:
    return sum(1 for loc in p.empire if not loc.healthy)


def _value(state: State, seat: int, pos: int, ab: Ability) -> int:
    p = state.players[seat]
    if ab.kind == "vp_per_destroyed":
        return ab.amount * destroyed(p)
    if ab.kind == "end_per_adjacent_destroyed":
        return ab.amount * board.count_adjacent(p.empire, pos, healthy=False)
    if ab.kind == "vp_per_token":  # EEND-18: coins count only as coins
        assert ab.resource is not None
        return ab.amount * p.res.get(ab.resource)
    if ab.kind == "end_per_adjacent":  # EEND-17: adjacent locations must be healthy
        return ab.amount * board.count_adjacent(p.empire, pos, healthy=True, kind=ab.per)
    if ab.kind == "most_destroyed":  # most or tied for most, among all players
        best = max(destroyed(q) for q in state.players)
        return ab.amount if destroyed(p) == best else 0
    return 0


def end_abilities(state: State, seat: int) -> list[tuple[str, int]]:
    """(card, VP) of each end-of-game innovation under a healthy location. A copy scores the
    best other end-of-game ability a second time."""
    p = state.players[seat]
    plain: list[tuple[str, int]] = []
    copies: list[str] = []
    for pos, ref, ab in board.active(p, "end"):
        if ab.kind == "copy_end":
            copies.append(ref)
        else:
            plain.append((ref, _value(state, seat, pos, ab)))
    best = max((v for _, v in plain), default=0)
    return plain + [(ref, best) for ref in copies]


def breakdown(state: State, seat: int) -> dict[str, int]:
    p = state.players[seat]
    locations = sum(TILE[loc.tile].vp for loc in p.empire if loc.healthy)
    innovations = sum(v for _, v in end_abilities(state, seat))
    return {
        "total": p.vp + locations + innovations,
        "vp_track": p.vp,
        "locations": locations,
        "innovations": innovations,
        "destroyed": destroyed(p),
    }


def score(state: State) -> Outcome:
    figures = [breakdown(state, s) for s in range(state.n)]
    distance = [(s - state.first) % state.n for s in range(state.n)]
    ranking = sorted(range(state.n), key=lambda s: (-figures[s]["total"], distance[s]))
    place = {s: i + 1 for i, s in enumerate(ranking)}
    results = []
    for s in range(state.n):
        data: dict[str, Json] = {**figures[s], "clockwise_from_first": distance[s]}
        results.append(SeatResult(seat=s, place=place[s], figures=data))
    return Outcome(results=tuple(results), tiebreak=TIEBREAK)
