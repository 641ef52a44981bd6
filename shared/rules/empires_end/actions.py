"""The action union of Empire's End (Literal-tagged, validated with a TypeAdapter)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter

from shared.rules._kit.model import Strict

BidResource = Literal["wheat", "hammer", "axe", "coin"]
# An action as the rules read it: its JSON, as ``legal_actions`` lists it (the models below
# define and validate that form; a model's own fields are the same dict).
ActJson: TypeAlias = dict[str, Any]


# --- Disaster phase (one bidder at a time, clockwise from the first player) ---------------


class Bid(Strict):
    """Pass by bidding one accepted token (coins are wild) on disaster ``disaster`` (EEND-26)."""

    type: Literal["bid"]
    disaster: int
    resource: BidResource


class FreeBid(Strict):
    """Pass by exhausting a free-bid innovation ``card`` (EEND-8)."""

    type: Literal["free_bid"]
    disaster: int
    card: str


class Take(Strict):
    """Take the disaster: its bids, the destruction and its innovation."""

    type: Literal["take"]
    disaster: int


class Replace(Strict):
    """Exhaust replace-disaster innovation ``card`` on disaster ``disaster`` (EEND-7)."""

    type: Literal["replace"]
    disaster: int
    card: str


class EndTurn(Strict):
    """End the bidding turn (offered only when a replace ability could still be used)."""

    type: Literal["end_turn"]


class Destroy(Strict):
    """Choose which equidistant healthy location the disaster destroys (EEND-4)."""

    type: Literal["destroy"]
    tile: str


class Place(Strict):
    """Choose the healthy location (fewest innovations) for the taken innovation."""

    type: Literal["place"]
    tile: str


class ShoreUp(Strict):
    """Low resources (EEND-9): lift the screen and buy ``coins`` coins for 2 VP each (0 = no)."""

    type: Literal["shore_up"]
    coins: int


# --- Economy (each seat on its own, all at once) ------------------------------------------


class Convert(Strict):
    """Use a conversion ability once, choosing output ``option`` (index into its options)."""

    type: Literal["convert"]
    source: str
    option: int


class Repeat(Strict):
    """Use repeat ability ``source`` on another economy ability ``target`` (EEND-10)."""

    type: Literal["repeat"]
    source: str
    target: str


class EndEconomy(Strict):
    type: Literal["end_economy"]


class ChooseOrder(Strict):
    """Industry/Economy phase: which of the two to complete first (EEND-22)."""

    type: Literal["choose_order"]
    first: Literal["economy", "industry"]


# --- Industry ---------------------------------------------------------------------------


class Build(Strict):
    """Build ``card`` from hand under ``tile``, paying ``coins`` coins and the rest Hammers."""

    type: Literal["build"]
    card: str
    tile: str
    coins: int


class Sell(Strict):
    type: Literal["sell"]
    card: str


class Repair(Strict):
    """Repair destroyed ``tile`` paying ``coins`` coins and the rest Hammers (EEND-13)."""

    type: Literal["repair"]
    tile: str
    coins: int


class Swap(Strict):
    """Swap locations ``a`` and ``b`` with swap ability ``source`` (EEND-14)."""

    type: Literal["swap"]
    source: str
    a: str
    b: str


class Move(Strict):
    """Move innovation ``card`` under ``tile`` with move ability ``source`` (EEND-14)."""

    type: Literal["move"]
    source: str
    card: str
    tile: str


class Refresh(Strict):
    """Remove the exhaust marker of adjacent innovation ``card`` with ``source``."""

    type: Literal["refresh"]
    source: str
    card: str


class DiscardHand(Strict):
    """After two builds/sells: discard all remaining cards (EEND-11)."""

    type: Literal["discard_hand"]


class EndIndustry(Strict):
    """Finish Industry. Build/sell actions not yet taken are taken as sells of the last
    cards in hand (selling is always possible, EEND-11), so this is always legal."""

    type: Literal["end_industry"]


Action: TypeAlias = Annotated[
    Bid
    | FreeBid
    | Take
    | Replace
    | EndTurn
    | Destroy
    | Place
    | ShoreUp
    | Convert
    | Repeat
    | EndEconomy
    | ChooseOrder
    | Build
    | Sell
    | Repair
    | Swap
    | Move
    | Refresh
    | DiscardHand
    | EndIndustry,
    Field(discriminator="type"),
]
ACTION: TypeAdapter[Action] = TypeAdapter(Action)

class ConflictBid(Strict):
    """The sealed fist: axes and coins put in the hand (a Simultaneous slot choice)."""

    axes: int = Field(ge=0)
    coins: int = Field(ge=0)


CONFLICT_BID: TypeAdapter[ConflictBid] = TypeAdapter(ConflictBid)
