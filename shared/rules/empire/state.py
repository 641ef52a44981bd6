"""Frozen state models for Empire. Tuples, not lists; update with ``model_copy``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.empire.data import KINDS, Kind, Resource

Count = Annotated[int, Field(ge=0)]


class EmpireOptions(Frozen):
    """Variant options; the defaults are the rulings' recommended resolutions."""

    version: Literal["beginner", "standard"] = Field(  # E-22
        "standard",
        title="Rules version",
        description="E-22: beginner = generic starting cards and no nations; standard = nations "
        "are claimed with their own starting cards and institutions.",
    )
    strict_supply: bool = Field(
        False,
        title="Strict supply",
        description=(
            "E-5: the bank holds only the printed cards; an auction with nothing left "
            "to win is skipped."
        ),
    )
    min_winning_bid_one: bool = Field(
        False,
        title="A winning bid is at least 1",
        description="E-2 house rule: a bid of 0 never wins an auction.",
    )
    memory_mode: bool = Field(
        False,
        title="Memory mode",
        description="E-8: the other players' card counts are hidden; remember them yourself.",
    )
    claim_collision_cap: Annotated[int, Field(ge=1)] | None = Field(  # E-14 house rule
        None,
        title="Nation claim: shuffle after N collisions",
        description=(
            "E-14 house rule: after this many colliding claim rounds the colliding "
            "seats get the free nations by a shuffle; empty = claim until every nation "
            "is unique."
        ),
    )


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

    def get(self, kind: Kind) -> int:
        return int(getattr(self, kind))

    def as_dict(self) -> dict[str, int]:
        return {k: self.get(k) for k in KINDS}

    def nonzero(self) -> dict[str, int]:
        return {k: v for k, v in self.as_dict().items() if v}

    def covers(self, other: Holdings) -> bool:
        return all(self.get(k) >= other.get(k) for k in KINDS)

    def plus(self, other: Holdings) -> Holdings:
        return Holdings(**{k: self.get(k) + other.get(k) for k in KINDS})

    def minus(self, other: Holdings) -> Holdings:
        return Holdings(**{k: self.get(k) - other.get(k) for k in KINDS})

    def is_empty(self) -> bool:
        return not any(self.get(k) for k in KINDS)


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


Phase = Literal["setup", "claim", "commerce", "exploration", "trade_window", "ended"]


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
