"""What one seat (or a spectator) may see (E-8).

By default every empire's counts are public: they follow from public events (auctions,
commerce reveals, public trades, deterministic development). With ``memory_mode`` only
one's own counts are shown (ER-4: the stacks are private, face down); the action log of
public events is delivered by the platform either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shared.rules.api import Json, Simultaneous, Turn
from shared.rules.empire.actions import bundle_json
from shared.rules.empire.data import NATIONS, ROUNDS
from shared.rules.empire.exploration import MAX_OPEN_OFFERS, locked_gold, tradeable
from shared.rules.empire.scoring import standings
from shared.rules.empire.state import EmpireState

if TYPE_CHECKING:
    from shared.rules.empire.engine import EmpireGame


def _row(state: EmpireState) -> list[Json]:
    current = state.auction.card if state.auction else None
    out: list[Json] = []
    for i, resource in enumerate(state.row):
        if i == state.shortage:
            status = "shortage"
        elif i == current:
            status = "auction"
        elif i in state.auctions_done:
            status = "done"  # flipped face down as a marker only (ER-6)
        else:
            status = "waiting"
        out.append({"index": i, "resource": resource, "status": status})
    return out


def _player(state: EmpireState, s: int, show: bool) -> dict[str, Json]:
    number = state.nations[s]
    entry: dict[str, Json] = {
        "seat": s,
        "nation": number,
        "nation_name": NATIONS[number].name if number is not None else None,
        "done": bool(state.done[s]) if state.done else False,
    }
    if show:
        h = state.holdings[s]
        entry["holdings"] = dict(h.as_dict())
        entry["support"] = h.supporters - h.revolts
        entry["tradeable"] = dict(tradeable(state, s).as_dict())
    else:
        entry["holdings"] = None  # E-8 memory mode
    return entry


def view(game: EmpireGame, state: EmpireState, seat: int | None) -> dict[str, Json]:
    if seat is not None and not 0 <= seat < state.n:
        seat = None  # not a player of this game: a spectator
    memory = state.options.memory_mode
    node = game.next(state)
    out: dict[str, Json] = {
        "game": game.name,
        "phase": state.phase,
        "seat": seat,
        "version": state.options.version,
        "options": state.options.model_dump(mode="json"),
        "n_seats": state.n,
        "round": state.round,
        "developments_left": ROUNDS - state.developments,
        "start_player": state.start_player,
        "auction_lead": state.auction_lead,  # E-1: the next auction is polled from its left
        "row": _row(state),
        "shortage": state.shortage,
        "players": [_player(state, s, not memory or s == seat) for s in range(state.n)],
        "trading_open": state.phase in ("exploration", "trade_window"),
        "max_open_offers": MAX_OPEN_OFFERS,
        "offers": [
            {
                "offer": o.id,
                "from": o.seat,
                "to": o.to,
                "give": bundle_json(o.give),
                "get": bundle_json(o.get),
            }
            for o in state.offers
        ],
        "last_commerce": (
            {"sold": list(state.last_commerce), "price": state.last_price}
            if state.last_commerce
            else None
        ),
    }
    if seat is not None:
        h = state.holdings[seat]
        out["you"] = {
            "seat": seat,
            "nation": state.nations[seat],
            "holdings": dict(h.as_dict()),
            "support": h.supporters - h.revolts,
            "locked_gold": locked_gold(state, seat),
            # E-7: what this seat may put into an offer right now (gold not in a bid).
            "tradeable": dict(tradeable(state, seat).as_dict()),
        }
    if state.claim is not None:
        c = state.claim
        out["claim"] = {
            "round": c.round,
            "collisions": c.collisions,
            "market": [
                {
                    "number": m,
                    "name": NATIONS[m].name,
                    "institution": NATIONS[m].institution,
                    **bundle_json(st),
                }
                for m, st in zip(c.market, c.stacks, strict=True)
            ],
            "last_selections": list(c.last_selections),
        }
    if state.auction is not None:
        a = state.auction
        out["auction"] = {
            "card": a.card,
            "resource": a.resource,
            "bids": list(a.bids),
            "withdrawn": list(a.withdrawn),
            "to_act": a.to_act,
            "opener": a.opener,
            "passes": a.passes,
        }
    if state.phase == "ended":
        out["standings"] = standings(state)  # E-19; the final result is public
    if isinstance(node, Turn):
        out["awaiting"] = list(node.seats)
    if isinstance(node, Simultaneous):
        own: list[Json] = [
            {
                "key": sl.key,
                "allowed": list(sl.allowed or ()),
                "default": sl.default,
                "context": sl.context,
            }
            for sl in node.slots
            if sl.seat == seat
        ]
        out["sealed"] = {"round_id": node.round_id, "slots": own}
    return out
