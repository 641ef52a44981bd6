"""The Empire action union (JSON dicts tagged by ``type``), validated with pydantic.

Bidding (E-1):  {"type": "raise", "bid": <new total>}, {"type": "pass"}, {"type": "withdraw"}
Trading (E-6, E-7): {"type": "offer_trade", "to": seat, "give": bundle, "get": bundle},
                    {"type": "accept" | "decline" | "cancel", "offer": id}
Trade window (E-6): {"type": "done"}

A bundle counts goods/populations/colonies/bonds/supporters/revolts/gold; selection and
nation cards are not tradeable (E-7, ER-5) and are rejected as malformed.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, StrictInt, TypeAdapter

from shared.rules._kit.model import Frozen
from shared.rules.api import Json
from shared.rules.empire.state import Holdings

MAX_AMOUNT = 1_000_000  # a sanity bound on any count in an action

Amount = Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT)]


class Bundle(Frozen):
    goods: Amount = 0
    populations: Amount = 0
    colonies: Amount = 0
    bonds: Amount = 0
    supporters: Amount = 0
    revolts: Amount = 0
    gold: Amount = 0

    def holdings(self) -> Holdings:
        return Holdings(**self.model_dump())


class Raise(Frozen):
    type: Literal["raise"]
    bid: Annotated[StrictInt, Field(ge=1, le=MAX_AMOUNT)]  # the new total bid


class Pass(Frozen):
    type: Literal["pass"]


class Withdraw(Frozen):
    type: Literal["withdraw"]


class OfferTrade(Frozen):
    type: Literal["offer_trade"]
    to: Annotated[StrictInt, Field(ge=0, le=64)]
    give: Bundle = Bundle()
    get: Bundle = Bundle()


class Accept(Frozen):
    type: Literal["accept"]
    offer: StrictInt


class Decline(Frozen):
    type: Literal["decline"]
    offer: StrictInt


class Cancel(Frozen):
    type: Literal["cancel"]
    offer: StrictInt


class Done(Frozen):
    type: Literal["done"]


Action: TypeAlias = Annotated[
    Raise | Pass | Withdraw | OfferTrade | Accept | Decline | Cancel | Done,
    Field(discriminator="type"),
]
ACTION: TypeAdapter[Action] = TypeAdapter(Action)

BID_TYPES = ("raise", "pass", "withdraw")
TRADE_TYPES = ("offer_trade", "accept", "decline", "cancel")


def bundle_json(h: Holdings) -> dict[str, Json]:
    """A holdings bundle as a compact JSON dict (zero counts left out)."""
    return h.nonzero()
