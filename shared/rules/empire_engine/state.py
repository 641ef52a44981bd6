"""The state of The Empire Engine: plain slotted objects, cloned then changed inside ``apply``.

A state the engine hands out (``setup``, a transition's state, ``decode``) is never changed
afterwards: ``apply`` clones it (``State.clone``) and the rule modules change only that clone,
in place (OpenSpiel's ``child``: clone, then apply). So a caller may keep any state it was
given. A ``Placement`` is never changed once made (clones share them); an ``Attack`` is
changed by the move that makes it and later only by a block or loot decision (EE-8, EE-4), so
clones in any other phase share them too; ``Options`` is the frozen pydantic model of the
variant flags, parsed once by ``setup`` and shared by every clone.
The stored JSON form (``GAME.encode``/``decode``) is defined by ``stored.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.api import Json
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
        description="12 rounds for any number of players (else 8, or 9 with 3 players).",
        json_schema_extra={"why": "EE-14: the rulebook's longer-game variant."},
    )
    hidden_score_piles: bool = Field(
        True,
        title="Hidden score piles",
        description="The other players' score piles stay hidden until the end of the game.",
        json_schema_extra={"why": "EE-12: the rulebook recommends hidden score piles."},
    )
    majority_bonus_at_zero: bool = Field(
        False,
        title="Majority bonus at zero",
        description="The +3 bonus for the most of a kind is given even when the most is 0.",
        json_schema_extra={"why": "EE-13: the rulebook is silent on a majority of nothing."},
    )
    random_start_player: bool = Field(
        True,
        title="Random start player",
        description="The dealer draws who starts; off, the first seat starts.",
    )


@dataclass(slots=True)
class Counts:
    soldiers: int = 0
    goods: int = 0
    inventions: int = 0

    def get(self, res: Resource) -> int:
        if res == "soldier":
            return self.soldiers
        return self.goods if res == "good" else self.inventions

    def add(self, res: Resource, n: int = 1) -> None:
        """In place: ``n`` more of ``res`` (fewer when negative)."""
        if res == "soldier":
            self.soldiers += n
        elif res == "good":
            self.goods += n
        else:
            self.inventions += n

    def total(self) -> int:
        return self.soldiers + self.goods + self.inventions

    def clone(self) -> Counts:
        return Counts(self.soldiers, self.goods, self.inventions)

    def as_json(self) -> dict[str, Json]:
        return {"soldiers": self.soldiers, "goods": self.goods, "inventions": self.inventions}


@dataclass(slots=True)
class Player:
    ready: Counts  # only Soldiers and Goods ever enter the ready pile
    score: Counts
    # Clockwise quarter-turns of the L and R engine since the printed orientation; None
    # until the round-1 engines are flipped.
    engines: tuple[int, int] | None = None

    def clone(self) -> Player:
        return Player(self.ready.clone(), self.score.clone(), self.engines)


@dataclass(slots=True)
class Placement:
    """One revealed engine/gear placement of the Plan phase (order 1 or 2 of the seat)."""

    seat: int
    order: int
    engine: EngineName
    top: Action
    gear: int | None = None  # None in round 1 (engines are placed directly)
    boost: Boost = "none"
    turns: int | None = None  # quarter-turns applied (None in round 1)
    overridden: bool = False  # the cross-slot rule replaced part of the sealed choice

    def as_json(self) -> dict[str, Json]:  # the stored field order
        return {"seat": self.seat, "order": self.order, "engine": self.engine,
                "gear": self.gear, "boost": self.boost, "turns": self.turns, "top": self.top,
                "overridden": self.overridden}


@dataclass(slots=True)
class Attack:
    attacker: int
    engine: EngineName
    target: int
    status: AttackStatus
    loot: Loot | None = None

    def clone(self) -> Attack:
        return Attack(self.attacker, self.engine, self.target, self.status, self.loot)

    def as_json(self) -> dict[str, Json]:
        return {"attacker": self.attacker, "engine": self.engine, "target": self.target,
                "status": self.status, "loot": self.loot}


@dataclass(slots=True)
class State:
    options: Options
    n_seats: int
    rounds: int
    phase: Phase
    players: tuple[Player, ...]
    round: int = 1
    start_player: int = 0
    placements: tuple[Placement, ...] = ()  # this round's revealed plan
    attacks: tuple[Attack, ...] = ()  # this round's attacks, in resolution order (EE-4)
    awaiting: tuple[int, ...] = ()  # seats still to decide (block / loot / salvage)
    # Stock accounting (EE-11: the stock is unlimited): everything ever taken from and
    # returned to the stock, so every resource in play is accounted for.
    supplied: Counts = field(default_factory=Counts)
    returned: Counts = field(default_factory=Counts)

    def clone(self) -> State:
        """A copy that shares nothing the next move can change with this state: placements
        and options are never changed; the attacks change only in the block and loot phases
        (outside them they are read, or replaced by the next Plan's), so only there are
        they copied."""
        s, r = self.supplied, self.returned
        attacks = self.attacks
        if self.phase == "block" or self.phase == "loot":
            attacks = tuple([Attack(a.attacker, a.engine, a.target, a.status, a.loot)
                             for a in attacks])
        return State(self.options, self.n_seats, self.rounds, self.phase,
                     tuple([Player(Counts(p.ready.soldiers, p.ready.goods, p.ready.inventions),
                                   Counts(p.score.soldiers, p.score.goods, p.score.inventions),
                                   p.engines) for p in self.players]),
                     self.round, self.start_player, self.placements, attacks,
                     self.awaiting, Counts(s.soldiers, s.goods, s.inventions),
                     Counts(r.soldiers, r.goods, r.inventions))
