"""The state of Empire The Card Game (one match of several hands): plain slotted objects,
cloned then changed inside ``apply``.

A state the engine hands out (``setup``, a transition's state, ``decode``) is never changed
afterwards: ``apply`` clones it (``State.clone``) and the rule modules change only that clone,
in place. Card holdings are tuples, replaced when they change, so a clone shares them; the
pending trade, battle, spell, reward tasks and owed draws are frozen records, replaced too.
A clone shares its players too (copy on write): a rule changes a player only through
``State.writable``, which copies that player once per clone (a move changes one or two of them).
``Options`` is the frozen pydantic model of the variant flags, parsed once by ``setup`` and
shared by every clone. The stored JSON form (``GAME.encode``/``decode``) is ``stored.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.empire_cards.data import Interaction, Regime, SpellKind

Cards: TypeAlias = tuple[str, ...]


class Options(Frozen):
    """Variant flags; the defaults are the rulings' recommended resolutions."""

    first_round_sets: bool = Field(
        default=True,
        title="Sets in the first round",
        description="Empire, Barbarian and Serf sets may be laid in a player's first turn.",
        json_schema_extra={"why": "CG-1: the rulebook does not forbid it."},
    )
    battle_demand: Literal["rank", "rank_suit"] = Field(
        default="rank",
        title="A battle demands",
        description="A rank (any suit), or a rank and a suit.",
        json_schema_extra={"why": "CG-6: what exactly is demanded in a battle.",
                           "labels": {"rank": "a rank", "rank_suit": "a rank and a suit"}},
    )
    steal_own_pile: bool = Field(
        default=True,
        title="Steal from your own pile",
        description="A steal may take the top card of your own discard pile too.",
        json_schema_extra={"why": "CG-15: earlier rules allowed only the others' piles."},
    )
    expert_spells: bool = Field(
        default=False,
        title="Wizard spells",
        description="Expert level: a Wizard discarded with another card casts a spell.",
        json_schema_extra={"why": "CG-17: the rulebook's expert level."},
    )
    first_dealer: Literal["random", "rps"] = Field(
        default="random",
        title="Who deals",
        description="A random player, or rock-paper-scissors played as sealed choices.",
        json_schema_extra={"why": "CG-3 and CG-S3: the rulebook plays rock-paper-scissors.",
                           "labels": {"random": "a random player",
                                      "rps": "rock-paper-scissors"}},
    )
    perfect_deal: bool = Field(
        default=False,
        title="Perfect deal bonus",
        description="A 1-in-7 draw lets the dealer take 2 more cards.",
        json_schema_extra={"why": "CG-2 and CG-S4: the rulebook's bonus needs dexterity."},
    )
    max_hands: int | None = Field(
        default=7,
        ge=1,
        title="Hands in a match",
        description="If nobody becomes Emperor Overlord by then, achievements rank the "
        "players. Empty: play until someone does.",
        json_schema_extra={"why": "CG-S2: a server ruling so that every match ends."},
    )
    max_rounds_per_hand: int | None = Field(
        default=40,
        ge=1,
        title="Rounds in a hand",
        description="A hand nobody wins in this many rounds ends undecided. Empty: no limit.",
        json_schema_extra={"why": "CG-S1: a server ruling so that every hand ends."},
    )
    max_turns_per_hand: int | None = Field(
        default=None,
        ge=1,
        title="Turns in a hand",
        description="A hand ends undecided after this many turns. Empty: no limit.",
    )

    def hand_turn_limit(self, n_seats: int) -> int | None:
        """The turns after which a hand ends undecided (CG-S1 and the explicit turn cap)."""
        cap = self.max_turns_per_hand
        rounds = self.max_rounds_per_hand
        if rounds is not None and (cap is None or rounds * n_seats < cap):
            return rounds * n_seats
        return cap


SpecialKind: TypeAlias = Literal["barbarian", "horde", "serf"]
SpellStage: TypeAlias = Literal["hand", "army", "pick", "count", "give", "return"]
RewardKind: TypeAlias = Literal["plunder_one", "plunder_from", "destroy_from", "claim_any"]


@dataclass(slots=True, frozen=True)
class Special:
    kind: SpecialKind
    cards: Cards


@dataclass(slots=True)
class Player:
    hand: Cards = ()  # private, in ``cards.sorted_cards`` order (``acts.hand_groups``)
    army: tuple[Cards, ...] = ()  # public, "battle cards"
    empire_sets: tuple[Cards, ...] = ()  # public
    regime: Regime | None = None  # fixed by the first empire set (CG-10)
    specials: tuple[Special, ...] = ()  # Barbarian / Horde / Serf Rebellion sets (public)
    discard: Cards = ()  # bottom -> top; only the top is visible (CG-16)
    skip_pending: bool = False  # CG-14
    # match ledger (CG-19), kept across hands: achievement cards by regime
    thief: int = 0
    merchant: int = 0
    warlord: int = 0
    hands_won: int = 0

    def achievements(self, regime: Regime) -> int:
        if regime == "thief":
            return self.thief
        return self.merchant if regime == "merchant" else self.warlord

    def add_achievement(self, regime: Regime, n: int) -> None:
        """In place: ``n`` more achievement cards of ``regime`` (fewer when negative)."""
        if regime == "thief":
            self.thief += n
        elif regime == "merchant":
            self.merchant += n
        else:
            self.warlord += n


assert len(Player.__slots__) == 11, "State.writable copies every field"  # type: ignore[attr-defined]


