"""The state of Empire: plain slotted objects, cloned then changed inside ``apply``.

A state the engine hands out (``setup``, a transition's state, ``decode``) is never changed
afterwards: each move hook clones it (``EmpireState.clone``) and the rule modules change only
that clone, in place (OpenSpiel's ``child``: clone, then apply). So a caller may keep any
state it was given.

The clone copies the open auction (bids change it on nearly every move) and shares the rest:
ints, tuples, ``Offer`` and ``ClaimState`` (never changed once made: a move makes new ones),
and the cards (``holdings``, ``bank_taken``, ``bank_returned``). Cards change only through a
``ledger.Ledger``, which first gives the clone its own copies of them. ``options`` is the
frozen pydantic model of the variant flags, parsed once by ``setup`` and shared by every
clone. The stored JSON form (``GAME.encode``/``decode``) is defined by ``stored.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.api import Json
from shared.rules.empire.data import KINDS, Kind, Resource

_new = object.__new__

Phase: TypeAlias = Literal["setup", "claim", "commerce", "exploration", "trade_window", "ended"]


class EmpireOptions(Frozen):
    """Variant options; the defaults are the rulings' recommended resolutions."""

    version: Literal["beginner", "standard"] = Field(  # E-22
        "standard",
        title="Rules version",
        description="Beginner: everyone starts alike, no nations and no Bonds. Standard: each "
        "player claims a nation with its own cards and institution.",
        json_schema_extra={"why": "E-22: the rulebook's beginner and standard versions."},
    )
    strict_supply: bool = Field(
        False,
        title="Strict supply",
        description="The bank holds only the printed cards; an auction with nothing left to "
        "win is skipped.",
        json_schema_extra={"why": "E-5: the rulebook gives no rule for running out, so the "
                           "supply is unlimited unless this is on."},
    )
    min_winning_bid_one: bool = Field(
        False,
        title="A winning bid is at least 1",
        description="A bid of 0 never wins an auction.",
        json_schema_extra={"why": "E-2 house rule: read literally, a lone 0 can win when "
                           "every higher bid is tied."},
    )
    memory_mode: bool = Field(
        False,
        title="Memory mode",
        description="You do not see how many cards the other players hold: remember it.",
        json_schema_extra={"why": "E-8: every holding follows from public events, so counts "
                           "are shown unless this is on."},
    )
    claim_collision_cap: Annotated[int, Field(ge=1)] | None = Field(  # E-14 house rule
        None,
        title="Nation claim: draw lots after this many clashes",
        description="After this many rounds of players picking the same nation, those still "
        "clashing get the free nations at random. Empty: pick again until all differ.",
        json_schema_extra={"why": "E-14 house rule: claiming can otherwise repeat without end."},
    )


@dataclass(slots=True)
class Holdings:
    """A count of each card kind: a player's empire, one side of a trade (E-7), a claim
    stack or the bank's flows. Gold is an integer (E-4): the bank makes change freely."""

    goods: int = 0
    populations: int = 0
    colonies: int = 0
    bonds: int = 0
    supporters: int = 0
    revolts: int = 0
    gold: int = 0

    def get(self, kind: Kind) -> int:
        return int(getattr(self, kind))

    def add(self, kind: Kind, amount: int) -> None:
        """In place: ``amount`` more of ``kind`` (fewer when negative)."""
        setattr(self, kind, getattr(self, kind) + amount)

    def copy(self) -> Holdings:
        new = _new(Holdings)  # each field stored directly: no __init__ call (every Ledger copies)
        new.goods = self.goods
        new.populations = self.populations
        new.colonies = self.colonies
        new.bonds = self.bonds
        new.supporters = self.supporters
        new.revolts = self.revolts
        new.gold = self.gold
        return new

    def as_dict(self) -> dict[str, int]:
        return {"goods": self.goods, "populations": self.populations,
                "colonies": self.colonies, "bonds": self.bonds, "supporters": self.supporters,
                "revolts": self.revolts, "gold": self.gold}

    def nonzero(self) -> dict[str, Json]:
        """The nonzero counts (a fresh dict, in field order)."""
        out: dict[str, Json] = {}
        if self.goods:
            out["goods"] = self.goods
        if self.populations:
            out["populations"] = self.populations
        if self.colonies:
            out["colonies"] = self.colonies
        if self.bonds:
            out["bonds"] = self.bonds
        if self.supporters:
            out["supporters"] = self.supporters
        if self.revolts:
            out["revolts"] = self.revolts
        if self.gold:
            out["gold"] = self.gold
        return out

    def covers(self, other: Holdings) -> bool:
        return all(self.get(k) >= other.get(k) for k in KINDS)

    def plus(self, other: Holdings) -> Holdings:
        return Holdings(*(self.get(k) + other.get(k) for k in KINDS))

    def minus(self, other: Holdings) -> Holdings:
        return Holdings(*(self.get(k) - other.get(k) for k in KINDS))

    def is_empty(self) -> bool:
        return not any(self.get(k) for k in KINDS)


