"""The public component data of Empire as JSON (``GET /api/games/empire/components``), built
from ``data.py``: nations with their starting cards and institution, the auction rows."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire import data


def institution_text(n: data.Nation) -> str:
    recipe = " + ".join(data.SINGULAR[r] for r in n.recipe)
    pays = ", ".join(f"{v} {k}" for k, v in n.pays.items()) or "nothing"
    gains = ", ".join(f"{v} {k}" for k, v in n.gains.items())
    return f"{n.institution.title()}: stack {recipe}; pay {pays}; gain {gains} per institution"


def components() -> dict[str, Json]:
    return {
        "game": "empire",
        "nations": [{"number": n.number, "key": n.key, "name": n.name, "start": dict(n.start),
                     "institution": n.institution, "recipe": list(n.recipe), "pays": dict(n.pays),
                     "gains": dict(n.gains), "text": institution_text(n)} for n in data.NATIONS],
        "auction_rows": {k: list(v) for k, v in data.AUCTION_ROW.items()},
        "beginner_start": dict(data.BEGINNER_START),
        "kinds": list(data.KINDS),
        "singular": dict(data.SINGULAR),
        "selection_cards": list(data.SELECTION_CARDS),
        "base_price": data.BASE_PRICE,
        "bond_gold": data.BOND_GOLD,
        "reconstructed": [],
        "rulebook": ["everything (empire.txt, RULINGS.md §1.1)"],
    }
