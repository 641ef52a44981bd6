"""Industry phase: two builds/sells, one repair, industry abilities, in any order (EEND-11..14).

Each seat acts on its own (EEND-22). Costs: a card costs 1 Hammer (2 for "+Hammer" cards);
each unused healthy discount ability (Towns, EEND-12) takes 1 off one build, one per card, so
two Towns never make a +Hammer card free. Discounts are applied automatically (each saves
exactly one Hammer on any build, so the order never matters). Coins replace Hammers; the
action names how many coins pay. Drawing back to 4 happens when every seat has finished, in
clockwise order from the first player (see engine), so the shared deck order does not depend
on who finished first. The steps change the state in place (a clone, see ``state.py``).
"""

from __future__ import annotations

import functools
from operator import itemgetter

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import ActJson
from shared.rules.empires_end.data import CARD, TILE
from shared.rules.empires_end.state import (
    FRESH,
    Location,
    Player,
    SeatWork,
    State,
    SubPhase,
    location,
    seat_work,
    set_work,
)


def begin(state: State, seat: int, todo: tuple[SubPhase, ...]) -> None:
    set_work(state, seat, seat_work("industry", todo))


def discount_sources(p: Player, w: SeatWork) -> list[str]:
    """Healthy build-discount abilities not used yet this phase (EEND-12)."""
    return [
        ref
        for _, ref, ab in board.active(p, "industry")
        if ab.kind == "build_discount" and ref not in w.used
    ]


def build_cost(p: Player, w: SeatWork, card: str) -> int:
    return max(0, CARD[card].cost - (1 if discount_sources(p, w) else 0))


def _without(empire: tuple[Location, ...], pos: int, card: str) -> tuple[Location, ...]:
    items = list(empire)
    loc = items[pos]
    items[pos] = location(loc.tile, loc.healthy,
                          tuple(i for i in loc.innovations if i.card != card))
    return tuple(items)


_DISCARD: Json = {"type": "discard_hand"}  # (made once: a listed action is never changed)
_END: Json = {"type": "end_industry"}
# The listed actions, each dict made once and shared by every list that offers it (a listed
# action is never changed, as a state is never changed):
# card -> coins -> tile -> build; card -> sell; tile -> coins -> repair
_BUILD: dict[str, tuple[dict[str, Json], ...]] = {
    c: tuple({t: {"type": "build", "card": c, "tile": t, "coins": k} for t in TILE}
             for k in range(CARD[c].cost + 1)) for c in CARD}
_SELL: dict[str, Json] = {c: {"type": "sell", "card": c} for c in CARD}
_REPAIR_COST: dict[str, int] = {t: TILE[t].repair for t in TILE}  # printed, before discounts
_REPAIR: dict[str, tuple[Json, ...]] = {
    t: tuple({"type": "repair", "tile": t, "coins": k} for k in range(TILE[t].repair + 1))
    for t in TILE}
# source -> tile a -> tile b -> swap; source -> card -> tile -> move; (source, card) -> refresh
_SWAP: dict[str, dict[str, dict[str, Json]]] = {}
_MOVE: dict[str, dict[str, dict[str, Json]]] = {}
_REFRESH: dict[tuple[str, str], Json] = {}


def _swaps(source: str) -> dict[str, dict[str, Json]]:
    got = _SWAP.get(source)
    if got is None:
        got = _SWAP[source] = {a: {b: {"type": "swap", "source": source, "a": a, "b": b}
                                   for b in TILE} for a in TILE}
    return got


def _moves(source: str) -> dict[str, dict[str, Json]]:
    got = _MOVE.get(source)
    if got is None:
        got = _MOVE[source] = {c: {t: {"type": "move", "source": source, "card": c, "tile": t}
                                   for t in TILE} for c in CARD}
    return got


def _refresh(source: str, card: str) -> Json:
    got = _REFRESH.get((source, card))
    if got is None:
        got = _REFRESH[(source, card)] = {"type": "refresh", "source": source, "card": card}
    return got


# (swap source, tile order) -> its listed swaps: the order changes only by a swap or an
# upheaval, so a seat's list is asked for again and again (small, as ``board.ACTIVE_MAX``)
_SWAP_LISTS: dict[tuple[str, tuple[str, ...]], tuple[Json, ...]] = {}


