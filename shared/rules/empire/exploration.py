"""Exploration (RULEBOOK §10.3): the auctions with the E-1 polling protocol, and trades.

Auctions run left to right over the five uncovered row cards (E-17). In each, seats are
polled in seat order from the seat left of the previous auction's winner (the first auction
of the game: left of the start player, E-20; after an auction nobody won, left of that
auction's first polled seat, so the lead still rotates). The polled seat may raise (a new
total above its bid, at most its gold, E-3/E-4), withdraw (only while tied with another
non-withdrawn seat) or pass. The auction closes when every non-withdrawn seat has passed
in a row since the last raise or withdraw (E-1).

The moves change a fresh clone in place and add their events; a move refused returns the
Rejection (the clone is then dropped).
"""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json, Rejection, reject
from shared.rules.empire.actions import Accept, Cancel, Decline, OfferTrade, bundle_json
from shared.rules.empire.data import BOND_GOLD
from shared.rules.empire.ledger import Ledger, bank_left
from shared.rules.empire.state import Auction, EmpireState, Holdings, Offer

_new = object.__new__

MAX_OPEN_OFFERS = 10  # per offering seat; a platform limit against offer spam, not a rule


# -- auctions -----------------------------------------------------------------------------


def locked_gold(state: EmpireState, seat: int) -> int:
    """E-3: gold in the open auction's bid is locked until the auction closes."""
    a = state.auction
    if a is None or a.withdrawn[seat]:
        return 0
    return a.bids[seat]


def tradeable(state: EmpireState, seat: int) -> Holdings:
    h = state.holdings[seat].copy()
    h.gold -= locked_gold(state, seat)
    return h


def is_tied(a: Auction, seat: int) -> bool:
    """Tied: another non-withdrawn seat has the same bid (a bid of 0 counts, E-2)."""
    bids, withdrawn = a.bids, a.withdrawn
    bid = bids[seat]
    if bids.count(bid) < 2:  # nobody else bids as much: untied, withdrawn or not
        return False
    if True not in withdrawn:
        return True
    # a plain loop: a generator costs more than these few seats
    for s, b in enumerate(bids):  # noqa: SIM110
        if b == bid and s != seat and not withdrawn[s]:
            return True
    return False


def next_active(a: Auction, seat: int) -> int:
    """The next non-withdrawn seat in seat order after ``seat`` (E-1 polling)."""
    withdrawn = a.withdrawn
    n = len(withdrawn)
    s = seat + 1
    for _ in range(n):
        if s == n:
            s = 0
        if not withdrawn[s]:
            return s
        s += 1
    return seat


def winner(a: Auction, min_one: bool) -> int | None:
    """E-2: the highest untied bid among non-withdrawn seats wins, even a 0; all tied =
    nobody. With the ``min_winning_bid_one`` house rule a 0 never wins."""
    bids, withdrawn = a.bids, a.withdrawn
    live = [b for s, b in enumerate(bids) if not withdrawn[s]] if True in withdrawn else bids
    best, seat = -1, None  # untied live bids are all different: the highest is unique
    for s, b in enumerate(bids):
        if b > best and not withdrawn[s] and live.count(b) == 1:
            best, seat = b, s
    if seat is None or (min_one and best < 1):
        return None
    return seat


# The listed bid actions, built once and shared by every list (a listed action is never
# changed, as a state is never changed: the kit copies one before it makes the action model of
# it). A seat with 30 gold has 30 raises to list: a slice of the table lists them.
PASS: dict[str, Json] = {"type": "pass"}
WITHDRAW: dict[str, Json] = {"type": "withdraw"}
DONE: dict[str, Json] = {"type": "done"}
_UNTIED: list[Json] = [PASS]
_TIED: list[Json] = [PASS, WITHDRAW]
_RAISES: list[Json] = [{"type": "raise", "bid": b} for b in range(256)]
# The raises behind two free places: the slice that ends at a bid's raises, started one or
# two places early, is the whole list once pass (and withdraw) fill those places (one list
# made, not two joined).
_HEADED: list[Json] = [PASS, PASS, *_RAISES]


