"""Industry phase: two builds/sells, one repair, industry abilities, in any order (EEND-11..14).

Each seat acts on its own (EEND-22). Costs: a card costs 1 Hammer (2 for "+Hammer" cards);
each unused healthy discount ability (Towns, EEND-12) takes 1 off one build, one per card, so
two Towns never make a +Hammer card free. Discounts are applied automatically (each saves
exactly one Hammer on any build, so the order never matters). Coins replace Hammers; the
action names how many coins pay. Drawing back to 4 happens when every seat has finished, in
clockwise order from the first player (see engine), so the shared deck order does not depend
on who finished first.
"""

from __future__ import annotations

from shared.rules._kit.model import event
from shared.rules.api import Event, Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import (
    Action,
    Build,
    DiscardHand,
    EndIndustry,
    Move,
    Refresh,
    Repair,
    Sell,
    Swap,
)
from shared.rules.empires_end.data import CARD, TILE
from shared.rules.empires_end.state import Innovation, Location, Player, SeatWork, State, SubPhase


def begin(state: State, seat: int, todo: tuple[SubPhase, ...]) -> State:
    return state.with_work(seat, SeatWork(stage="industry", todo=todo))


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
    items[pos] = loc.model_copy(
        update={"innovations": tuple(i for i in loc.innovations if i.card != card)}
    )
    return tuple(items)


def legal(state: State, seat: int) -> list[Json]:
    w = state.work[seat]
    p = state.players[seat]
    emp = p.empire
    out: list[Json] = []
    if w.acts < 2:
        cands = board.placement_candidates(emp)
        for card in p.hand:
            for k in board.pay_options(p.res, build_cost(p, w, card)):
                out.extend(
                    {"type": "build", "card": card, "tile": emp[q].tile, "coins": k} for q in cands
                )
            out.append({"type": "sell", "card": card})
    if not w.repaired:  # EEND-13: one repair per phase
        for pos, loc in enumerate(emp):
            if not loc.healthy:
                for k in board.pay_options(p.res, board.repair_cost(p, pos)):
                    out.append({"type": "repair", "tile": loc.tile, "coins": k})
    for pos, ref, ab in board.active(p, "industry"):
        if ref in w.used:
            continue
        if ab.kind == "swap":  # EEND-14: any two, healthy or destroyed
            out.extend(
                {"type": "swap", "source": ref, "a": emp[a].tile, "b": emp[b].tile}
                for a in range(len(emp))
                for b in range(a + 1, len(emp))
            )
        elif ab.kind == "move_innovation":  # EEND-14: normal placement rules at the target
            for q, loc in enumerate(emp):
                for inn in loc.innovations:
                    for d in board.placement_candidates(_without(emp, q, inn.card), exclude=q):
                        out.append(
                            {"type": "move", "source": ref, "card": inn.card, "tile": emp[d].tile}
                        )
        elif ab.kind == "refresh_one_adjacent":
            for q in board.neighbours(pos, len(emp)):
                for inn in emp[q].innovations:
                    if inn.exhausted:
                        out.append({"type": "refresh", "source": ref, "card": inn.card})
    if w.acts >= 2 and p.hand and not w.discarded:  # EEND-11: discard both, or keep both
        out.append({"type": "discard_hand"})
    out.append({"type": "end_industry"})
    return out


def default(state: State, seat: int) -> Json:
    return {"type": "end_industry"}


def _pay(p: Player, cost: int, coins: int) -> Player:
    res = p.res.plus("coin", -coins).plus("hammer", -(cost - coins))
    return p.model_copy(update={"res": res})


def _sell(state: State, seat: int, card: str, events: list[Event]) -> State:
    p = state.players[seat]
    w = state.work[seat]
    p = p.model_copy(
        update={"hand": tuple(c for c in p.hand if c != card), "res": p.res.plus("coin")}
    )
    state = state.with_player(seat, p).with_work(seat, w.model_copy(update={"acts": w.acts + 1}))
    events.append(event(type="card_sold", data={"seat": seat}))
    events.append(event(type="card_sold", data={"seat": seat, "card": card}, visible_to=(seat,)))
    return state.model_copy(update={"discard": (*state.discard, card)})


