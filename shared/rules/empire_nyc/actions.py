"""The action union of Empire: The Game of New York (JSON dicts tagged by "type")."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, StrictInt, StrictStr, TypeAdapter

from shared.rules._kit.model import Frozen


class Place(Frozen):
    """Put ``n`` cubes on one of your neighborhoods (setup: exactly 1, NY-1)."""

    type: Literal["place"]
    nb: StrictStr
    n: StrictInt = 1


class Trade(Frozen):
    """Turn in a set of three cards (step C, NY-5, NY-6)."""

    type: Literal["trade"]
    cards: tuple[StrictStr, StrictStr, StrictStr]


class Attack(Frozen):
    """Roll ``dice`` (1–3) from ``from`` against the adjacent enemy ``to`` (NY-8)."""

    type: Literal["attack"]
    frm: StrictStr = Field(alias="from")
    to: StrictStr
    dice: StrictInt


class Defend(Frozen):
    """The defender's dice count (NY-8)."""

    type: Literal["defend"]
    dice: StrictInt


class MoveInCubes(Frozen):
    """Total cubes moved into the conquered neighborhood (>= dice rolled, NY-9)."""

    type: Literal["move_in"]
    n: StrictInt


class EndAttack(Frozen):
    type: Literal["end_attack"]


class Fortify(Frozen):
    """The one free move at the end of the turn (NY-10)."""

    type: Literal["fortify"]
    frm: StrictStr = Field(alias="from")
    to: StrictStr
    n: StrictInt


class EndTurn(Frozen):
    type: Literal["end_turn"]


Action: TypeAlias = Annotated[
    Place | Trade | Attack | Defend | MoveInCubes | EndAttack | Fortify | EndTurn,
    Field(discriminator="type"),
]
ACTION: TypeAdapter[Action] = TypeAdapter(Action)
