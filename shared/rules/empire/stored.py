"""The stored form of a state: the JSON of ``GAME.encode`` and what ``GAME.decode`` reads.

These frozen models are the schema of stored games (the adjudicator's documents, the upgrade
fixtures): ``encode`` builds them from a ``state.EmpireState`` and dumps them, ``decode``
validates JSON with them and builds the plain state. The rules never see them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from shared.rules._kit.model import Frozen, construct
from shared.rules.empire import state as st
from shared.rules.empire.data import Resource
from shared.rules.empire.state import EmpireOptions, Phase

Count = Annotated[int, Field(ge=0)]


class Holdings(Frozen):
    """A count of each card kind: a player's empire, or one side of a trade (E-7).

    Gold is an integer (E-4): the bank makes change freely.
    """

    goods: Count = 0
    populations: Count = 0
    colonies: Count = 0
    bonds: Count = 0
    supporters: Count = 0
    revolts: Count = 0
    gold: Count = 0


class ClaimState(Frozen):
    """Nation claiming (standard version, RULEBOOK §9)."""

    market: tuple[int, ...]  # nation numbers dealt to the market, in deal order
    stacks: tuple[Holdings, ...]  # support stacked below each market nation (same order)
    round: int = 1  # the next selection round is "claim:<round>"
    collisions: int = 0
    last_selections: tuple[int, ...] = ()  # revealed choices of the previous round, per seat
    # E-14 cap reached: these seats are assigned the free nations by a Chance draw.
    assign_seats: tuple[int, ...] = ()
    assign_nations: tuple[int, ...] = ()


class Auction(Frozen):
    """The open auction on one row card, polled per E-1."""

    card: int  # index in the auction row
    resource: Resource
    bids: tuple[int, ...]  # per seat; a withdrawn seat's bid is back in its hand (E-3)
    withdrawn: tuple[bool, ...]
    to_act: int
    opener: int  # the first seat polled in this auction
    passes: int = 0  # consecutive passes since the last raise or withdraw


class Offer(Frozen):
    """An open trade offer (E-6, E-7): ``seat`` gives ``give`` to ``to`` for ``get``."""

    id: int
    seat: int
    to: int
    give: Holdings
    get: Holdings


class EmpireState(Frozen):
    options: EmpireOptions
    n: int
    phase: Phase = "setup"
    round: int = 0  # 1..6 once the game starts (E-16)
    start_player: int | None = None  # E-20
    row: tuple[Resource, ...] = ()
    shortage: int = 0  # index of the row card under the shortage card
    nations: tuple[int | None, ...] = ()  # per seat
    holdings: tuple[Holdings, ...] = ()
    claim: ClaimState | None = None
    auction: Auction | None = None
    auctions_done: tuple[int, ...] = ()  # row indices resolved this round (flipped, ER-6)
    auction_lead: int = 0  # the next auction is polled from the seat left of this one (E-1)
    auction_count: int = 0  # auctions opened this game (25 in a full game, E-16)
    offers: tuple[Offer, ...] = ()
    next_offer_id: int = 1
    done: tuple[bool, ...] = ()  # trade window: seats that clicked "done" (E-6)
    developments: int = 0  # development phases completed
    last_commerce: tuple[int, ...] = ()  # goods sold per seat in the last commerce
    last_price: int | None = None
    # E-5 bank accounting: cumulative cards taken from and returned to the bank.
    bank_taken: Holdings = Holdings()
    bank_returned: Holdings = Holdings()


def _holdings(h: st.Holdings) -> Holdings:
    return construct(Holdings, goods=h.goods, populations=h.populations, colonies=h.colonies,
                     bonds=h.bonds, supporters=h.supporters, revolts=h.revolts, gold=h.gold)


def to_stored(s: st.EmpireState) -> EmpireState:
    c, a = s.claim, s.auction
    claim = None if c is None else construct(
        ClaimState, market=c.market, stacks=tuple(_holdings(h) for h in c.stacks),
        round=c.round, collisions=c.collisions, last_selections=c.last_selections,
        assign_seats=c.assign_seats, assign_nations=c.assign_nations)
    auction = None if a is None else construct(
        Auction, card=a.card, resource=a.resource, bids=tuple(a.bids),
        withdrawn=tuple(a.withdrawn), to_act=a.to_act, opener=a.opener, passes=a.passes)
    return construct(
        EmpireState, options=s.options, n=s.n, phase=s.phase, round=s.round,
        start_player=s.start_player, row=s.row, shortage=s.shortage, nations=s.nations,
        holdings=tuple(_holdings(h) for h in s.holdings), claim=claim, auction=auction,
        auctions_done=s.auctions_done, auction_lead=s.auction_lead,
        auction_count=s.auction_count,
        offers=tuple(construct(Offer, id=o.id, seat=o.seat, to=o.to, give=_holdings(o.give),
                               get=_holdings(o.get)) for o in s.offers),
        next_offer_id=s.next_offer_id, done=s.done, developments=s.developments,
        last_commerce=s.last_commerce, last_price=s.last_price,
        bank_taken=_holdings(s.bank_taken), bank_returned=_holdings(s.bank_returned))


def _plain(h: Holdings) -> st.Holdings:
    return st.Holdings(h.goods, h.populations, h.colonies, h.bonds, h.supporters, h.revolts,
                       h.gold)


def from_stored(s: EmpireState) -> st.EmpireState:
    c, a = s.claim, s.auction
    claim = None if c is None else st.ClaimState(
        c.market, tuple(_plain(h) for h in c.stacks), c.round, c.collisions,
        c.last_selections, c.assign_seats, c.assign_nations)
    auction = None if a is None else st.Auction(
        a.card, a.resource, list(a.bids), list(a.withdrawn), a.to_act, a.opener, a.passes)
    return st.EmpireState(
        s.options, s.n, s.phase, s.round, s.start_player, s.row, s.shortage, s.nations,
        tuple(_plain(h) for h in s.holdings), claim, auction, s.auctions_done,
        s.auction_lead, s.auction_count,
        tuple(st.Offer(o.id, o.seat, o.to, _plain(o.give), _plain(o.get)) for o in s.offers),
        s.next_offer_id, s.done, s.developments, s.last_commerce, s.last_price,
        _plain(s.bank_taken), _plain(s.bank_returned))
