"""Empire's End on a compact state, for playouts (issue 22; see ``_kit/fast.py``).

The same rules as ``engine.py``, ``board.py``, ``economy.py``, ``industry.py``,
``disaster.py`` and ``conflict.py`` (EEND-1 to EEND-26) on plain lists, changed in place:

* a player is ``[res, vp, empire, hand, looked_up]``: ``res`` = [wheat, hammer, axe, coin],
  a location ``[tile, healthy, innovations]``, an innovation ``[card, exhausted]``;
  ``looked_up`` holds what the steps read of the empire (each phase's active abilities, the
  placement candidates, the destroyed positions, the industry abilities by use, the usable
  exhaust abilities), kept up to date by each change (an innovation added, a location
  destroyed or swapped) or dropped (``_changed``) and found again when next asked for;
* the disaster phase ``[slots, bidder, addressed, resolution]``, a slot ``[card, pool,
  closed]``, a resolution ``[seat, card, target, stage, choices, positions]`` (when this
  module found the choices: their positions, and None for the choices, the tiles at them;
  from ``from_state``: the choices, and None for the positions, looked up by tile);
* a seat's work ``[stage, todo, conv, repeats, acts, repaired, used, discarded]``, a
  conversion left ``[source, left]``.

The random seat picks the contract's legal action by index (the contract's order): the
economy, industry and disaster steps count the options and build only the action drawn, and
apply the common ones (a build, a sale, a swap, the end of industry, a bid, a destroy or a
place) from what the count knows.
``tests/property/test_fast_engines.py`` proves it equal to the contract path move by move;
a rules change goes into both.
"""

from __future__ import annotations

import random
from bisect import insort
from operator import itemgetter
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.fast import (
    FastMove,
    FastPlayout,
    OnStep,
    random_player,
    shuffle_drawer,
)
from shared.rules._kit.model import construct
from shared.rules.api import Json, RuleError
from shared.rules.empires_end.data import (
    CARD,
    CARD_IDS,
    CONFLICT,
    CONFLICT_IDS,
    HAND_SIZE,
    LOW_RESOURCES,
    LOW_RESOURCES_VP_PER_COIN,
    START_RESOURCES,
    TILE,
    TILE_IDS,
    Ability,
    Reward,
    ability,
    track_for,
)
from shared.rules.empires_end.state import (
    ConvLeft,
    DisasterPhase,
    DisasterSlot,
    Innovation,
    Location,
    Options,
    Player,
    Res,
    Resolution,
    SeatWork,
    State,
)

RI = {"wheat": 0, "hammer": 1, "axe": 2, "coin": 3}
DISASTER_PHASES = ("disaster", "double_disaster")
WORK_PHASES = frozenset({"economy", "industry", "industry_economy"})  # seats' own work
SETUP_CHANCES = (  # engine._SETUP_CHANCES: (label, draw, n)
    ("locations:order:shuffle", "shuffle", len(TILE_IDS)),
    ("first_player:below", "below", 0),  # n = seats
    ("deck:disaster:shuffle:0", "shuffle", len(CARD_IDS)),
    ("deck:conflict:shuffle:0", "shuffle", len(CONFLICT_IDS)),
)
ABILITY: dict[str, Ability] = {**{t: ability(t) for t in TILE_IDS},
                               **{c: ability(c) for c in CARD_IDS}}
CHOOSE: tuple[Json, ...] = ({"type": "choose_order", "first": "economy"},
                            {"type": "choose_order", "first": "industry"})
END_ECONOMY: Json = {"type": "end_economy"}
END_INDUSTRY: Json = {"type": "end_industry"}
DISCARD_HAND: Json = {"type": "discard_hand"}
END_TURN: Json = {"type": "end_turn"}


def _work(stage: str, todo: tuple[str, ...] = ()) -> list[Any]:
    return [stage, todo, [], [], 0, False, [], False]


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = (
        "conflict_card",
        "conflict_deck",
        "conflict_discard",
        "deck",
        "disaster",
        "discard",
        "draw_queue",
        "first",
        "n",
        "options",
        "order",
        "phase",
        "phase_index",
        "players",
        "reshuffles",
        "setup_step",
        "track",
        "work",
    )

    def __init__(self, options: Options, n: int) -> None:
        self.options = options
        self.n = n
        self.track: tuple[str, ...] = track_for(n)
        self.setup_step = 0
        self.phase_index = -1
        self.order: tuple[str, ...] = ()
        self.first = 0
        self.players: list[list[Any]] = [
            [[START_RESOURCES] * 4, 0, [[t, True, []] for t in TILE_IDS], [], {}]
            for _ in range(n)]
        self.deck: list[str] = []
        self.discard: list[str] = []
        self.conflict_deck: list[str] = []
        self.conflict_discard: list[str] = []
        self.conflict_card: str | None = None
        self.disaster: list[Any] | None = None
        self.work: list[list[Any]] = []
        self.draw_queue: list[int] = []
        self.reshuffles = 0

        self.phase = "setup"  # State.phase, kept with phase_index (_set_index)


def _set_index(f: Fast, index: int) -> None:
    f.phase_index = index
    f.phase = "setup" if index < 0 else "end" if index >= len(f.track) else f.track[index]


# ---------------------------------------------------------------------------- the edge


_OPTIONS: dict[Any, Options] = {}  # validated options by their items (frozen models)


def setup(options: dict[str, Json], n_seats: int) -> Fast:
    try:
        key: Any = tuple(sorted(options.items()))
        opts = _OPTIONS.get(key)
    except TypeError:  # (an unhashable value: validated, not remembered)
        key = opts = None
    if opts is None:
        opts = Options.model_validate(options)
        if key is not None and len(_OPTIONS) < 64:
            _OPTIONS[key] = opts
    if not isinstance(n_seats, int) or not 2 <= n_seats <= 4:
        raise RuleError(f"Empire's End needs 2-4 seats, got {n_seats!r}")
    return Fast(opts, n_seats)


def _res_list(r: Res) -> list[int]:
    return [r.wheat, r.hammer, r.axe, r.coin]


def _res(v: list[int]) -> Res:
    return construct(Res, wheat=v[0], hammer=v[1], axe=v[2], coin=v[3])


def from_state(state: State) -> Fast:
    f = Fast(state.options, state.n)
    f.track = state.track
    f.setup_step = state.setup_step
    _set_index(f, state.phase_index)
    f.order = tuple(state.order)
    f.first = state.first
    f.players = [[_res_list(p.res), p.vp,
                  [[loc.tile, loc.healthy, [[i.card, i.exhausted] for i in loc.innovations]]
                   for loc in p.empire], list(p.hand), {}] for p in state.players]
    f.deck = list(state.deck)
    f.discard = list(state.discard)
    f.conflict_deck = list(state.conflict_deck)
    f.conflict_discard = list(state.conflict_discard)
    f.conflict_card = state.conflict_card
    d = state.disaster
    if d is not None:
        r = d.resolution
        f.disaster = [[[s.card, _res_list(s.pool), s.closed] for s in d.slots], d.bidder,
                      list(d.addressed),
                      None if r is None else [r.seat, r.card, r.target, r.stage, r.choices,
                                              None]]
    f.work = [[w.stage, tuple(w.todo), [[c.source, c.left] for c in w.conv], list(w.repeats),
               w.acts, w.repaired, list(w.used), w.discarded] for w in state.work]
    f.draw_queue = list(state.draw_queue)
    f.reshuffles = state.reshuffles
    return f


