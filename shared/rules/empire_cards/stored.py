"""The stored form of a state: the JSON of ``GAME.encode`` and what ``GAME.decode`` reads.

These frozen models are the schema of stored games (the adjudicator's documents, the upgrade
fixtures): ``encode`` builds them from a ``state.State`` and dumps them, ``decode`` validates
JSON with them and builds the plain state. The rules never see them.
"""

from __future__ import annotations

from typing import Literal

from shared.rules._kit.model import Frozen, construct
from shared.rules.empire_cards import state as st
from shared.rules.empire_cards.cards import sorted_cards
from shared.rules.empire_cards.data import Interaction, Regime, SpellKind
from shared.rules.empire_cards.state import Cards, Options, Phase, SpecialKind


class Special(Frozen):
    kind: SpecialKind
    cards: Cards


class Player(Frozen):
    hand: Cards = ()
    army: tuple[Cards, ...] = ()
    empire_sets: tuple[Cards, ...] = ()
    regime: Regime | None = None
    specials: tuple[Special, ...] = ()
    discard: Cards = ()
    skip_pending: bool = False
    thief: int = 0
    merchant: int = 0
    warlord: int = 0
    hands_won: int = 0


class Trade(Frozen):
    initiator: int
    target: int
    card: str


class Battle(Frozen):
    attacker: int
    defender: int
    rank: str
    suit: str | None = None
    attack_set: int | None = None


class Spell(Frozen):
    kind: SpellKind
    caster: int
    stage: Literal["hand", "army", "pick", "count", "give", "return"]
    done: tuple[int, ...] = ()
    target: int | None = None
    n: int = 0
    moved: int = 0


class RewardTask(Frozen):
    kind: Literal["plunder_one", "plunder_from", "destroy_from", "claim_any"]
    target: int | None = None


class Owed(Frozen):
    seat: int
    count: int


class State(Frozen):
    n_seats: int
    options: Options
    phase: Phase
    hand_no: int = 1
    hands_played: int = 0
    dealer: int = 0
    rps_round: int = 0
    rps_seats: tuple[int, ...] = ()
    active: int = 0
    turn_no: int = 0
    deck: Cards = ()
    players: tuple[Player, ...]
    drawn: bool = False
    interactions: tuple[Interaction, ...] = ()
    trade: Trade | None = None
    battle: Battle | None = None
    tribute_from: tuple[int, ...] = ()
    spell: Spell | None = None
    rewards: tuple[RewardTask, ...] = ()
    hand_winner: int | None = None
    last_winner: int | None = None
    owed: tuple[Owed, ...] = ()
    rebuilds: int = 0
    overlord: int | None = None


def _fields(obj: object) -> dict[str, object]:
    """The stored fields of a slotted record: all but the state's bookkeeping
    (``State.owned``)."""
    return {name: getattr(obj, name) for name in obj.__slots__  # type: ignore[attr-defined]
            if name[0] != "_"}


def to_stored(s: st.State) -> State:
    players = tuple(
        construct(Player, **{**_fields(p), "specials": tuple(
            construct(Special, kind=x.kind, cards=x.cards) for x in p.specials)})
        for p in s.players)
    return construct(
        State, **{
            **_fields(s), "players": players,
            "trade": None if s.trade is None else construct(Trade, **_fields(s.trade)),
            "battle": None if s.battle is None else construct(Battle, **_fields(s.battle)),
            "spell": None if s.spell is None else construct(Spell, **_fields(s.spell)),
            "rewards": tuple(construct(RewardTask, **_fields(r)) for r in s.rewards),
            "owed": tuple(construct(Owed, **_fields(o)) for o in s.owed)})


def from_stored(s: State) -> st.State:
    # a hand in hand order, as the rules keep it (``acts.hand_groups`` relies on it)
    players = tuple(
        st.Player(**{**dict(p), "hand": sorted_cards(p.hand), "specials": tuple(
            st.Special(kind=x.kind, cards=x.cards) for x in p.specials)})
        for p in s.players)
    return st.State(**{
        **dict(s), "players": players,
        "trade": None if s.trade is None else st.Trade(**dict(s.trade)),
        "battle": None if s.battle is None else st.Battle(**dict(s.battle)),
        "spell": None if s.spell is None else st.Spell(**dict(s.spell)),
        "rewards": tuple(st.RewardTask(**dict(r)) for r in s.rewards),
        "owed": tuple(st.Owed(**dict(o)) for o in s.owed)})
