"""The action union: every action is a JSON dict tagged by ``"type"``."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from shared.rules.empire_cards.data import Regime


class _A(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Draw(_A):
    type: Literal["draw"]


class Steal(_A):
    type: Literal["steal"]
    target: int


class TradeOffer(_A):
    type: Literal["trade"]
    target: int
    card: str


class TradeReply(_A):
    type: Literal["trade_reply"]
    card: str


class BattleDeclare(_A):
    type: Literal["battle"]
    target: int
    rank: str
    suit: str | None = None


class BattleSet(_A):
    type: Literal["battle_set"]
    set: int


class BattleGive(_A):
    type: Literal["battle_give"]
    card: str


class Army(_A):
    type: Literal["army"]
    cards: tuple[str, ...]
    set: int | None = None  # None: a new set; else build onto that set


class Empire(_A):
    type: Literal["empire"]
    regime: Regime
    cards: tuple[str, ...]


class Barbarian(_A):
    type: Literal["barbarian"]
    cards: tuple[str, ...]


class Serf(_A):
    type: Literal["serf"]
    cards: tuple[str, ...]


class Discard(_A):
    type: Literal["discard"]
    card: str


class Disband(_A):
    type: Literal["disband"]
    set: int
    card: str


class Pass(_A):
    """Only when there is nothing at all to discard (empty hand and army, empty deck)."""

    type: Literal["pass"]


class Tribute(_A):
    type: Literal["tribute"]
    card: str


class Gift(_A):
    type: Literal["gift"]
    target: int
    card: str


class GiftSkip(_A):
    type: Literal["gift_skip"]


class SabotageSkip(_A):
    type: Literal["sabotage_skip"]
    target: int


class SabotageTake(_A):
    type: Literal["sabotage_take"]
    target: int
    set: int
    card: str


class SabotageNone(_A):
    type: Literal["sabotage_none"]


class CastSpell(_A):
    """Discard a Wizard with ``card`` on top of it (CG-17)."""

    type: Literal["spell"]
    card: str


class SpellTake(_A):
    type: Literal["spell_take"]
    target: int
    set: int
    card: str


class SpellPick(_A):
    type: Literal["spell_pick"]
    target: int
    set: int


class SpellTrade(_A):
    type: Literal["spell_trade"]
    target: int
    n: int


class SpellGive(_A):
    """Mass trade (CG-17): the caster gives, then the target returns, one card at a time."""

    type: Literal["spell_give"]
    card: str


class Plunder(_A):
    type: Literal["plunder"]
    target: int | None  # None: claim an unowned achievement card
    regime: Regime


class Destroy(_A):
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