def to_state(f: Fast) -> State:
    players = tuple(
        construct(Player, res=_res(p[0]), vp=p[1], hand=tuple(p[3]), empire=tuple(
            construct(Location, tile=loc[0], healthy=loc[1], innovations=tuple(
                construct(Innovation, card=i[0], exhausted=i[1]) for i in loc[2]))
            for loc in p[2]))
        for p in f.players)
    disaster = None
    d = f.disaster
    if d is not None:
        r = d[3]
        disaster = construct(
            DisasterPhase,
            slots=tuple(construct(DisasterSlot, card=s[0], pool=_res(s[1]), closed=s[2])
                        for s in d[0]),
            bidder=d[1], addressed=tuple(d[2]),
            resolution=None if r is None else construct(
                Resolution, seat=r[0], card=r[1], target=r[2], stage=r[3],
                choices=r[4] if r[4] is not None else tuple(
                    [f.players[r[0]][2][c][0] for c in r[5]])))
    work = tuple(
        construct(SeatWork, stage=w[0], todo=w[1],
                  conv=tuple(construct(ConvLeft, source=c[0], left=c[1]) for c in w[2]),
                  repeats=tuple(w[3]), acts=w[4], repaired=w[5], used=tuple(w[6]),
                  discarded=w[7])
        for w in f.work)
    return construct(
        State, n=f.n, options=f.options, track=f.track, setup_step=f.setup_step,
        phase_index=f.phase_index, order=f.order, first=f.first, players=players,
        deck=tuple(f.deck), discard=tuple(f.discard), conflict_deck=tuple(f.conflict_deck),
        conflict_discard=tuple(f.conflict_discard), conflict_card=f.conflict_card,
        disaster=disaster, work=work, draw_queue=tuple(f.draw_queue),
        reshuffles=f.reshuffles)


# ---------------------------------------------------------------------------- board.py


_NEIGHBOURS: dict[int, list[tuple[int, ...]]] = {}


def _neighbours(pos: int, size: int) -> tuple[int, ...]:
    table = _NEIGHBOURS.get(size)
    if table is None:
        table = _NEIGHBOURS[size] = [tuple(p for p in (q - 1, q + 1) if 0 <= p < size)
                                     for q in range(size)]
    return table[pos]


def _pos_tile(emp: list[Any], tile: str) -> int | None:
    for i, loc in enumerate(emp):
        if loc[0] == tile:
            return i
    return None


def _pos_ref(emp: list[Any], ref: str) -> int | None:
    for i, loc in enumerate(emp):
        if loc[0] == ref:
            return i
        for inn in loc[2]:
            if inn[0] == ref:
                return i
    return None


def _active(p: list[Any], phase: str) -> list[tuple[int, str, Ability]]:
    """board.active as a list; remembered in ``p[4]`` until the empire changes (every change
    of a location, its health or its innovations clears it: ``_changed``)."""
    got: list[tuple[int, str, Ability]] | None = p[4].get(phase)
    if got is None:
        _find_active(p)
        got = p[4][phase]
    return got


def _find_active(p: list[Any]) -> None:
    """Every phase's active list in one pass over the empire (after a change dropped them,
    most phases are asked for again before the next change)."""
    lists: tuple[list[tuple[int, str, Ability]], ...] = ([], [], [], [], [])  # PHASES
    entry = _ENTRY
    for pos, loc in enumerate(p[2]):
        if loc[1]:
            ref = loc[0]
            i, ab = entry[ref]
            lists[i].append((pos, ref, ab))
            for inn in loc[2]:
                ref = inn[0]
                i, ab = entry[ref]
                lists[i].append((pos, ref, ab))
    cache = p[4]
    cache["economy"], cache["industry"], cache["disaster"], cache["conflict"], cache["end"] = lists


def _changed(p: list[Any]) -> None:
    p[4].clear()


def _innovation_added(p: list[Any], pos: int, card: str) -> None:
    """``_changed`` for one innovation put last on the healthy location ``pos``: its phase's
    active list gets it after every entry of a position up to ``pos`` (board order), the
    placement candidates lose ``pos``, and the look-ups read from them are dropped."""
    cache = p[4]
    phase = PHASE_OF[card]
    got = cache.get(phase)
    if got is not None:
        i = len(got)
        while i and got[i - 1][0] > pos:
            i -= 1
        got.insert(i, (pos, card, ABILITY[card]))
    place = cache.get("place")
    if place is not None:
        if pos in place and len(place) > 1:
            place.remove(pos)  # (in place: the lists read from it are done with it)
        else:
            del cache["place"]
    if phase == "industry":
        cache.pop("ind", None)
    elif phase == "disaster":
        cache.pop("usable", None)


def _destroyed(p: list[Any], pos: int) -> None:
    """``_changed`` for the location at ``pos`` destroyed: the entries of its tile and
    innovations leave their phases' active lists, and the placement candidates lose it (the
    fewest innovations of the rest are still the fewest unless it was the last candidate);
    the look-ups read from a list that loses entries are dropped."""
    cache = p[4]
    loc = p[2][pos]
    phases = {PHASE_OF[loc[0]]}  # the phases whose active lists lose entries
    for inn in loc[2]:
        phases.add(PHASE_OF[inn[0]])
    for phase in phases:
        got = cache.get(phase)
        if got:
            cache[phase] = [e for e in got if e[0] != pos]
    place = cache.get("place")
    if place is not None and pos in place:
        if len(place) > 1:
            place.remove(pos)
        else:
            del cache["place"]
    if "industry" in phases:  # read from the industry list
        cache.pop("ind", None)
    if "disaster" in phases:
        cache.pop("usable", None)
    broken = cache.get("broken")
    if broken is not None:  # (pos was healthy)
        cache["broken"] = sorted({*broken, pos})


def _repaired(p: list[Any], pos: int) -> None:
    """``_changed`` for the destroyed location at ``pos`` repaired: its tile's and its
    innovations' abilities join their phases' active lists (board order: after every entry
    of a position before ``pos``), it leaves the destroyed positions, and the placement
    candidates and the look-ups read from the lists are found again."""
    cache = p[4]
    loc = p[2][pos]
    for ref in (loc[0], *(inn[0] for inn in loc[2])):
        got = cache.get(PHASE_OF[ref])
        if got is not None:
            i = len(got)
            while i and got[i - 1][0] > pos:
                i -= 1
            got.insert(i, (pos, ref, ABILITY[ref]))
    broken = cache.get("broken")
    if broken is not None:
        cache["broken"] = [q for q in broken if q != pos]
    cache.pop("place", None)
    cache.pop("ind", None)
    cache.pop("usable", None)