def bid_actions(a: Auction, seat: int, gold: int) -> list[Json]:
    """The polled seat's pass, withdraw (when tied), then every raise its gold allows."""
    bids = a.bids
    bid = bids[seat]
    # is_tied, its common cases first: no equal bid, or nobody withdrawn
    tied = bids.count(bid) > 1 and (True not in a.withdrawn or is_tied(a, seat))
    if bid <= gold < len(_RAISES):
        if tied:
            out = _HEADED[bid + 1:gold + 3]  # two places before the raise to bid + 1
            out[1] = WITHDRAW
        else:
            out = _HEADED[bid + 2:gold + 3]
        out[0] = PASS
        return out
    low, high = bid + 1, gold + 1
    head = _TIED if tied else _UNTIED
    if high <= len(_RAISES):
        return head + _RAISES[low:high]
    return head + _RAISES[low:] + [{"type": "raise", "bid": b}
                                   for b in range(max(low, len(_RAISES)), high)]


def open_next_auction(state: EmpireState, events: Events) -> None:
    """Open the next uncovered card's auction, or the trade window after the last (E-6)."""
    done = state.auctions_done
    n = state.n
    shortage, strict = state.shortage, state.options.strict_supply
    card = -1
    for resource in state.row:
        card += 1
        if card == shortage or card in done:
            continue
        if strict and bank_left(state, resource) < 1:  # type: ignore[operator]
            # E-5 strict supply: nothing of this kind left to win; the card is skipped.
            done = (*done, card)
            events.add("auction_skipped", {"card": card, "resource": resource})
            continue
        opener = state.auction_lead + 1
        if opener == n:
            opener = 0
        a = state.auction = _new(Auction)  # each field stored directly: no __init__ call
        a.card, a.resource, a.bids, a.withdrawn = card, resource, [0] * n, [False] * n
        a.to_act = a.opener = opener
        a.passes = 0
        state.auctions_done = done
        state.auction_count += 1
        events.add("auction_opened",
                   {"round": state.round, "card": card, "resource": resource, "first": opener})
        return
    state.auction = None
    state.auctions_done = done
    state.phase = "trade_window"
    state.done = (False,) * n
    events.add("trade_window_opened", {"round": state.round})


def _not_polled(a: Auction) -> Rejection:
    return reject("action/not_your_turn", f"seat {a.to_act} is to act in this auction")


def pass_bid(state: EmpireState, seat: int, events: Events) -> Rejection | None:
    """The polled seat passes; once every non-withdrawn seat has in a row, the auction
    closes (E-1)."""
    a = state.auction
    assert a is not None
    if a.to_act != seat:
        return _not_polled(a)
    events.add("bid_passed", {"seat": seat, "bid": a.bids[seat]})
    a.passes += 1
    withdrawn = a.withdrawn
    if a.passes >= withdrawn.count(False):
        close_auction(state, events)
    else:  # next_active, its common case inline: the next seat has not withdrawn
        s = seat + 1 if seat + 1 < len(withdrawn) else 0
        a.to_act = next_active(a, seat) if withdrawn[s] else s
    return None


def withdraw_bid(state: EmpireState, seat: int, events: Events) -> Rejection | None:
    """The polled seat withdraws its tied bid (E-3)."""
    a = state.auction
    assert a is not None
    if a.to_act != seat:
        return _not_polled(a)
    if not is_tied(a, seat):
        return reject("action/illegal", "you may withdraw only while your bid is tied")
    withdraw(a, seat, events)
    return None


def withdraw(a: Auction, seat: int, events: Events) -> None:
    """The polled, tied seat withdraws (``withdraw_bid`` checked it; a listed withdraw is)."""
    a.withdrawn[seat] = True
    a.passes = 0
    a.to_act = next_active(a, seat)
    events.add("bid_withdrawn", {"seat": seat, "bid": a.bids[seat]})


def raise_bid(state: EmpireState, seat: int, bid: int, events: Events) -> Rejection | None:
    """The polled seat raises its bid to ``bid`` (at most its gold, E-4)."""
    a = state.auction
    assert a is not None
    if a.to_act != seat:
        return _not_polled(a)
    gold = state.holdings[seat].gold
    if bid <= a.bids[seat]:
        return reject("action/illegal", "a raise must be above your current bid")
    if bid > gold:
        return reject("action/illegal", f"you have only {gold} gold")
    a.bids[seat] = bid
    a.passes = 0
    withdrawn = a.withdrawn  # next_active, its common case inline (as in pass_bid)
    s = seat + 1 if seat + 1 < len(withdrawn) else 0
    a.to_act = next_active(a, seat) if withdrawn[s] else s
    events.add("bid_raised", {"seat": seat, "bid": bid})
    return None


