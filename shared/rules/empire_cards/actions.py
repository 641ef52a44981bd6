"""The action union: every action is a JSON dict tagged by ``"type"``."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, TypeAdapter

from shared.rules._kit.model import Frozen
from shared.rules.empire_cards.data import Regime


class Draw(Frozen):
    type: Literal["draw"]


class Steal(Frozen):
    type: Literal["steal"]
    target: int


class TradeOffer(Frozen):
    type: Literal["trade"]
    target: int
    card: str


class TradeReply(Frozen):
    type: Literal["trade_reply"]
    card: str


class BattleDeclare(Frozen):
    type: Literal["battle"]
    target: int
    rank: str
    suit: str | None = None


class BattleSet(Frozen):
    type: Literal["battle_set"]
    set: int


class BattleGive(Frozen):
    type: Literal["battle_give"]
    card: str


class Army(Frozen):
    type: Literal["army"]
    cards: tuple[str, ...]
    set: int | None = None  # None: a new set; else build onto that set


class Empire(Frozen):
    type: Literal["empire"]
    regime: Regime
    cards: tuple[str, ...]


class Barbarian(Frozen):
    type: Literal["barbarian"]
    cards: tuple[str, ...]


class Serf(Frozen):
    type: Literal["serf"]
    cards: tuple[str, ...]


class Discard(Frozen):
    type: Literal["discard"]
    card: str


class Disband(Frozen):
    type: Literal["disband"]
    set: int
    card: str


class Pass(Frozen):
    """Only when there is nothing at all to discard (empty hand and army, empty deck)."""

    type: Literal["pass"]


class Tribute(Frozen):
    type: Literal["tribute"]
    card: str


class Gift(Frozen):
    type: Literal["gift"]
    target: int
    card: str


class GiftSkip(Frozen):
    type: Literal["gift_skip"]


class SabotageSkip(Frozen):
    type: Literal["sabotage_skip"]
    target: int


class SabotageTake(Frozen):
    type: Literal["sabotage_take"]
    target: int
    set: int
    card: str


class SabotageNone(Frozen):
    type: Literal["sabotage_none"]


class CastSpell(Frozen):
    """Discard a Wizard with ``card`` on top of it (CG-17)."""

    type: Literal["spell"]
    card: str


class SpellTake(Frozen):
    type: Literal["spell_take"]
    target: int
    set: int
    card: str


class SpellPick(Frozen):
    type: Literal["spell_pick"]
    target: int
    set: int


class SpellTrade(Frozen):
    type: Literal["spell_trade"]
    target: int
    n: int


class SpellGive(Frozen):
    """Mass trade (CG-17): the caster gives, then the target returns, one card at a time."""

    type: Literal["spell_give"]
    card: str


class Plunder(Frozen):
    type: Literal["plunder"]
    target: int | None  # None: claim an unowned achievement card
    regime: Regime


class Destroy(Frozen):
    type: Literal["destroy"]
    target: int
    regime: Regime


Action: TypeAlias = Annotated[
    Draw
    | Steal
    | TradeOffer
    | TradeReply
    | BattleDeclare
    | BattleSet
    | BattleGive
    | Army
    | Empire
    | Barbarian
    | Serf
    | Discard
    | Disband
    | Pass
    | Tribute
    | Gift
    | GiftSkip
    | SabotageSkip
    | SabotageTake
    | SabotageNone
    | CastSpell
    | SpellTake
    | SpellPick
    | SpellTrade
    | SpellGive
    | Plunder
    | Destroy,
    Field(discriminator="type"),
]

ACTION: TypeAdapter[Action] = TypeAdapter(Action)