def _moved(p: list[Any], card: str, dest: int) -> None:
    """``_changed`` for the innovation ``card`` moved last onto the healthy location
    ``dest``: out of its phase's active list, then in as ``_innovation_added``; the
    placement candidates again from the board (its old location has one less)."""
    got = p[4].get(PHASE_OF[card])
    if got is not None:
        p[4][PHASE_OF[card]] = [e for e in got if e[1] != card]
    _innovation_added(p, dest, card)
    p[4].pop("place", None)


_POSITION = itemgetter(0)


def _swapped(p: list[Any], a: int, b: int) -> None:
    """``_changed`` for the locations at ``a`` and ``b`` swapped: the placement candidates,
    the destroyed positions and the industry abilities with the two positions exchanged (the
    entries of a position keep their order: a stable sort); the active lists and the usable
    exhaust abilities (in board order) found again when next asked for (remapping the lists
    measured dearer: bench/README.md)."""
    cache = p[4]
    place = cache.get("place")
    broken = cache.get("broken")
    ind: IndAbilities | None = cache.get("ind")
    cache.clear()
    if place is not None:
        cache["place"] = _swap_positions(place, a, b)
    if broken is not None:
        cache["broken"] = _swap_positions(broken, a, b)
    if ind is not None:  # a few entries: moved and put in board order again (stable sort)
        discounts, repair_q, others = ind
        if discounts:
            discounts = [(b if q == a else a if q == b else q, ref) for q, ref in discounts]
            if len(discounts) > 1:
                discounts.sort(key=_POSITION)
        if repair_q:
            repair_q = [b if q == a else a if q == b else q for q in repair_q]  # (repeats)
            repair_q.sort()
        if others:
            others = [(b if q == a else a if q == b else q, ref, kind)
                      for q, ref, kind in others]
            if len(others) > 1:
                others.sort(key=_POSITION)
        cache["ind"] = (discounts, repair_q, others)


def _swap_positions(positions: list[int], a: int, b: int) -> list[int]:
    """Sorted distinct positions with ``a`` and ``b`` exchanged (the same list when both or
    neither are among them)."""
    if (a in positions) == (b in positions):
        return positions
    out = positions.copy()
    if a in out:
        out.remove(a)
        insort(out, b)
    else:
        out.remove(b)
        insort(out, a)
    return out


PHASES = ("economy", "industry", "disaster", "conflict", "end")
PHASE_OF: dict[str, str] = {ref: ab.phase for ref, ab in ABILITY.items()}
_ENTRY: dict[str, tuple[int, Ability]] = {ref: (PHASES.index(ab.phase), ab)
                                          for ref, ab in ABILITY.items()}


def _inn_at(loc: list[Any], card: str) -> list[Any] | None:
    for inn in loc[2]:
        if inn[0] == card:
            return inn  # type: ignore[no-any-return]
    return None


TILE_TYPE: dict[str, str] = {t: TILE[t].type for t in TILE_IDS}
TILE_VP: dict[str, int] = {t: TILE[t].vp for t in TILE_IDS}


def _count_adjacent(emp: list[Any], pos: int, healthy: bool, kind: str | None = None) -> int:
    n = 0
    for q in _neighbours(pos, len(emp)):
        loc = emp[q]
        if loc[1] == healthy and (kind is None or TILE_TYPE[loc[0]] == kind):
            n += 1
    return n


def _placement(emp: list[Any]) -> list[int]:
    """board.placement_candidates: the healthy locations with the fewest innovations (the
    move ability's, with one location excluded and counted with one innovation less, are
    found from these: ``_ind_step``)."""
    least = 1 << 30
    out: list[int] = []
    for i, loc in enumerate(emp):
        if loc[1]:
            c = len(loc[2])
            if c < least:
                least = c
                out = [i]
            elif c == least:
                out.append(i)
    return out


def _destroy_candidates(emp: list[Any], target: int) -> list[int]:
    if emp[target][1]:
        return [target]
    for d in range(1, len(emp)):
        found = [p for p in (target - d, target + d) if 0 <= p < len(emp) and emp[p][1]]
        if found:
            return found
    return []


def _base_strength(p: list[Any]) -> int:
    total = 0
    for _, _, ab in _active(p, "conflict"):
        if ab.kind == "strength":
            total += ab.amount
    return total


def _repair_cost(p: list[Any], pos: int) -> int:
    cost = TILE[p[2][pos][0]].repair
    for q, _, ab in _active(p, "industry"):
        if ab.kind == "repair_discount_adjacent" and abs(q - pos) == 1:
            cost -= 1
    return max(0, cost)


def _set_exhausted(p: list[Any], card: str, exhausted: bool) -> None:
    pos = _pos_ref(p[2], card)
    if pos is None:
        return
    p[4].pop("usable", None)  # _usable's answers change
    for inn in p[2][pos][2]:
        if inn[0] == card:
            inn[1] = exhausted


def _refresh_positions(p: list[Any], positions: tuple[int, ...] | range) -> None:
    """Every exhausted innovation at ``positions`` ready again (each card is in one place:
    ``_set_exhausted`` of each)."""
    emp = p[2]
    for q in positions:
        for inn in emp[q][2]:
            if inn[1]:
                inn[1] = False
                p[4].pop("usable", None)


def _add(res: list[int], bundle: tuple[tuple[int, int], ...]) -> None:
    """Resources (resource index, amount) added."""
    for r, n in bundle:
        res[r] += n


# ---------------------------------------------------------------------------- economy.py


# per ability: the resources it gains (ability.res) and a conversion's source and outputs,
# as (resource index, amount) pairs
GAINS: dict[str, tuple[tuple[int, int], ...]] = {
    ref: tuple((RI[r], n) for r, n in ab.res) for ref, ab in ABILITY.items()}
CONVERSIONS: dict[str, tuple[int, tuple[tuple[tuple[int, int], ...], ...]]] = {
    ref: (RI[ab.src], tuple(tuple((RI[r], n) for r, n in out) for out in ab.outs))
    for ref, ab in ABILITY.items() if ab.src is not None}


def _effect(p: list[Any], pos: int, ref: str, ab: Ability) -> None:
    kind = ab.kind
    if kind == "gain":
        res = p[0]
        for r, n in GAINS[ref]:
            res[r] += n
        p[1] += ab.vp
    elif kind == "gain_per_adjacent":
        k = _count_adjacent(p[2], pos, True, ab.per)
        res = p[0]
        for r, n in GAINS[ref]:
            res[r] += n * k
        p[1] += ab.vp * k
    elif kind == "vp_per_adjacent_destroyed":
        p[1] += ab.vp * _count_adjacent(p[2], pos, False)
    elif kind == "refresh_adjacent":
        _refresh_positions(p, _neighbours(pos, len(p[2])))


def _econ_begin(f: Fast, seat: int, todo: tuple[str, ...]) -> bool:
    p = f.players[seat]
    conv: list[list[Any]] = []
    repeats: list[str] = []
    res = p[0]
    for pos, ref, ab in p[4].get("economy") or _active(p, "economy"):
        kind = ab.kind
        if kind == "gain":  # _effect's commonest case inline
            for r, n in GAINS[ref]:
                res[r] += n
            p[1] += ab.vp
        elif kind == "convert":
            conv.append([ref, ab.times])
        elif kind == "repeat":
            repeats.append(ref)
        else:
            _effect(p, pos, ref, ab)
    f.work[seat] = ["economy", todo, conv, repeats, 0, False, [], False]  # _work
    return not conv and not repeats