def close_auction(state: EmpireState, events: Events) -> None:
    """Only the winner pays, to the bank (E-3); bond winners take 10 gold at once (E-17)."""
    a = state.auction
    assert a is not None
    win = winner(a, state.options.min_winning_bid_one)
    bond_gold = 0
    got = 0
    price = 0
    if win is not None:
        ledger = Ledger(state, (win,))
        price = a.bids[win]
        ledger.pay(win, "gold", price)
        got = ledger.take(win, a.resource, 1)
        if a.resource == "bonds":
            bond_gold = ledger.take(win, "gold", BOND_GOLD)
    state.auction = None
    state.auctions_done = (*state.auctions_done, a.card)
    state.auction_lead = win if win is not None else a.opener
    ws = a.withdrawn
    events.add("auction_closed", {
        "card": a.card,
        "resource": a.resource,
        "winner": win,
        "price": price,
        "received": got,
        "bond_gold": bond_gold,
        "bids": a.bids,  # the closed auction's own list: it leaves the state now
        "withdrawn": [s for s, w in enumerate(ws) if w] if True in ws else [],
    })
    open_next_auction(state, events)


# -- trades (E-6, E-7) --------------------------------------------------------------------


def trade_responses(state: EmpireState, seat: int) -> list[Json]:
    """accept (only when both sides hold the cards now) / decline / cancel."""
    out: list[Json] = []
    for o in state.offers:
        if o.to == seat:
            if _feasible(state, o):
                out.append({"type": "accept", "offer": o.id})
            out.append({"type": "decline", "offer": o.id})
        elif o.seat == seat:
            out.append({"type": "cancel", "offer": o.id})
    return out


def _feasible(state: EmpireState, o: Offer) -> bool:
    return tradeable(state, o.seat).covers(o.give) and tradeable(state, o.to).covers(o.get)


def _offer_data(o: Offer) -> dict[str, Json]:
    return {
        "offer": o.id,
        "from": o.seat,
        "to": o.to,
        "give": bundle_json(o.give),
        "get": bundle_json(o.get),
    }


def apply_trade(state: EmpireState, seat: int, action: OfferTrade | Accept | Decline | Cancel,
                events: Events) -> Rejection | None:
    if isinstance(action, OfferTrade):
        give, get = action.give.holdings(), action.get.holdings()
        if action.to == seat or action.to >= state.n:
            return reject("action/illegal", "offer to another seat of this game")
        if give.is_empty() and get.is_empty():
            return reject("action/illegal", "an offer must move at least one card")
        if not tradeable(state, seat).covers(give):
            return reject("action/illegal", "you do not hold (unlocked) what you offer (E-3)")
        if sum(o.seat == seat for o in state.offers) >= MAX_OPEN_OFFERS:
            return reject("action/illegal", f"at most {MAX_OPEN_OFFERS} open offers per seat")
        offer = Offer(state.next_offer_id, seat, action.to, give, get)
        state.offers = (*state.offers, offer)
        state.next_offer_id = offer.id + 1
        events.add("trade_offered", _offer_data(offer))
        return None
    return answer_offer(state, seat, action.type, action.offer, events)


def answer_offer(state: EmpireState, seat: int, kind: str, offer: int, events: Events
                 ) -> Rejection | None:
    """``kind`` is "accept", "decline" or "cancel" of the open offer ``offer``."""
    found = [o for o in state.offers if o.id == offer]
    if not found:
        return reject("action/illegal", f"no open offer {offer}")
    o = found[0]
    rest = tuple(x for x in state.offers if x.id != o.id)
    if kind == "cancel":
        if o.seat != seat:
            return reject("action/illegal", "only the offering seat may cancel")
        state.offers = rest
        events.add("trade_cancelled", _offer_data(o))
        return None
    if o.to != seat:
        return reject("action/illegal", "only the seat the offer is made to may answer it")
    if kind == "decline":
        state.offers = rest
        events.add("trade_declined", _offer_data(o))
        return None
    if not _feasible(state, o):
        return reject("action/illegal", "one side no longer holds the (unlocked) cards")
    ledger = Ledger(state, (o.seat, o.to))
    ledger.move(o.seat, o.to, o.give)  # atomic: both legs or nothing
    ledger.move(o.to, o.seat, o.get)
    state.offers = rest
    events.add("trade_accepted", _offer_data(o))
    return None
