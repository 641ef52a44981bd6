"""The public component data of Empire The Card Game as JSON (``GET /api/games/empire-cards/
components``), built from ``data.py``: ranks, suits, regimes and spells."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_cards import data

SPELL_TEXT: dict[str, str] = {  # RULINGS.md CG-17 (expert variant)
    "mass_steal": "Mass steal: a random card from each opponent's hand and a card of your "
                  "choice from each army",
    "berserker": "Berserker: pick one set of each opponent's army; it goes to their discard pile",
    "mass_trade": "Mass trade: for each player from your left, name N; you both exchange N cards",
    "mass_sabotage": "Mass sabotage: take one whole set from each opponent's army",
    "rise_of_the_dead": "Rise of the Dead: take all discard piles except 2s and Wizards",
}


def components() -> dict[str, Json]:
    return {
        "game": "empire-cards",
        "ranks": list(data.RANKS),
        "suits": {"S": "♠ Spades", "H": "♥ Hearts", "D": "♦ Diamonds", "C": "♣ Clubs"},
        "wizard": data.WIZARD,
        "regimes": [{"id": r, "ranks": list(data.REGIME_RANKS[r]), "beats": data.REGIME_BEATS[r],
                     "bonus": data.REGIME_BONUS[r], "achievement": data.ACHIEVEMENT_NAMES[r]}
                    for r in data.REGIMES],
        "spells": [{"top": top, "spell": k, "text": SPELL_TEXT[k]}
                   for top, k in data.SPELL_BY_TOP.items()],
        "hand_size": data.HAND_SIZE,
        "empire_sets_to_win": data.EMPIRE_SETS_TO_WIN,
        "army_max": data.ARMY_MAX,
        "reconstructed": [],
        "derived": ["the deck composition from the rulebook's pack counts (RULINGS.md §3.1)"],
    }