def _econ_step(f: Fast, seat: int, bits: Any, want: bool) -> tuple[bool, Json | None]:
    """``_econ_apply`` of ``rng.choice(economy.legal(...))`` (the contract's order: each
    conversion's options, each repeat's targets, the end): the options counted, the one
    drawn built (whether the seat's economy is over, the action; a conversion's only if
    ``want``)."""
    w = f.work[seat]
    p = f.players[seat]
    res = p[0]
    total = 0
    for source, left in w[2]:
        if left > 0:
            src, outs = CONVERSIONS[source]
            if res[src] >= 1:
                total += len(outs)
    active: list[tuple[int, str, Ability]] = []
    if w[3]:
        active = _active(p, "economy")
        for src in w[3]:
            for _, ref, ab in active:
                if ref != src and ab.kind != "repeat":
                    total += 1
    n = total + 1  # k = below(n), Random._randbelow inline
    width = n.bit_length()
    k = bits(width)
    while k >= n:
        k = bits(width)
    if k == total:
        return True, END_ECONOMY
    for source, left in w[2]:
        if left > 0:
            src, outs = CONVERSIONS[source]
            if res[src] >= 1:
                if k < len(outs):  # a conversion, applied here (_econ_apply)
                    res[src] -= 1
                    for r, n in outs[k]:
                        res[r] += n
                    for c in w[2]:
                        if c[0] == source:
                            c[1] -= 1
                    return False, ({"type": "convert", "source": source, "option": k}
                                   if want else None)
                k -= len(outs)
    for src in w[3]:
        for _, ref, ab in active:
            if ref != src and ab.kind != "repeat":
                if not k:
                    action = {"type": "repeat", "source": src, "target": ref}
                    return _econ_apply(f, seat, action), action
                k -= 1
    raise AssertionError("unreachable")


def _econ_apply(f: Fast, seat: int, action: Any) -> bool:
    w = f.work[seat]
    p = f.players[seat]
    kind = action["type"]
    if kind == "convert":
        src, outs = CONVERSIONS[action["source"]]
        p[0][src] -= 1
        _add(p[0], outs[action["option"]])
        for c in w[2]:
            if c[0] == action["source"]:
                c[1] -= 1
        return False
    if kind == "repeat":
        found = next((pos, ab) for pos, ref, ab in _active(p, "economy")
                     if ref == action["target"])
        pos, ab = found
        w[3] = [r for r in w[3] if r != action["source"]]
        if ab.kind == "convert":
            for c in w[2]:
                if c[0] == action["target"]:
                    c[1] += ab.times
        else:
            _effect(p, pos, action["target"], ab)
        return False
    return True


# ---------------------------------------------------------------------------- industry.py


_PAIRS: dict[int, list[tuple[int, int]]] = {}


def _pair(n: int, k: int) -> tuple[int, int]:
    """The k-th (a, b), a < b, in ``for a in range(n) for b in range(a + 1, n)`` order."""
    pairs = _PAIRS.get(n)
    if pairs is None:
        pairs = _PAIRS[n] = [(a, b) for a in range(n) for b in range(a + 1, n)]
    return pairs[k]


IndAbilities = tuple[list[tuple[int, str]], list[int], list[tuple[int, str, str]]]


def _ind_abilities(p: list[Any]) -> IndAbilities:
    """The active industry abilities by use: build discounts (pos, ref), repair discounts
    (positions), the rest (pos, ref, kind), each in board order; remembered like
    ``_active`` (a swap moves them: ``_swapped``)."""
    got: IndAbilities | None = p[4].get("ind")
    if got is None:
        discounts: list[tuple[int, str]] = []
        repair_q: list[int] = []
        others: list[tuple[int, str, str]] = []
        got = p[4]["ind"] = (discounts, repair_q, others)
        for pos, ref, ab in _active(p, "industry"):
            kind = ab.kind
            if kind == "build_discount":
                discounts.append((pos, ref))
            elif kind == "repair_discount_adjacent":
                repair_q.append(pos)
            elif kind in ("swap", "move_innovation", "refresh_one_adjacent"):
                others.append((pos, ref, kind))
    return got


COST: dict[str, int] = {c: CARD[c].cost for c in CARD_IDS}
# a card's cost to build without and with a build discount (one Hammer off: EEND-12)
COSTS: tuple[dict[str, int], dict[str, int]] = (COST, {c: max(0, k - 1) for c, k in COST.items()})
REPAIR: dict[str, int] = {t: TILE[t].repair for t in TILE_IDS}


