"""Component data for Empire The Card Game (rulebook ``empire-card-game.txt``, RULINGS.md §3).

Nothing in this game is RECONSTRUCTED: the deck composition is DERIVED (RULINGS §3.1) from
"an Empire pack can be used to play any other card game that uses conventional playing
cards" and the 108/162-card counts. It is still kept here as plain tables so the rule logic
never hard-codes component data.

Card codes (used in the state, in actions and in views):
  ``<rank><suit><pack>`` for ordinary cards, e.g. ``"QH0"``, ``"10S2"`` (rank 2..10,J,Q,K,A;
  suit S/H/D/C; pack 0..2), and ``W<n>`` for the n-th Wizard (Joker), e.g. ``"W3"``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, TypeAlias

Regime: TypeAlias = Literal["thief", "merchant", "warlord"]
Interaction: TypeAlias = Literal["steal", "trade", "battle"]

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_VALUE: dict[str, int] = {rank: i + 2 for i, rank in enumerate(RANKS)}  # Ace high = 14
WIZARD = "W"  # the rank name of a Wizard (Joker); "Wizard" in battle demands (CG-6)
SUITS: tuple[str, ...] = ("S", "H", "D", "C")

# One row per card of ONE "Empire" pack (DERIVED, RULINGS §3.1): a standard 52-card deck
# plus 2 Jokers, which the game calls Wizards. (rank, suit); Wizards have no suit.
PACK: tuple[tuple[str, str | None], ...] = (
    *((rank, suit) for suit in SUITS for rank in RANKS),
    (WIZARD, None),
    (WIZARD, None),
)

# Packs by player count (RULEBOOK: 3-4 players 2 packs, 5-6 players 3 packs).
PACKS_BY_SEATS: dict[int, int] = {3: 2, 4: 2, 5: 3, 6: 3}

HAND_SIZE = 10  # cards dealt to each player (RULEBOOK "Set Up")
RUNOUT_DRAW = 6  # "Run out of cards bonus" (CG-12)
FIRST_SET_DRAW = 6  # 1st empire set bonus (CG-13)
SAME_SUIT_DRAW = 2  # empire set all of one suit, no Wizards (CG-11)
EMPIRE_SETS_TO_WIN = 4
ARMY_MAX = 4  # "A player cannot exceed more than 4 cards in each set within their Army"
SPECIAL_SET_SIZE = 12  # Barbarian run 3..A and Serf Rebellion

REGIMES: tuple[Regime, ...] = ("thief", "merchant", "warlord")
REGIME_RANKS: dict[Regime, tuple[str, ...]] = {
    "thief": ("3", "4", "5", "6"),
    "merchant": ("7", "8", "9", "10"),
    "warlord": ("J", "Q", "K", "A"),
}
# Regime cycle for battles (CG-8): Warlord beats Thief, Thief beats Merchant, Merchant beats
# Warlord.
REGIME_BEATS: dict[Regime, Regime] = {
    "warlord": "thief",
    "thief": "merchant",
    "merchant": "warlord",
}
# 2nd empire set bonus (CG-13): one extra interaction of the regime's kind every turn.
REGIME_BONUS: dict[Regime, Interaction] = {
    "thief": "steal",
    "merchant": "trade",
    "warlord": "battle",
}
ACHIEVEMENT_NAMES: dict[Regime, str] = {
    "thief": "Empire of the Thief Lord",
    "merchant": "Empire of the Merchant Lord",
    "warlord": "Empire of the Warlord",
}
BARBARIAN_RANKS: tuple[str, ...] = RANKS[1:]  # 3 .. A

# Expert Wizard spells (CG-17): the card placed on top of the Wizard decides the spell.
SpellKind: TypeAlias = Literal[
    "mass_steal", "berserker", "mass_trade", "mass_sabotage", "rise_of_the_dead"
]
SPELL_BY_TOP: dict[str, SpellKind] = {
    "thief": "mass_steal",
    "warlord": "berserker",
    "merchant": "mass_trade",
    "2": "mass_sabotage",
    WIZARD: "rise_of_the_dead",
}


@lru_cache(maxsize=8)  # every deal starts from it
def deck_cards(n_packs: int) -> tuple[str, ...]:
    """Every card code of an ``n_packs`` game in a fixed order (the order shuffles index)."""
    cards: list[str] = []
    wizards = 0
    for pack in range(n_packs):
        for rank, suit in PACK:
            if suit is None:
                cards.append(f"{WIZARD}{wizards}")
                wizards += 1
            else:
                cards.append(f"{rank}{suit}{pack}")
    return tuple(cards)