def _swap_list(source: str, names: tuple[str, ...]) -> tuple[Json, ...]:
    """EEND-14: every swap of two locations (healthy or destroyed), in position order."""
    got = _SWAP_LISTS.get((source, names))
    if got is None:
        swaps = _swaps(source)
        got = tuple([swaps[names[a]][names[b]] for a, b in _pairs(len(names))])
        if len(_SWAP_LISTS) >= board.ACTIVE_MAX:
            _SWAP_LISTS.clear()
        _SWAP_LISTS[(source, names)] = got
    return got


def legal(state: State, seat: int) -> list[Json]:
    w = state.work[seat]
    p = state.players[seat]
    emp = p.empire
    industry, tiles, destroyed, names = board.industry_view(emp)
    used = w.used
    res = p.res
    hammer, coin = res.hammer, res.coin
    out: list[Json] = []
    hand = p.hand
    n = len(tiles)
    pick = itemgetter(*tiles) if n > 1 else None  # a row's actions at the placement tiles
    if w.acts < 2 and hand:
        discount = 0  # EEND-12: an unused healthy discount ability
        for _, ref, ab in industry:
            if ab.kind == "build_discount" and ref not in used:
                discount = 1
                break
        for card in hand:
            if n:
                builds = _BUILD[card]
                cost = len(builds) - 1 - discount
                if cost < 0:
                    cost = 0
                low = cost - hammer  # board.pay_options: k coins and cost - k Hammers
                for k in range(low if low > 0 else 0, (cost if cost < coin else coin) + 1):
                    if pick is not None:
                        out += pick(builds[k])
                    else:
                        out.append(builds[k][tiles[0]])
            out.append(_SELL[card])
    if not w.repaired and destroyed:  # EEND-13: one repair per phase
        # board.repair_cost's discounts, looked up once (a loop: no comprehension's frame)
        discounts = []
        for q, _, ab in industry:
            if ab.kind == "repair_discount_adjacent":
                discounts.append(q)
        for pos in destroyed:
            tile = emp[pos].tile
            cost = _REPAIR_COST[tile]
            for q in discounts:
                if q == pos - 1 or q == pos + 1:
                    cost -= 1
            if cost < 0:
                cost = 0
            low = cost - hammer  # board.pay_options, as a run of the tile's repairs by coins
            if low < 0:
                low = 0
            high = (cost if cost < coin else coin) + 1
            if high > low:
                out += _REPAIR[tile][low:high]
    for pos, ref, ab in industry:
        if ref in used:
            continue
        kind = ab.kind
        if kind == "swap":  # EEND-14: any two, healthy or destroyed
            out += _swap_list(ref, names)
        elif kind == "move_innovation":  # EEND-14: normal placement rules at the target
            # ``board.placement_candidates`` of the empire without the moved innovation, the
            # location it leaves excluded: the empire's own (``tiles``), unless it leaves one
            # of them, which then alone has the fewest (so no target)
            moves = _moves(ref)
            for loc in emp:
                if loc.innovations and loc.tile not in tiles:
                    for inn in loc.innovations:
                        row = moves[inn.card]
                        if pick is not None:
                            out += pick(row)
                        elif tiles:
                            out.append(row[tiles[0]])
        elif kind == "refresh_one_adjacent":
            for q in board.neighbours(pos, len(emp)):
                for inn in emp[q].innovations:
                    if inn.exhausted:
                        out.append(_refresh(ref, inn.card))
    if w.acts >= 2 and hand and not w.discarded:  # EEND-11: discard both, or keep both
        out.append(_DISCARD)
    out.append(_END)
    return out


@functools.cache
def _pairs(n: int) -> tuple[tuple[int, int], ...]:
    """Every two positions ``a < b`` of an empire of ``n`` locations, in order."""
    return tuple((a, b) for a in range(n) for b in range(a + 1, n))


def default(state: State, seat: int) -> Json:
    return {"type": "end_industry"}


def _pay(p: Player, cost: int, coins: int) -> None:
    p.res.coin -= coins
    p.res.hammer -= cost - coins