@dataclass(slots=True, frozen=True)
class Trade:
    """A hidden trade (CG-5): ``card`` has already moved into the target's hand."""

    initiator: int
    target: int
    card: str


@dataclass(slots=True, frozen=True)
class Battle:
    attacker: int
    defender: int
    rank: str
    suit: str | None = None
    attack_set: int | None = None


@dataclass(slots=True, frozen=True)
class Spell:
    kind: SpellKind
    caster: int
    stage: SpellStage
    done: tuple[int, ...] = ()  # opponents already handled in this stage
    target: int | None = None  # the opponent the spell now works on
    n: int = 0  # mass trade: cards each side gives
    moved: int = 0  # mass trade: cards already given in the current give/return stage


@dataclass(slots=True, frozen=True)
class RewardTask:
    kind: RewardKind
    target: int | None = None


@dataclass(slots=True, frozen=True)
class Owed:
    """Cards owed to ``seat`` while the deck is rebuilt from the discard piles (CG-18)."""

    seat: int
    count: int


Phase: TypeAlias = Literal[
    "dealer",  # Chance: who deals and starts (CG-3)
    "shuffle",  # Chance: the deal
    "grab",  # Chance: the dealer's grab for the perfect-deal bonus (CG-2, CG-S4)
    "play",  # the active player's turn
    "trade_reply",  # the trade target answers with a card (CG-5)
    "battle_attack",  # the attacker picks a battle set
    "battle_defend",  # the defender picks a battle set
    "battle_give",  # the losing defender picks the card of the demanded rank (CG-6)
    "tribute",  # 3rd empire set: each opponent gives a card (CG-13)
    "gift",  # 4th empire set: give a card (CG-13)
    "sabotage",  # a 2 was discarded (CG-14)
    "spell",  # expert spell resolution (CG-17)
    "reward",  # the hand winner's achievement choices (CG-19)
    "over",
]


@dataclass(slots=True, kw_only=True)
class State:
    n_seats: int
    options: Options
    phase: Phase
    hand_no: int = 1  # hands started so far (1-based label of the current hand)
    hands_played: int = 0  # hands finished
    dealer: int = 0
    rps_round: int = 0  # rock-paper-scissors rounds played for this hand's dealer (CG-S3)
    rps_seats: tuple[int, ...] = ()  # the seats still in it (empty: every seat)
    active: int = 0
    turn_no: int = 0  # turns completed in this hand; the first n_seats form round 1 (CG-1)
    deck: Cards = ()  # top first
    players: tuple[Player, ...]
    drawn: bool = False
    interactions: tuple[Interaction, ...] = ()  # used this turn (CG-4)
    trade: Trade | None = None
    battle: Battle | None = None
    tribute_from: tuple[int, ...] = ()
    spell: Spell | None = None
    rewards: tuple[RewardTask, ...] = ()
    hand_winner: int | None = None
    last_winner: int | None = None  # winner of the previous hand (None: undecided hand)
    owed: tuple[Owed, ...] = ()
    rebuilds: int = 0
    overlord: int | None = None
    # bookkeeping, not game state: bit ``seat`` set when ``players[seat]`` is this state's
    # own copy, changed by no other state (``writable``)
    owned: int = field(default=0, init=False, repr=False, compare=False)

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def writable(self, seat: int) -> Player:
        """The player on ``seat``, to change in place: every change of a player goes through
        here, since a clone shares its players with the state it came from."""
        players = self.players
        if self.owned >> seat & 1:
            return players[seat]
        # a copy of the player, field by field through the slots (here, not in a method of
        # Player: a call less on most moves; the dataclass ``__init__`` call costs more)
        old, p = players[seat], _new(Player)
        p.hand, p.army, p.empire_sets = old.hand, old.army, old.empire_sets
        p.regime, p.specials, p.discard = old.regime, old.specials, old.discard
        p.skip_pending, p.thief, p.merchant = old.skip_pending, old.thief, old.merchant
        p.warlord, p.hands_won = old.warlord, old.hands_won
        copied = list(players)  # (a list's item set, then the tuple: all in C)
        copied[seat] = p
        self.players = tuple(copied)
        self.owned |= 1 << seat
        return p

    @property
    def first_round(self) -> bool:
        """CG-1: the first orbit of turns (each player's first turn)."""
        return self.turn_no < self.n_seats

    def clone(self) -> State:
        """A copy to change in place: the tuples and records it holds are never changed, so
        they are shared, and so are the players until ``writable`` copies one. Neither state owns
        a shared player afterwards, so a state changed in place after being cloned (a
        rollout's) copies its players again too."""
        new = _new(State)
        new.n_seats, new.options, new.phase = self.n_seats, self.options, self.phase
        new.hand_no, new.hands_played, new.dealer = self.hand_no, self.hands_played, self.dealer
        new.rps_round, new.rps_seats, new.active = self.rps_round, self.rps_seats, self.active
        new.turn_no, new.deck, new.drawn = self.turn_no, self.deck, self.drawn
        new.players, new.owned, self.owned = self.players, 0, 0
        new.interactions, new.trade, new.battle = self.interactions, self.trade, self.battle
        new.tribute_from, new.spell, new.rewards = self.tribute_from, self.spell, self.rewards
        new.hand_winner, new.last_winner = self.hand_winner, self.last_winner
        new.owed, new.rebuilds, new.overlord = self.owed, self.rebuilds, self.overlord
        return new


_new = object.__new__
