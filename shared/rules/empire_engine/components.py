"""The public component data of The Empire Engine as JSON (``GET /api/games/empire-engine/
components``), built from ``data.py``. ``top_by_orientation[o]`` is the action on top after
``o`` clockwise quarter-turns from the printed orientation (``data.top_action``), so a page
never re-derives the wheel's direction."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_engine import data

ACTION_TEXT: dict[str, str] = {
    "arm": f"Arm: take {data.ARM_SOLDIERS} soldiers from the stock (group 1)",
    "produce": f"Produce: take {data.PRODUCE_GOODS} goods from the stock (group 1)",
    "invent": f"Invent: score {data.INVENT_INVENTIONS} invention (group 1)",
    "attack": "Attack the neighbour on this engine's side; costs a soldier (group 2)",
    "defend": "Defend: block one attack and score a soldier (group 2)",
    "export": "Export: move your ready goods to your score pile (group 3)",
    "salvage": "Salvage: take a returned soldier, good or invention (group 3)",
}


def components() -> dict[str, Json]:
    engines: dict[str, Json] = {}
    for row in data.ENGINE_ROWS:
        e = row[0]
        engines[e] = {
            "edges": list(row[1:]),  # printed clockwise: top, right, bottom, left
            "top_by_orientation": [data.top_action(e, o) for o in range(4)],
            "attacks": "left neighbour (seat + 1)" if e == "L" else "right neighbour (seat - 1)",
        }
    return {
        "game": "empire-engine",
        "engines": engines,
        "gears": [{"gear": g, "turns": data.gear_turns(g, False),
                   "boosted_turns": data.gear_turns(g, True)} for g in data.GEARS],
        "actions": [{"id": a, "group": data.ACTION_GROUP[a], "text": ACTION_TEXT[a]}  # type: ignore[index]
                    for a in data.ACTION_GROUP],
        "rounds_by_seats": {str(k): v for k, v in data.ROUNDS_BY_SEATS.items()},
        "round1_default_top": {str(k): str(v) for k, v in data.ROUND1_DEFAULT_TOP.items()},
        "reconstructed": [
            "the cyclic order of the four actions on each engine card (RULINGS.md §2.2)",
        ],
        "rulebook": ["gear values", "quantities", "action groups"],
    }