def _without_card(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    kept = []  # (a loop: a comprehension is a function made and called on every use)
    for c in hand:
        if c != card:
            kept.append(c)
    return tuple(kept)


def _sell(state: State, seat: int, card: str, events: Events) -> None:
    p = state.writable(seat)
    p.hand = _without_card(p.hand, card)
    p.res.coin += 1
    w = state.work[seat]
    set_work(state, seat, seat_work(w.stage, w.todo, w.conv, w.repeats, w.acts + 1, w.repaired,
                                    w.used, w.discarded))
    events.add("card_sold", {"seat": seat})
    events.add("card_sold", {"seat": seat, "card": card}, (seat,))
    state.discard = (*state.discard, card)


def apply(state: State, seat: int, a: ActJson, events: Events) -> bool:
    """Apply a legal industry action (its JSON) in place. Returns whether the seat's Industry
    is over."""
    kind = a["type"]
    w = state.work[seat]
    p = state.writable(seat) if kind != "end_industry" else state.players[seat]
    if kind == "build":
        card, tile, coins = a["card"], a["tile"], a["coins"]
        # the view the listing of this empire made (remembered): ``discount_sources``' first
        # and the tile's position, without a scan of the empire
        view = board.industry_view(p.empire)
        industry, _, _, names = view
        used = w.used
        cost = CARD[card].cost
        for _, ref, ab in industry:
            if ab.kind == "build_discount" and ref not in used:  # EEND-12
                used = (*used, ref)
                cost = cost - 1 if cost > 0 else 0
                break
        _pay(p, cost, coins)
        p.hand = _without_card(p.hand, card)
        pos = names.index(tile)
        loc = p.empire[pos]
        board.set_location(p, pos, location(loc.tile, loc.healthy,
                                            (*loc.innovations, FRESH[card])))
        board.remember_built(p.empire, view, pos, card)  # (for the seat's next listing)
        set_work(state, seat, seat_work(w.stage, w.todo, w.conv, w.repeats, w.acts + 1,
                                        w.repaired, used, w.discarded))
        events.add("innovation_built", {"seat": seat, "card": card, "tile": tile, "cost": cost})
        events.add("paid", {"seat": seat, "coin": coins, "hammer": cost - coins}, (seat,))
        return False
    if kind == "end_industry":  # (``_sell`` changes the seat's player)
        while state.work[seat].acts < 2 and state.players[seat].hand:
            _sell(state, seat, state.players[seat].hand[-1], events)
        return True
    if kind == "sell":
        _sell(state, seat, a["card"], events)
        return False
    if kind == "repair":
        tile, coins = a["tile"], a["coins"]
        pos = board.industry_view(p.empire)[3].index(tile)  # (remembered from the listing)
        cost = board.repair_cost(p, pos)
        _pay(p, cost, coins)
        loc = p.empire[pos]
        board.set_location(p, pos, location(loc.tile, True, loc.innovations))
        set_work(state, seat, w.changed(repaired=True))
        events.add("location_repaired", {"seat": seat, "tile": tile, "cost": cost})
        return False
    if kind == "discard_hand":
        events.add("hand_discarded", {"seat": seat, "count": len(p.hand)})
        events.add("hand_discarded", {"seat": seat, "cards": list(p.hand)}, (seat,))
        state.discard = (*state.discard, *p.hand)
        p.hand = ()
        set_work(state, seat, w.changed(discarded=True))
        return False
    _ability(state, seat, p, a, events)
    return False


def _ability(state: State, seat: int, p: Player, a: ActJson, events: Events) -> None:
    """An Industry ability used (its JSON), in place; ``p`` is ``state.writable(seat)``."""
    w = state.work[seat]
    kind = a["type"]
    if kind == "swap":
        names = board.industry_view(p.empire)[3]  # (remembered from the listing)
        board.swap_positions(p, names.index(a["a"]), names.index(a["b"]))
        events.add("locations_swapped", {"seat": seat, "a": a["a"], "b": a["b"]})
    elif kind == "move":
        card, tile = a["card"], a["tile"]
        q = board.position_of_ref(p.empire, card)
        d = board.position_of_tile(p.empire, tile)
        assert q is not None and d is not None
        inn = board.innovation_at(p.empire[q], card)
        assert inn is not None
        p.empire = _without(p.empire, q, card)
        dest = p.empire[d]
        board.set_location(p, d, location(dest.tile, dest.healthy, (*dest.innovations, inn)))
        events.add("innovation_moved", {"seat": seat, "card": card,
                                        "from": TILE[p.empire[q].tile].id, "to": tile})
    else:
        assert kind == "refresh"
        board.set_exhausted(p, a["card"], False)
        events.add("refreshed", {"seat": seat, "cards": [a["card"]]})
    set_work(state, seat, seat_work(w.stage, w.todo, w.conv, w.repeats, w.acts, w.repaired,
                                    (*w.used, a["source"]), w.discarded))