@dataclass(slots=True)
class ClaimState:
    """Nation claiming (standard version, RULEBOOK §9). Never changed once made."""

    market: tuple[int, ...]  # nation numbers dealt to the market, in deal order
    stacks: tuple[Holdings, ...]  # support stacked below each market nation (same order)
    round: int = 1  # the next selection round is "claim:<round>"
    collisions: int = 0
    last_selections: tuple[int, ...] = ()  # revealed choices of the previous round, per seat
    # E-14 cap reached: these seats are assigned the free nations by a Chance draw.
    assign_seats: tuple[int, ...] = ()
    assign_nations: tuple[int, ...] = ()


@dataclass(slots=True)
class Auction:
    """The open auction on one row card, polled per E-1 (changed in place by bids)."""

    card: int  # index in the auction row
    resource: Resource
    bids: list[int]  # per seat; a withdrawn seat's bid is back in its hand (E-3)
    withdrawn: list[bool]
    to_act: int
    opener: int  # the first seat polled in this auction
    passes: int = 0  # consecutive passes since the last raise or withdraw

    def clone(self) -> Auction:
        new = _new(Auction)  # the fields stored directly: no __init__ call
        new.card = self.card
        new.resource = self.resource
        new.bids = self.bids[:]
        new.withdrawn = self.withdrawn[:]
        new.to_act = self.to_act
        new.opener = self.opener
        new.passes = self.passes
        return new


@dataclass(frozen=True, slots=True)
class Offer:
    """An open trade offer (E-6, E-7): ``seat`` gives ``give`` to ``to`` for ``get``.
    Never changed once made (its holdings neither)."""

    id: int
    seat: int
    to: int
    give: Holdings
    get: Holdings


@dataclass(slots=True)
class EmpireState:
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
    bank_taken: Holdings = field(default_factory=Holdings)
    bank_returned: Holdings = field(default_factory=Holdings)

    def clone(self) -> EmpireState:
        """A copy to change: its own auction; the cards are shared until a ``Ledger`` gives
        it its own (see the module's docstring). Each field is stored directly (every move
        clones: the dataclass's ``__init__`` call with its 22 arguments costs more)."""
        new = _new(EmpireState)
        new.options = self.options
        new.n = self.n
        new.phase = self.phase
        new.round = self.round
        new.start_player = self.start_player
        new.row = self.row
        new.shortage = self.shortage
        new.nations = self.nations
        new.holdings = self.holdings
        new.claim = self.claim
        a = self.auction
        if a is None:
            new.auction = None
        else:  # Auction.clone, inline: nearly every move is a bid
            b = new.auction = _new(Auction)
            b.card = a.card
            b.resource = a.resource
            b.bids = a.bids[:]
            b.withdrawn = a.withdrawn[:]
            b.to_act = a.to_act
            b.opener = a.opener
            b.passes = a.passes
        new.auctions_done = self.auctions_done
        new.auction_lead = self.auction_lead
        new.auction_count = self.auction_count
        new.offers = self.offers
        new.next_offer_id = self.next_offer_id
        new.done = self.done
        new.developments = self.developments
        new.last_commerce = self.last_commerce
        new.last_price = self.last_price
        new.bank_taken = self.bank_taken
        new.bank_returned = self.bank_returned
        return new