def _ind_step(f: Fast, seat: int, bits: Any, want: bool
              ) -> tuple[bool, Json | None]:
    """industry.apply of ``rng.choice(industry.legal(...))`` (the contract's list, in its
    order), counting the options and building only the one drawn (a hand of four cards and
    a City's swap are over a hundred dicts); a build, a sale and the end applied from what
    the count knows, the rarer moves by ``_ind_apply``. A payment's options
    (board.pay_options) are the coins ``lo`` .. ``hi``: at least what the hammers leave, at
    most the cost and the coins held; a card's builds are (hi - lo + 1) x the placement
    candidates, none when the hammers and coins do not reach its cost. (whether the seat's
    industry is over, the action if ``want``)"""
    w = f.work[seat]
    p = f.players[seat]
    emp = p[2]
    res = p[0]
    cache = p[4]
    hand = p[3]
    ind = cache.get("ind")
    if ind is None:
        ind = _ind_abilities(p)
    discounts, repair_q, others = ind
    used = w[6]
    coin = res[3]
    hammer = res[1]
    total = 0  # the options counted so far
    counts: list[int] = []  # per card in hand: its builds, then its sale
    if w[4] < 2 and hand:
        cands = cache.get("place")
        if cands is None:
            cands = cache["place"] = _placement(emp)
        nc = len(cands)
        discount = 0
        for _, source in discounts:
            if source not in used:
                discount = 1
                break
        cost_of = COSTS[discount]
        budget = coin + hammer
        for card in hand:
            cost = cost_of[card]
            if budget >= cost:
                c = ((cost if cost < coin else coin) - (cost - hammer if cost > hammer else 0)
                     + 1) * nc + 1
            else:
                c = 1
            counts.append(c)
            total += c
    n_hand = total
    # the rest (options, kind, what, lo): kind 2 a repair, 3 an ability or the discard
    segments: list[tuple[int, int, Any, int]] = []
    if not w[5]:
        broken = cache.get("broken")
        if broken is None:
            broken = cache["broken"] = [pos for pos, loc in enumerate(emp) if not loc[1]]
        for pos in broken:
            cost = REPAIR[emp[pos][0]]
            for q in repair_q:
                if q - pos == 1 or pos - q == 1:
                    cost -= 1
            if cost < 0:
                cost = 0
            lo = cost - hammer if cost > hammer else 0
            hi = cost if cost < coin else coin
            if hi >= lo:
                segments.append((hi - lo + 1, 2, (pos, cost), lo))
                total += hi - lo + 1
    for pos, ref, kind in others:
        if ref in used:
            continue
        if kind == "swap":
            n = len(emp)
            segments.append((n * (n - 1) // 2, 3, ("swap", ref), 0))
            total += n * (n - 1) // 2
        elif kind == "move_innovation":  # per location: its innovations x targets
            # _placement(emp, exclude=q, minus=q) from the candidates: none when q, one
            # innovation less, would be the only fewest; else the candidates but q
            base = cache.get("place")
            if base is None:
                base = cache["place"] = _placement(emp)
            least = len(emp[base[0]][2]) if base else 0
            n_base = len(base)
            for q, loc in enumerate(emp):
                inns = loc[2]
                if inns:
                    if loc[1] and len(inns) - 1 < least:
                        continue
                    n_targets = n_base - 1 if q in base else n_base
                    if n_targets:
                        segments.append((len(inns) * n_targets, 3, ("move", ref, q, base), 0))
                        total += len(inns) * n_targets
        else:  # refresh_one_adjacent
            refresh = [{"type": "refresh", "source": ref, "card": inn[0]}
                       for q in _neighbours(pos, len(emp)) for inn in emp[q][2] if inn[1]]
            if refresh:
                segments.append((len(refresh), 3, ("list", refresh), 0))
                total += len(refresh)
    if w[4] >= 2 and hand and not w[7]:
        segments.append((1, 3, ("list", [DISCARD_HAND]), 0))
        total += 1
    n = total + 1  # + end_industry, always last: k = below(n), Random._randbelow inline
    width = n.bit_length()
    k = bits(width)
    while k >= n:
        k = bits(width)
    if k == total:
        while w[4] < 2 and p[3]:
            _sell(f, seat, p[3][-1])
        return True, END_INDUSTRY
    action: Json
    if k < n_hand:
        i = 0
        while k >= counts[i]:
            k -= counts[i]
            i += 1
        c = counts[i]
        card = hand[i]
        if k == c - 1:  # the sale
            _sell(f, seat, card)
            return False, {"type": "sell", "card": card} if want else None
        # a build, applied here
        nc = len(cands)
        pos = cands[k % nc]
        cost = cost_of[card]
        coins = (cost - hammer if cost > hammer else 0) + k // nc
        if discount:
            used.append(source)
        res[3] -= coins
        res[1] -= cost - coins
        p[3] = [c for c in hand if c != card]
        emp[pos][2].append([card, False])
        _innovation_added(p, pos, card)
        w[4] += 1
        if not want:
            return False, None
        return False, {"type": "build", "card": card, "tile": emp[pos][0], "coins": coins}
    k -= n_hand
    for count, kind, what, lo in segments:
        if k >= count:
            k -= count
            continue
        if kind == 2:  # a repair, applied here (industry._repair)
            pos, cost = what
            coins = lo + k
            _ind_pay(p, cost, coins)
            emp[pos][1] = True
            _repaired(p, pos)
            w[5] = True
            return False, ({"type": "repair", "tile": emp[pos][0], "coins": coins}
                           if want else None)
        elif what[0] == "move":
            _, ref, q, base = what
            targets = [d for d in base if d != q]
            action = {"type": "move", "source": ref, "card": emp[q][2][k // len(targets)][0],
                      "tile": emp[targets[k % len(targets)]][0]}
        elif what[0] == "swap":  # applied here: the positions are known
            a, b = _pair(len(emp), k)
            swap = ({"type": "swap", "source": what[1], "a": emp[a][0], "b": emp[b][0]}
                    if want else None)
            emp[a], emp[b] = emp[b], emp[a]
            _swapped(p, a, b)
            used.append(what[1])
            return False, swap
        else:
            action = what[1][k]
        return _ind_apply(f, seat, action), action
    raise AssertionError("unreachable")


def _ind_pay(p: list[Any], cost: int, coins: int) -> None:
    p[0][3] -= coins
    p[0][1] -= cost - coins


def _sell(f: Fast, seat: int, card: str) -> None:
    p = f.players[seat]
    p[3] = [c for c in p[3] if c != card]
    p[0][3] += 1
    f.work[seat][4] += 1
    f.discard.append(card)


def _ind_apply(f: Fast, seat: int, action: Any) -> bool:
    """industry.apply of a repair, a hand discarded or an ability (``_ind_step`` applies
    builds, sales and the end itself)."""
    w = f.work[seat]
    p = f.players[seat]
    kind = action["type"]
    if kind == "repair":
        pos = _pos_tile(p[2], action["tile"])
        assert pos is not None
        _ind_pay(p, _repair_cost(p, pos), action["coins"])
        p[2][pos][1] = True
        _repaired(p, pos)
        w[5] = True
        return False
    if kind == "discard_hand":
        f.discard.extend(p[3])
        p[3] = []
        w[7] = True
        return False
    emp = p[2]
    if kind == "swap":
        a, b = _pos_tile(emp, action["a"]), _pos_tile(emp, action["b"])
        assert a is not None and b is not None
        emp[a], emp[b] = emp[b], emp[a]
        _swapped(p, a, b)
    elif kind == "move":
        q, d = _pos_ref(emp, action["card"]), _pos_tile(emp, action["tile"])
        assert q is not None and d is not None
        inn = _inn_at(emp[q], action["card"])
        assert inn is not None
        emp[q][2] = [i for i in emp[q][2] if i[0] != action["card"]]
        emp[d][2].append(inn)
        _moved(p, inn[0], d)
    else:  # refresh
        _set_exhausted(p, action["card"], False)
    w[6].append(action["source"])
    return False


# ---------------------------------------------------------------------------- disaster.py


def _open_slots(d: list[Any]) -> list[int]:
    return [i for i, s in enumerate(d[0]) if s[0] is not None and not s[2]]


def _pending_reveal(d: list[Any]) -> int | None:
    for i, s in enumerate(d[0]):
        if s[0] is None and not s[2]:
            return i
    return None


def _usable(f: Fast, seat: int, kind: str) -> list[str]:
    """disaster.usable of ``kind`` (free_bid or replace_disaster, the disaster phase's
    abilities: all innovations); both remembered in ``p[4]`` until the empire or an exhaust
    marker changes."""
    p = f.players[seat]
    usable: dict[str, list[str]] | None = p[4].get("usable")
    if usable is None:
        free: list[str] = []
        replace: list[str] = []
        emp = p[2]
        for pos, ref, ab in _active(p, "disaster"):
            inn = _inn_at(emp[pos], ref)
            if inn is not None and not inn[1]:
                if ab.kind == "free_bid":
                    free.append(ref)
                elif ab.kind == "replace_disaster":
                    replace.append(ref)
        usable = p[4]["usable"] = {"free_bid": free, "replace_disaster": replace}
    return usable[kind]


# per disaster card: the resources a seat may bid on it (card.bids, then coin unless it is
# one of them), and per free-bid card the resource it bids (EEND-8)
BID_OPTIONS: dict[str, tuple[tuple[str, int], ...]] = {
    c: tuple((r, RI[r]) for r in (*CARD[c].bids, "coin")
             if r != "coin" or "coin" not in CARD[c].bids) for c in CARD_IDS}
FREE_RESOURCE: dict[str, str | None] = {c: CARD[c].ability.resource for c in CARD_IDS}
NO_FREES: list[str] = []  # (read only)
CARD_BIDS: dict[str, tuple[str, ...]] = {c: CARD[c].bids for c in CARD_IDS}
# per disaster card and the resources a seat holds (bit ``ri`` of the mask: some of
# resource ``ri``): its bid options and their number
BIDS: dict[str, tuple[tuple[tuple[tuple[str, int], ...], int], ...]] = {
    c: tuple((opts, len(opts)) for opts in (
        tuple(b for b in BID_OPTIONS[c] if mask >> b[1] & 1) for mask in range(16)))
    for c in CARD_IDS}


def _dis_step(f: Fast, seat: int, below: Any, bits: Any, want: bool
              ) -> tuple[Json | None, bool]:
    """``_dis_apply`` of ``rng.choice(disaster.legal(...))`` (the contract's list, in its
    order), counting the options and building only the one drawn; a bid applied from the
    count, and settled (``_settle`` after a bid: no resolution, no disaster to reveal, the
    same open slots). (the action, None for a bid, a take, a destroy, a place or a shore-up
    unless ``want``; whether ``_advance`` is still to run)"""
    d = f.disaster
    assert d is not None
    action: Json
    res = d[3]
    if res is not None:
        stage = res[3]
        if stage == "destroy" or stage == "place":  # the position from the candidates
            cands = res[5]
            if cands is not None:
                n = len(cands)  # cands[below(n)], Random._randbelow inline
                width = n.bit_length()
                c = bits(width)
                while c >= n:
                    c = bits(width)
                pos = cands[c]
                tile = f.players[seat][2][pos][0] if want else ""
            else:  # (from_state: the choices by tile)
                tile = res[4][below(len(res[4]))]
                pos = _pos_tile(f.players[seat][2], tile)
            if stage == "destroy":
                _destroy(f, seat, pos)
                _set_stage(f, "place")
            else:
                _place(f, seat, pos)
                _set_stage(f, "shore")
            _progress(f)
            return {"type": stage, "tile": tile} if want else None, True
        p = f.players[seat]  # shore up (EEND-9), applied here (_dis_apply)
        pres = p[0]
        n = LOW_RESOURCES - pres[0] - pres[1] - pres[2] - pres[3]  # below(max(0, n) + 1)
        if n > 0:
            n += 1
            width = n.bit_length()
            coins = bits(width)
            while coins >= n:
                coins = bits(width)
        else:  # below(1): 1-bit draws until a 0
            while bits(1):
                pass
            coins = 0
        if coins > 0:
            p[1] -= LOW_RESOURCES_VP_PER_COIN * coins
            p[0][3] += coins
        d[3] = None
        return {"type": "shore_up", "coins": coins} if want else None, True
    p = f.players[seat]
    pres = p[0]
    mask = (pres[0] > 0) | (pres[1] > 0) << 1 | (pres[2] > 0) << 2 | (pres[3] > 0) << 3
    addressed = d[2]
    usable = p[4].get("usable")  # _usable, its remembered answers first
    if usable is None:
        _usable(f, seat, "free_bid")
        usable = p[4]["usable"]
    free = usable["free_bid"]
    replace = usable["replace_disaster"]
    n_open = 0  # len(_open_slots(d))
    slots: list[tuple[int, tuple[tuple[str, int], ...], int, list[str]]] = []
    total = 0
    for i, s in enumerate(d[0]):
        card = s[0]
        if card is None or s[2]:
            continue
        n_open += 1
        if i in addressed:
            continue
        bids, nb = BIDS[card][mask]
        if free:
            frees = [ref for ref in free if FREE_RESOURCE[ref] in CARD_BIDS[card]]
            slots.append((i, bids, nb, frees))
            total += nb + len(frees) + 1
        else:
            slots.append((i, bids, nb, NO_FREES))
            total += nb + 1
    n_replace = len(replace) * n_open
    end = 1 if n_replace and not slots else 0  # every open disaster addressed
    n = total + n_replace + end  # k = below(n), Random._randbelow inline
    width = n.bit_length()
    k = bits(width)
    while k >= n:
        k = bits(width)
    for i, bids, nb, frees in slots:
        if k < nb:  # _dis_apply's bid
            r, ri = bids[k]
            pres[ri] -= 1
            d[0][i][1][ri] += 1
            addressed.append(i)
            if len(slots) == 1 and not replace:  # every open disaster addressed: the next
                _next_bidder(f)  # bidder, unless one may replace (a bid changes no exhaust)
            return {"type": "bid", "disaster": i, "resource": r} if want else None, False
        k -= nb
        if frees:
            if k < len(frees):
                action = {"type": "free_bid", "disaster": i, "card": frees[k]}
                break
            k -= len(frees)
        if k == 0:
            _take(f, seat, i)
            return {"type": "take", "disaster": i} if want else None, True
        k -= 1
    else:
        if k < n_replace:
            action = {"type": "replace", "disaster": _open_slots(d)[k % n_open],
                      "card": replace[k // n_open]}
        else:
            action = END_TURN
    _dis_apply(f, seat, action)
    return action, True


def _next_bidder(f: Fast) -> None:
    d = f.disaster
    assert d is not None
    d[1] = (d[1] + 1) % f.n
    d[2] = []


def _dis_apply(f: Fast, seat: int, action: Any) -> None:
    d = f.disaster
    assert d is not None
    kind = action["type"]
    p = f.players[seat]
    if kind == "bid":
        r = RI[action["resource"]]
        p[0][r] -= 1
        d[0][action["disaster"]][1][r] += 1
        d[2].append(action["disaster"])
    elif kind == "free_bid":  # EEND-8
        _set_exhausted(p, action["card"], True)
        d[2].append(action["disaster"])
    elif kind == "replace":  # EEND-7: bids stay with the new disaster
        old = d[0][action["disaster"]]
        _set_exhausted(p, action["card"], True)
        f.discard.append(old[0] or "")
        old[0] = None
    elif kind == "end_turn":
        _next_bidder(f)
    elif kind == "take":
        _take(f, seat, action["disaster"])
    elif kind == "destroy":
        _destroy(f, seat, _pos_tile(p[2], action["tile"]))
        _set_stage(f, "place")
        _progress(f)
    elif kind == "place":
        _place(f, seat, _pos_tile(p[2], action["tile"]))
        _set_stage(f, "shore")
        _progress(f)
    else:  # shore_up (EEND-9)
        coins = action["coins"]
        if coins > 0:
            p[1] -= LOW_RESOURCES_VP_PER_COIN * coins
            p[0][3] += coins
        d[3] = None


def _take(f: Fast, seat: int, i: int) -> None:
    d = f.disaster
    assert d is not None
    slot = d[0][i]
    card = slot[0] or ""
    pool = f.players[seat][0]
    bid = slot[1]
    pool[0] += bid[0]
    pool[1] += bid[1]
    pool[2] += bid[2]
    pool[3] += bid[3]
    d[0][i] = [None, [0, 0, 0, 0], True]
    d[2].append(i)
    for s in d[0]:  # none open, none to reveal: every slot closed (EEND-6)
        if not s[2]:
            break
    else:
        f.first = seat
    d[3] = [seat, card, CARD[card].target - 1, "destroy", (), None]
    _progress(f)


def _set_stage(f: Fast, stage: str) -> None:
    assert f.disaster is not None
    res = f.disaster[3]
    res[3], res[4], res[5] = stage, (), None


def _progress(f: Fast) -> None:
    d = f.disaster
    assert d is not None
    res = d[3]
    p = f.players[res[0]]
    if res[3] == "destroy":
        cands = _destroy_candidates(p[2], res[2])  # EEND-4
        if len(cands) > 1:
            res[4] = None  # the tiles at the positions (to_state)
            res[5] = cands
            return
        _destroy(f, res[0], cands[0] if cands else None)
        _set_stage(f, "place")
    if res[3] == "place":
        cands = p[4].get("place")
        if cands is None:
            cands = p[4]["place"] = _placement(p[2])
        if len(cands) > 1:
            res[4] = None  # the tiles at the positions (to_state)
            res[5] = cands
            return
        _place(f, res[0], cands[0] if cands else None)
        _set_stage(f, "shore")
    if f.options.low_resources_rule:
        return
    d[3] = None


def _destroy(f: Fast, seat: int, pos: int | None) -> None:
    if pos is not None:
        f.players[seat][2][pos][1] = False
        _destroyed(f.players[seat], pos)


def _place(f: Fast, seat: int, pos: int | None) -> None:
    assert f.disaster is not None
    card = f.disaster[3][1]
    if pos is None:  # EEND-5
        f.discard.append(card)
        return
    f.players[seat][2][pos][2].append([card, False])  # EEND-25
    _innovation_added(f.players[seat], pos, card)


def _settle(f: Fast) -> bool:
    """disaster.settle: (phase over); stops early when a reshuffle is needed."""
    d = f.disaster
    assert d is not None
    slots = d[0]
    for s in slots:  # each disaster to reveal, in order (_pending_reveal)
        if s[0] is None and not s[2]:
            if f.deck:
                s[0] = f.deck.pop(0)
            elif f.discard and f.options.reshuffle_discards:
                return False
            else:
                s[2] = True
    if d[3] is not None:
        return False
    addressed = d[2]
    some = False  # _open_slots
    for i, s in enumerate(slots):
        if s[0] is not None and not s[2]:
            if i not in addressed:
                return False
            some = True
    if not some:
        return True
    if not _usable(f, d[1], "replace_disaster"):  # disaster._replace_options (opened: some)
        _next_bidder(f)
    return False


# ---------------------------------------------------------------------------- conflict.py


def _reward(p: list[Any], reward: Reward) -> None:
    p[1] += reward.vp
    _add(p[0], REWARD_RES[reward.res])
    if reward.refresh:  # EEND-16
        _refresh_positions(p, range(len(p[2])))


# a conflict reward's resources as (resource index, amount); a location's VP * 16 (its
# position below: the upheaval's order, positions < 16)
REWARD_RES: dict[Any, tuple[tuple[int, int], ...]] = {
    rw.res: tuple((RI[r], n) for r, n in rw.res)
    for c in CONFLICT.values() for rw in (c.tier2, c.tier3, c.victory)}
VP_KEY: dict[str, int] = {t: TILE[t].vp * 16 for t in TILE_IDS}
assert len(TILE_IDS) <= 16


def _resolve_conflict(f: Fast, bids: list[tuple[int, int]]) -> None:
    assert f.conflict_card is not None
    card = CONFLICT[f.conflict_card]
    totals = [_base_strength(p) + a + c for p, (a, c) in zip(f.players, bids, strict=True)]
    best = max(totals)
    for seat, p in enumerate(f.players):
        axes, coins = bids[seat]
        p[0][2] -= axes
        p[0][3] -= coins
        strength = totals[seat]
        if strength >= card.tier3_min:
            _reward(p, card.tier3)
        elif strength >= card.tier2_min:
            _reward(p, card.tier2)
        elif strength <= card.penalty_max:
            p[1] -= card.penalty_vp
        if strength == best:  # EEND-15
            _reward(p, card.victory)
        else:  # upheaval
            emp = p[2]
            # the healthy locations by VP, highest first (all distinct: EEND-15), as VP *
            # 16 + position
            healthy = [VP_KEY[loc[0]] + i for i, loc in enumerate(emp) if loc[1]]
            rank = card.upheaval_rank
            if len(healthy) >= rank:
                if rank == 1:
                    src = max(healthy) & 15
                else:
                    healthy.sort(reverse=True)
                    src = healthy[rank - 1] & 15
                dst = card.upheaval_pos - 1
                if src != dst:
                    emp[src], emp[dst] = emp[dst], emp[src]
                    _swapped(p, src, dst)
    f.conflict_discard.append(card.id)
    f.conflict_card = None


# ---------------------------------------------------------------------------- engine.py


def _enter(f: Fast, seat: int, sub: str, todo: tuple[str, ...]) -> None:
    if sub == "industry":
        f.work[seat] = _work("industry", todo)
        return
    if _econ_begin(f, seat, todo):
        _finish_sub(f, seat)


def _finish_sub(f: Fast, seat: int) -> None:
    w = f.work[seat]
    if w[1]:
        _enter(f, seat, w[1][0], w[1][1:])
        return
    f.work[seat] = _work("done")


def _act(f: Fast, seat: int, action: Any) -> None:
    if f.phase in DISASTER_PHASES:
        _dis_apply(f, seat, action)
        return
    if action["type"] == "choose_order":  # EEND-22
        if action["first"] == "economy":
            _enter(f, seat, "economy", ("industry",))
        else:
            _enter(f, seat, "industry", ("economy",))
        return
    if f.work[seat][0] == "economy":
        done = _econ_apply(f, seat, action)
    else:
        done = _ind_apply(f, seat, action)
    if done:
        _finish_sub(f, seat)


def _chance(f: Fast, values: list[int]) -> None:
    if f.phase_index >= 0:  # EEND-19
        f.deck = [f.discard[i] for i in values]
        f.discard = []
        f.reshuffles += 1
        return
    step = f.setup_step
    if step == 0:
        f.order = tuple(TILE_IDS[i] for i in values)
        for p in f.players:
            p[2] = [[t, True, []] for t in f.order]
            _changed(p)
        if not f.options.random_first_player:
            f.setup_step, f.first = 2, 0
            return
    elif step == 1:
        f.first = values[0]
    elif step == 2:
        f.deck = [CARD_IDS[i] for i in values]
    else:
        f.conflict_deck = [CONFLICT_IDS[i] for i in values]
        for k in range(f.n):  # _deal
            seat = (f.first + k) % f.n
            f.players[seat][3] = f.deck[:HAND_SIZE]
            f.deck = f.deck[HAND_SIZE:]
        f.setup_step = 4
        _set_index(f, -1)
        _next_phase(f)
        return
    f.setup_step = step + 1


def _next_phase(f: Fast) -> None:
    _set_index(f, f.phase_index + 1)
    f.disaster = None
    f.work = []
    if f.phase_index >= len(f.track):
        return
    kind = f.phase
    if kind in DISASTER_PHASES:
        f.disaster = [[[None, [0, 0, 0, 0], False]
                       for _ in range(2 if kind == "double_disaster" else 1)],
                      f.first, [], None]
        return
    if kind == "conflict":
        if not f.conflict_deck:
            _next_phase(f)
            return
        f.conflict_card = f.conflict_deck.pop(0)
        return
    if kind == "industry":  # _enter(f, seat, "industry", ()) for each seat
        f.work = [_work("industry") for _ in f.players]
    elif kind == "economy":
        f.work = [[]] * f.n  # (each seat's replaced by _enter)
        for seat in range(f.n):
            _enter(f, seat, "economy", ())
    else:  # industry_economy
        f.work = [_work("choose") for _ in f.players]


def _advance(f: Fast) -> None:
    end = len(f.track)
    while 0 <= f.phase_index < end and (f.deck or not _needs_reshuffle(f)):
        kind = f.phase
        if kind in DISASTER_PHASES:
            if not _settle(f):
                return
            _next_phase(f)
            continue
        if kind == "conflict":
            return
        if f.work:
            for w in f.work:
                if w[0] != "done":
                    return
            queue: list[int] = []
            if kind != "economy" and f.phase_index != len(f.track) - 1:
                queue = [(f.first + k) % f.n for k in range(f.n)]
            f.work = []
            f.draw_queue = queue
        if f.draw_queue:
            _draw(f)
            if f.draw_queue:
                return
        _next_phase(f)


def _draw(f: Fast) -> None:
    while f.draw_queue:
        seat = f.draw_queue[0]
        hand = f.players[seat][3]
        if len(hand) >= HAND_SIZE:
            f.draw_queue.pop(0)
            continue
        if f.deck:
            hand.append(f.deck.pop(0))
            continue
        if f.discard and f.options.reshuffle_discards:
            return
        f.draw_queue.pop(0)


def _needs_reshuffle(f: Fast) -> bool:
    if f.deck or not f.discard or not f.options.reshuffle_discards:
        return False
    if f.phase in DISASTER_PHASES and f.disaster is not None:
        return _pending_reveal(f.disaster) is not None
    if f.draw_queue and not f.work:
        return any(len(f.players[s][3]) < HAND_SIZE for s in f.draw_queue)
    return False


# ---------------------------------------------------------------------------- playouts


def playout(f: Fast, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``f`` on (in place) with random seats to the end or ``max_steps`` moves.

    A work or disaster phase plays its steps in an inner loop until a step runs
    ``_advance`` (only then can the phase change or a reshuffle be needed: a step that
    leaves the acting seat working, a bid, or a resolution under way with nothing to reveal
    changes neither)."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the same draws
    # as _kit.playout's random seats (the property test pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    getrandbits = rng.getrandbits
    shuffle = shuffle_drawer(key)
    out = FastPlayout(state=f)
    want = on_step is not None
    move: FastMove = ("", None, None)
    action: Json | None
    steps = 0
    n_track = len(f.track)
    while steps < max_steps:
        pi = f.phase_index
        if pi < 0:  # setup draws
            label, kind, n = SETUP_CHANCES[f.setup_step]
            values = shuffle(label, n) if kind == "shuffle" else draw(key, label, kind, f.n)
            if want:
                move = ("chance", label, tuple(values))
            _chance(f, values)
            if f.phase_index >= 0:
                _advance(f)
        elif pi >= n_track:
            out.finished = True
            break
        elif not f.deck and _needs_reshuffle(f):  # EEND-19
            label = f"deck:disaster:shuffle:{f.reshuffles + 1}"
            values = shuffle(label, len(f.discard))
            if want:
                move = ("chance", label, tuple(values))
            _chance(f, values)
            _advance(f)
        else:
            phase = f.phase
            if phase in WORK_PHASES:
                work = f.work
                # the seats still working (only the acting seat's work ends in a step): while
                # some work, _advance has nothing to do
                waiting = [s for s, w in enumerate(work) if w[0] != "done"]
                n = len(waiting)  # seat = waiting[below(n)], Random._randbelow inline
                width = n.bit_length()
                while True:
                    k = getrandbits(width)
                    while k >= n:
                        k = getrandbits(width)
                    seat = waiting[k]
                    stage = work[seat][0]
                    if stage == "industry":
                        done, action = _ind_step(f, seat, getrandbits, want)
                    elif stage == "economy":
                        done, action = _econ_step(f, seat, getrandbits, want)
                    else:  # choose (EEND-22)
                        k = getrandbits(2)  # below(2), Random._randbelow inline
                        while k >= 2:
                            k = getrandbits(2)
                        action = CHOOSE[k]
                        _act(f, seat, action)
                        done = False
                    if done:
                        _finish_sub(f, seat)
                    steps += 1
                    if work[seat][0] == "done":
                        if n == 1:  # the last seat done (else _advance has nothing to do)
                            _advance(f)
                            if want:
                                on_step(f, ("act", seat, action))  # type: ignore[misc]
                            break
                        waiting.remove(seat)
                        n -= 1
                        width = n.bit_length()
                    if want:
                        on_step(f, ("act", seat, action))  # type: ignore[misc]
                    if steps >= max_steps:
                        break
                continue
            if phase == "conflict":
                bids = []
                choices: dict[str, Json] = {}
                for seat, p in enumerate(f.players):
                    coins = p[0][3] + 1
                    k = below((p[0][2] + 1) * coins)
                    bids.append((k // coins, k % coins))
                    if want:
                        choices[f"s{seat}"] = {"axes": k // coins, "coins": k % coins}
                if want:
                    move = ("joint", f"conflict:{f.phase_index + 1}", choices)
                _resolve_conflict(f, bids)
                _next_phase(f)
                _advance(f)
            else:  # a disaster phase
                d = f.disaster
                assert d is not None
                while True:
                    while getrandbits(1):  # play's rng.choice of the one awaited seat
                        pass  # (rng._randbelow(1): 1-bit draws until a 0)
                    seat = d[3][0] if d[3] is not None else d[1]
                    action, more = _dis_step(f, seat, below, getrandbits, want)
                    steps += 1
                    if more and (d[3] is None or _pending_reveal(d) is not None):  # (with a
                        # resolution under way and nothing to reveal _advance does nothing)
                        _advance(f)
                        if want:
                            on_step(f, ("act", seat, action))  # type: ignore[misc]
                        break
                    if want:
                        on_step(f, ("act", seat, action))  # type: ignore[misc]
                    if steps >= max_steps:
                        break
                continue
        steps += 1
        if want:
            on_step(f, move)  # type: ignore[misc]
    out.steps = steps
    return out


play_random = random_player(setup, playout)
