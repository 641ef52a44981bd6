"""The action union of Empire's End (Literal-tagged, validated with a TypeAdapter)."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from shared.rules.api import Json

BidResource = Literal["wheat", "hammer", "axe", "coin"]


class _A(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# --- Disaster phase (one bidder at a time, clockwise from the first player) ---------------


class Bid(_A):
    """Pass by bidding one accepted token (coins are wild) on disaster ``disaster`` (EEND-26)."""

    type: Literal["bid"]
    disaster: int
    resource: BidResource


class FreeBid(_A):
    """Pass by exhausting a free-bid innovation ``card`` (EEND-8)."""

    type: Literal["free_bid"]
    disaster: int
    card: str


class Take(_A):
    """Take the disaster: its bids, the destruction and its innovation."""

    type: Literal["take"]
    disaster: int


class Replace(_A):
    """Exhaust replace-disaster innovation ``card`` on disaster ``disaster`` (EEND-7)."""

    type: Literal["replace"]
    disaster: int
    card: str


class EndTurn(_A):
    """End the bidding turn (offered only when a replace ability could still be used)."""

    type: Literal["end_turn"]


class Destroy(_A):
    """Choose which equidistant healthy location the disaster destroys (EEND-4)."""

    type: Literal["destroy"]
    tile: str


class Place(_A):
    """Choose the healthy location (fewest innovations) for the taken innovation."""

    type: Literal["place"]
    tile: str


class ShoreUp(_A):
    """Low resources (EEND-9): lift the screen and buy ``coins`` coins for 2 VP each (0 = no)."""

    type: Literal["shore_up"]
    coins: int


# --- Economy (each seat on its own, all at once) ------------------------------------------


class Convert(_A):
    """Use a conversion ability once, choosing output ``option`` (index into its options)."""

    type: Literal["convert"]
    source: str
    option: int


class Repeat(_A):
    """Use repeat ability ``source`` on another economy ability ``target`` (EEND-10)."""

    type: Literal["repeat"]
    source: str
    target: str


class EndEconomy(_A):
    type: Literal["end_economy"]


class ChooseOrder(_A):
    """Industry/Economy phase: which of the two to complete first (EEND-22)."""

    type: Literal["choose_order"]
    first: Literal["economy", "industry"]


# --- Industry ---------------------------------------------------------------------------


class Build(_A):
    """Build ``card`` from hand under ``tile``, paying ``coins`` coins and the rest Hammers."""

    type: Literal["build"]
    card: str
    tile: str
    coins: int


class Sell(_A):
    type: Literal["sell"]
    card: str


class Repair(_A):
    """Repair destroyed ``tile`` paying ``coins`` coins and the rest Hammers (EEND-13)."""

    type: Literal["repair"]
    tile: str
    coins: int


class Swap(_A):
    """Swap locations ``a`` and ``b`` with swap ability ``source`` (EEND-14)."""

    type: Literal["swap"]
    source: str
    a: str
    b: str


class Move(_A):
    """Move innovation ``card`` under ``tile`` with move ability ``source`` (EEND-14)."""

    type: Literal["move"]
    source: str
    card: str
    tile: str


class Refresh(_A):
    """Remove the exhaust marker of adjacent innovation ``card`` with ``source``."""

    type: Literal["refresh"]
    source: str
    card: str


class DiscardHand(_A):
    """After two builds/sells: discard all remaining cards (EEND-11)."""

    type: Literal["discard_hand"]


class EndIndustry(_A):
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

DISASTER_ACTIONS = (Bid, FreeBid, Take, Replace, EndTurn)
RESOLUTION_ACTIONS = (Destroy, Place, ShoreUp)
ECONOMY_ACTIONS = (Convert, Repeat, EndEconomy)
INDUSTRY_ACTIONS = (Build, Sell, Repair, Swap, Move, Refresh, DiscardHand, EndIndustry)


def parse_action(data: Json) -> Action | None:
    try:
        return ACTION.validate_python(data)
    except ValidationError:
        return None


class ConflictBid(_A):
    """The sealed fist: axes and coins put in the hand (a Simultaneous slot choice)."""

    axes: int = Field(ge=0)
    coins: int = Field(ge=0)


CONFLICT_BID: TypeAdapter[ConflictBid] = TypeAdapter(ConflictBid)