def apply(state: State, seat: int, action: Action, events: list[Event]) -> tuple[State, bool]:
    """Apply a legal industry action. Returns (state, finished)."""
    w = state.work[seat]
    p = state.players[seat]
    if isinstance(action, Build):
        cost = build_cost(p, w, action.card)
        sources = discount_sources(p, w)
        used = (*w.used, sources[0]) if sources else w.used
        p = _pay(p, cost, action.coins)
        p = p.model_copy(update={"hand": tuple(c for c in p.hand if c != action.card)})
        pos = board.position_of_tile(p.empire, action.tile)
        assert pos is not None
        loc = p.empire[pos]
        loc = loc.model_copy(
            update={"innovations": (*loc.innovations, Innovation(card=action.card))}
        )
        state = state.with_player(seat, board.set_location(p, pos, loc))
        state = state.with_work(seat, w.model_copy(update={"acts": w.acts + 1, "used": used}))
        events.append(
            event(
                type="innovation_built",
                data={"seat": seat, "card": action.card, "tile": action.tile, "cost": cost},
            )
        )
        events.append(
            event(
                type="paid",
                data={"seat": seat, "coin": action.coins, "hammer": cost - action.coins},
                visible_to=(seat,),
            )
        )
        return state, False
    if isinstance(action, Sell):
        return _sell(state, seat, action.card, events), False
    if isinstance(action, Repair):
        pos = board.position_of_tile(p.empire, action.tile)
        assert pos is not None
        cost = board.repair_cost(p, pos)
        p = _pay(p, cost, action.coins)
        p = board.set_location(p, pos, p.empire[pos].model_copy(update={"healthy": True}))
        state = state.with_player(seat, p).with_work(seat, w.model_copy(update={"repaired": True}))
        events.append(
            event(type="location_repaired", data={"seat": seat, "tile": action.tile, "cost": cost})
        )
        return state, False
    if isinstance(action, DiscardHand):
        events.append(event(type="hand_discarded", data={"seat": seat, "count": len(p.hand)}))
        events.append(
            event(
                type="hand_discarded",
                data={"seat": seat, "cards": list(p.hand)},
                visible_to=(seat,),
            )
        )
        state = state.model_copy(update={"discard": (*state.discard, *p.hand)})
        state = state.with_player(seat, p.model_copy(update={"hand": ()}))
        return state.with_work(seat, w.model_copy(update={"discarded": True})), False
    if isinstance(action, EndIndustry):
        while state.work[seat].acts < 2 and state.players[seat].hand:
            state = _sell(state, seat, state.players[seat].hand[-1], events)
        return state, True
    return _ability(state, seat, action, events), False


def _ability(state: State, seat: int, action: Action, events: list[Event]) -> State:
    w = state.work[seat]
    p = state.players[seat]
    if isinstance(action, Swap):
        a = board.position_of_tile(p.empire, action.a)
        b = board.position_of_tile(p.empire, action.b)
        assert a is not None and b is not None
        p = board.swap_positions(p, a, b)
        events.append(
            event(type="locations_swapped", data={"seat": seat, "a": action.a, "b": action.b})
        )
    elif isinstance(action, Move):
        q = board.position_of_ref(p.empire, action.card)
        d = board.position_of_tile(p.empire, action.tile)
        assert q is not None and d is not None
        inn = board.innovation_at(p.empire[q], action.card)
        assert inn is not None
        p = p.model_copy(update={"empire": _without(p.empire, q, action.card)})
        dest = p.empire[d]
        p = board.set_location(
            p, d, dest.model_copy(update={"innovations": (*dest.innovations, inn)})
        )
        events.append(
            event(
                type="innovation_moved",
                data={
                    "seat": seat,
                    "card": action.card,
                    "from": TILE[p.empire[q].tile].id,
                    "to": action.tile,
                },
            )
        )
    elif isinstance(action, Refresh):
        p = board.set_exhausted(p, action.card, False)
        events.append(event(type="refreshed", data={"seat": seat, "cards": [action.card]}))
    source = getattr(action, "source", "")
    state = state.with_player(seat, p)
    return state.with_work(seat, w.model_copy(update={"used": (*w.used, source)}))
