"""Economy phase: every healthy green ability, each seat on its own (EEND-10, EEND-22).

Production (gains, adjacency gains, economy VP) and refreshes need no decision and only add,
so they are applied when the seat's Economy starts: doing them first is never worse than any
other order. What remains are the optional choices, taken one at a time in any order the
seat likes: each conversion use (up to its allowance) and each Repeat. Conversions take
their printed input (Wheat or Coin). Events about a seat's tokens are private to it (EEND-21).
"""

from __future__ import annotations

from shared.rules._kit.model import event
from shared.rules.api import Event, Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import Action, Convert, EndEconomy, Repeat
from shared.rules.empires_end.data import Ability, ability
from shared.rules.empires_end.state import (
    ConvLeft,
    Player,
    Res,
    SeatWork,
    State,
    SubPhase,
    bundle_res,
)


def effect(p: Player, pos: int, ab: Ability) -> tuple[Player, Res, int, list[str]]:
    """One use of a non-choice economy ability at ``pos``: (player, tokens, VP, refreshed)."""
    gained, vp = Res(), 0
    refreshed: list[str] = []
    if ab.kind == "gain":
        gained, vp = bundle_res(ab.res), ab.vp
    elif ab.kind == "gain_per_adjacent":
        k = board.count_adjacent(p.empire, pos, healthy=True, kind=ab.per)
        gained, vp = bundle_res(ab.res, k), ab.vp * k
    elif ab.kind == "vp_per_adjacent_destroyed":
        vp = ab.vp * board.count_adjacent(p.empire, pos, healthy=False)
    elif ab.kind == "refresh_adjacent":
        p, refreshed = board.refresh_positions(p, board.neighbours(pos, len(p.empire)))
    p = p.model_copy(update={"res": p.res.add(gained), "vp": p.vp + vp})
    return p, gained, vp, refreshed


def _report(seat: int, gained: Res, vp: int, refreshed: list[str], events: list[Event]) -> None:
    if gained.total():
        events.append(
            event(type="tokens_gained", data={"seat": seat, **gained.as_dict()}, visible_to=(seat,))
        )
    if vp:
        events.append(event(type="vp_gained", data={"seat": seat, "vp": vp, "phase": "economy"}))
    if refreshed:
        events.append(event(type="refreshed", data={"seat": seat, "cards": list(refreshed)}))


def begin(
    state: State, seat: int, todo: tuple[SubPhase, ...], events: list[Event]
) -> tuple[State, bool]:
    """Start this seat's Economy. Returns (state, finished): a seat whose empire has no
    conversion or repeat ability (public knowledge) has nothing to decide and is finished."""
    p = state.players[seat]
    gained, vp = Res(), 0
    refreshed: list[str] = []
    conv: list[ConvLeft] = []
    repeats: list[str] = []
    for pos, ref, ab in list(board.active(p, "economy")):
        if ab.kind == "convert":
            conv.append(ConvLeft(source=ref, left=ab.times))
        elif ab.kind == "repeat":
            repeats.append(ref)
        else:
            p, g, v, rf = effect(p, pos, ab)
            gained, vp, refreshed = gained.add(g), vp + v, refreshed + rf
    _report(seat, gained, vp, refreshed, events)
    state = state.with_player(seat, p)
    work = SeatWork(stage="economy", todo=todo, conv=tuple(conv), repeats=tuple(repeats))
    return state.with_work(seat, work), not conv and not repeats


def legal(state: State, seat: int) -> list[Json]:
    w = state.work[seat]
    p = state.players[seat]
    out: list[Json] = []
    for c in w.conv:
        ab = ability(c.source)
        if c.left > 0 and ab.src is not None and p.res.get(ab.src) >= 1:
            out.extend(
                {"type": "convert", "source": c.source, "option": j} for j in range(len(ab.outs))
            )
    for src in w.repeats:  # EEND-10: not itself, not another Repeat
        for _, ref, ab in board.active(p, "economy"):
            if ref != src and ab.kind != "repeat":
                out.append({"type": "repeat", "source": src, "target": ref})
    out.append({"type": "end_economy"})
    return out


def apply(state: State, seat: int, action: Action, events: list[Event]) -> tuple[State, bool]:
    """Apply a legal economy action. Returns (state, finished)."""
    w = state.work[seat]
    p = state.players[seat]
    if isinstance(action, Convert):
        ab = ability(action.source)
        assert ab.src is not None
        res = p.res.plus(ab.src, -1).add(bundle_res(ab.outs[action.option]))
        conv = tuple(
            c.model_copy(update={"left": c.left - 1}) if c.source == action.source else c
            for c in w.conv
        )
        state = state.with_player(seat, p.model_copy(update={"res": res}))
        state = state.with_work(seat, w.model_copy(update={"conv": conv}))
        events.append(
            event(
                type="converted",
                data={"seat": seat, "source": action.source, "option": action.option},
                visible_to=(seat,),
            )
        )
        return state, False
    if isinstance(action, Repeat):
        found = board.find_active(p, action.target, "economy")
        assert found is not None
        pos, ab = found
        repeats = tuple(r for r in w.repeats if r != action.source)
        conv = w.conv
        if ab.kind == "convert":  # EEND-10: repeats the full allowance
            conv = tuple(
                c.model_copy(update={"left": c.left + ab.times}) if c.source == action.target else c
                for c in w.conv
            )
        else:
            p, g, v, rf = effect(p, pos, ab)
            _report(seat, g, v, rf, events)
            state = state.with_player(seat, p)
        events.append(
            event(
                type="repeated",
                data={"seat": seat, "source": action.source, "target": action.target},
                visible_to=(seat,),
            )
        )
        return state.with_work(seat, w.model_copy(update={"conv": conv, "repeats": repeats})), False
    assert isinstance(action, EndEconomy)
    return state, True
