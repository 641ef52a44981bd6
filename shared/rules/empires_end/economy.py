"""Economy phase: every healthy green ability, each seat on its own (EEND-10, EEND-22).

Production (gains, adjacency gains, economy VP) and refreshes need no decision and only add,
so they are applied when the seat's Economy starts: doing them first is never worse than any
other order. What remains are the optional choices, taken one at a time in any order the
seat likes: each conversion use (up to its allowance) and each Repeat. Conversions take
their printed input (Wheat or Coin). Events about a seat's tokens are private to it (EEND-21).
The steps change the state in place (a clone, see ``state.py``).
"""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import ActJson
from shared.rules.empires_end.data import CARD, TILE, Ability, ability
from shared.rules.empires_end.state import (
    ConvLeft,
    Player,
    Res,
    State,
    SubPhase,
    bundle_res,
    conv_left,
    seat_work,
    set_work,
)


def effect(p: Player, pos: int, ab: Ability) -> tuple[Res, int, list[str]]:
    """One use of a non-choice economy ability at ``pos``, in place: (tokens, VP, refreshed)."""
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
        refreshed = board.refresh_positions(p, board.neighbours(pos, len(p.empire)))
    p.res.gain_res(gained)
    p.vp += vp
    return gained, vp, refreshed


def _report(seat: int, gained: Res, vp: int, refreshed: list[str], events: Events) -> None:
    if not events.keep:
        return
    if gained.total():
        events.add("tokens_gained", {"seat": seat, **gained.as_dict()}, (seat,))
    if vp:
        events.add("vp_gained", {"seat": seat, "vp": vp, "phase": "economy"})
    if refreshed:
        events.add("refreshed", {"seat": seat, "cards": list(refreshed)})


def begin(state: State, seat: int, todo: tuple[SubPhase, ...], events: Events) -> bool:
    """Start this seat's Economy (in place). Returns whether it is finished: a seat whose
    empire has no conversion or repeat ability (public knowledge) has nothing to decide."""
    p = state.writable(seat)
    got = {"wheat": 0, "hammer": 0, "axe": 0, "coin": 0}  # effect()'s tokens, added up
    vp = 0
    refreshed: list[str] = []
    conv: list[ConvLeft] = []
    repeats: list[str] = []
    empire = p.empire
    for pos, ref, ab in board.active(p, "economy"):
        kind = ab.kind
        if kind == "convert":
            conv.append(conv_left(ref, ab.times))
        elif kind == "repeat":
            repeats.append(ref)
        elif kind == "gain":
            for r, n in ab.res:
                got[r] += n
            vp += ab.vp
        elif kind == "gain_per_adjacent":
            k = board.count_adjacent(empire, pos, healthy=True, kind=ab.per)
            for r, n in ab.res:
                got[r] += n * k
            vp += ab.vp * k
        elif kind == "vp_per_adjacent_destroyed":
            vp += ab.vp * board.count_adjacent(empire, pos, healthy=False)
        elif kind == "refresh_adjacent":  # changes the empire (exhaust markers only)
            refreshed += board.refresh_positions(p, board.neighbours(pos, len(empire)))
            empire = p.empire
    res = p.res  # ``_report`` of the tokens added up, without a stash made for it
    res.wheat += got["wheat"]
    res.hammer += got["hammer"]
    res.axe += got["axe"]
    res.coin += got["coin"]
    p.vp += vp
    if events.keep:
        if got["wheat"] + got["hammer"] + got["axe"] + got["coin"]:
            events.add("tokens_gained", {"seat": seat, **got}, (seat,))
        if vp:
            events.add("vp_gained", {"seat": seat, "vp": vp, "phase": "economy"})
        if refreshed:
            events.add("refreshed", {"seat": seat, "cards": list(refreshed)})
    set_work(state, seat, seat_work("economy", todo, tuple(conv), tuple(repeats)))
    return not conv and not repeats


# The listed actions, each dict made once and shared by every list that offers it (a listed
# action is never changed, as a state is never changed): conversion source -> its converts
_CONVERTS: dict[str, tuple[Json, ...]] = {
    ref: tuple({"type": "convert", "source": ref, "option": j}
               for j in range(len(ability(ref).outs)))
    for ref in (*TILE, *CARD) if ability(ref).kind == "convert"}
_END: Json = {"type": "end_economy"}
_ABILITY: dict[str, Ability] = {ref: ability(ref) for ref in (*TILE, *CARD)}  # ``ability``


def legal(state: State, seat: int) -> list[Json]:
    w = state.work[seat]
    p = state.players[seat]
    out: list[Json] = []
    for c in w.conv:
        ab = _ABILITY[c.source]
        if c.left > 0 and ab.src is not None and getattr(p.res, ab.src) >= 1:  # (Res.get)
            out += _CONVERTS[c.source]
    if w.repeats:
        targets = [ref for _, ref, ab in board.active(p, "economy") if ab.kind != "repeat"]
        for src in w.repeats:  # EEND-10: not itself, not another Repeat
            out.extend({"type": "repeat", "source": src, "target": ref}
                       for ref in targets if ref != src)
    out.append(_END)
    return out


def apply(state: State, seat: int, a: ActJson, events: Events) -> bool:
    """Apply a legal economy action (its JSON) in place. Returns whether the seat's Economy
    is over."""
    kind = a["type"]
    if kind == "end_economy":
        return True
    w = state.work[seat]
    p = state.writable(seat)
    if kind == "convert":
        source, option = a["source"], a["option"]
        ab = _ABILITY[source]
        res = p.res  # ``gain`` of the input and ``gain_bundle`` of the output, written out
        src = ab.src
        assert src is not None
        setattr(res, src, getattr(res, src) - 1)
        for r, n in ab.outs[option]:
            setattr(res, r, getattr(res, r) + n)
        left = []  # (a loop: a comprehension is a function made and called on every use)
        for c in w.conv:
            left.append(conv_left(source, c.left - 1) if c.source == source else c)
        conv = tuple(left)
        set_work(state, seat, seat_work(w.stage, w.todo, conv, w.repeats, w.acts, w.repaired,
                                        w.used, w.discarded))
        events.add("converted", {"seat": seat, "source": source, "option": option}, (seat,))
        return False
    assert kind == "repeat"
    source, target = a["source"], a["target"]
    found = board.find_active(p, target, "economy")
    assert found is not None
    pos, ab = found
    repeats = tuple(r for r in w.repeats if r != source)
    if ab.kind == "convert":  # EEND-10: repeats the full allowance
        set_work(state, seat, w.changed(repeats=repeats, conv=tuple(
            conv_left(c.source, c.left + ab.times) if c.source == target else c
            for c in w.conv
        )))
    else:
        set_work(state, seat, w.changed(repeats=repeats))
        g, v, rf = effect(p, pos, ab)
        _report(seat, g, v, rf, events)
    events.add("repeated", {"seat": seat, "source": source, "target": target}, (seat,))
    return False
