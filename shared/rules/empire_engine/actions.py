"""Action and sealed-choice shapes, validated with Literal-tagged pydantic models."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, StrictInt, TypeAdapter, ValidationError

from shared.rules._kit.model import Strict
from shared.rules.api import Json
from shared.rules.empire_engine.data import Action, Boost, EngineName


class BlockAction(Strict):
    """A defender attacked by both neighbours chooses which attack to block (EE-8)."""

    type: Literal["block"]
    attacker: StrictInt


class LootAction(Strict):
    """A successful attacker chooses a Soldier or a Good from the target's ready pile (EE-4)."""

    type: Literal["loot"]
    take: Literal["soldier", "good"]


class SalvageAction(Strict):
    """Salvage: the player chooses which resource to take from the stock (EE-10)."""

    type: Literal["salvage"]
    take: Literal["soldier", "good", "invention"]


ActionModel: TypeAlias = Annotated[
    BlockAction | LootAction | SalvageAction, Field(discriminator="type")
]
ACTION_ADAPTER: TypeAdapter[BlockAction | LootAction | SalvageAction] = TypeAdapter(ActionModel)


class EngineChoice(Strict):
    """Round-1 sealed placement: which engine (public, EE-1) and its top action (hidden)."""

    engine: EngineName
    top: Action


class GearChoice(Strict):
    """Later-round sealed placement: which engine and whether a Soldier/Good goes on the gear
    (public, EE-2), and which gear (hidden until all are placed)."""

    engine: EngineName
    gear: Annotated[StrictInt, Field(ge=1, le=2)]
    boost: Boost


ROUND1_PUBLIC_KEYS: tuple[str, ...] = ("engine",)  # EE-1
GEAR_PUBLIC_KEYS: tuple[str, ...] = ("engine", "boost")  # EE-2


def parse_engine_choice(choice: Json) -> EngineChoice | None:
    try:
        return EngineChoice.model_validate(choice)
    except ValidationError:
        return None


def parse_gear_choice(choice: Json) -> GearChoice | None:
    try:
        return GearChoice.model_validate(choice)
    except ValidationError:
        return None
