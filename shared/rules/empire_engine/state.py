"""Frozen state models of The Empire Engine."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.empire_engine.data import Action, Boost, EngineName, Resource

Phase: TypeAlias = Literal["start", "plan", "block", "loot", "salvage", "over"]
AttackStatus: TypeAlias = Literal["unsupported", "supported", "blocked", "success"]
Loot: TypeAlias = Literal["soldier", "good", "stock"]

FIELD: dict[Resource, Literal["soldiers", "goods", "inventions"]] = {
    "soldier": "soldiers",
    "good": "goods",
    "invention": "inventions",
}


class Options(Frozen):
    """Variant flags; the defaults are the recommended resolutions of RULINGS.md §2.3."""

    long_game: bool = Field(
        False,
        title="Longer game",
        description=(
            "EE-14 variant: 12 rounds for any number of players (else 8, 9 with 3 players)."
        ),
    )
    hidden_score_piles: bool = Field(
        True,
        title="Hidden score piles",
        description="EE-12: the opponents' score piles stay hidden until the end of the game.",
    )
    majority_bonus_at_zero: bool = Field(
        False,
        title="Majority bonus at zero",
        description="EE-13 alternative: the +3 majority bonus is given even when the most is 0.",
    )
    random_start_player: bool = Field(
        True,
        title="Random start player",
        description=(
            "The start player marker goes to a seat the dealer draws; off = the first seat starts."
        ),
    )


class Counts(Frozen):
    soldiers: int = 0
    goods: int = 0
    inventions: int = 0

    def get(self, res: Resource) -> int:
        return int(getattr(self, FIELD[res]))

    def add(self, res: Resource, n: int = 1) -> Counts:
        return self.model_copy(update={FIELD[res]: self.get(res) + n})

    def total(self) -> int:
        return self.soldiers + self.goods + self.inventions


class Player(Frozen):
    ready: Counts  # only Soldiers and Goods ever enter the ready pile
    score: Counts
    # Clockwise quarter-turns of the L and R engine since the printed orientation; None
    # until the round-1 engines are flipped.
    engines: tuple[int, int] | None = None


class Placement(Frozen):
    """One revealed engine/gear placement of the Plan phase (order 1 or 2 of the seat)."""

    seat: int
    order: int
    engine: EngineName
    gear: int | None = None  # None in round 1 (engines are placed directly)
    boost: Boost = "none"
    turns: int | None = None  # quarter-turns applied (None in round 1)
    top: Action
    overridden: bool = False  # the cross-slot rule replaced part of the sealed choice


class Attack(Frozen):
    attacker: int
    engine: EngineName
    target: int
    status: AttackStatus
    loot: Loot | None = None


class State(Frozen):
    options: Options
    n_seats: int
    rounds: int
    round: int = 1
    start_player: int = 0
    phase: Phase
    players: tuple[Player, ...]
    placements: tuple[Placement, ...] = ()  # this round's revealed plan
    attacks: tuple[Attack, ...] = ()  # this round's attacks, in resolution order (EE-4)
    awaiting: tuple[int, ...] = ()  # seats still to decide (block / loot / salvage)
    # Stock accounting (EE-11: the stock is unlimited): everything ever taken from and
    # returned to the stock, so every resource in play is accounted for.
    supplied: Counts = Counts()
    returned: Counts = Counts()
