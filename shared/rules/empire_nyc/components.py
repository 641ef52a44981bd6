"""The public component data of Empire: The Game of New York as JSON, for the web page's
board and texts (``GET /api/games/empire-nyc/components``). Built only from ``data.py`` and
``layout.py``; what is RECONSTRUCTED there is labelled so here."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_nyc import data, layout


def components() -> dict[str, Json]:
    links: list[Json] = []
    seen: set[tuple[str, str]] = set()
    crossing = {tuple(sorted((c.a, c.b))): c for c in data.CROSSINGS}
    for n in data.NEIGHBORHOODS:
        for other in n.adjacent:
            a, b = sorted((n.id, other))
            if (a, b) in seen:
                continue
            seen.add((a, b))
            c = crossing.get((a, b))
            links.append({"a": a, "b": b, "kind": c.kind if c else "land",
                          "name": c.crossing if c else None, "optional": False})
    for c in data.OPTIONAL_LINKS:
        links.append({"a": c.a, "b": c.b, "kind": c.kind, "name": c.crossing, "optional": True})
    return {
        "game": "empire-nyc",
        "boroughs": [{"id": b.id, "name": b.name, "bonus": b.bonus,
                      "colour": layout.BOROUGH_COLOURS[b.id]} for b in data.BOROUGHS],
        "neighborhoods": [{"id": n.id, "name": n.name, "borough": n.borough, "pest": n.pest,
                           "adjacent": list(n.adjacent), "x": layout.POSITIONS[n.id][0],
                           "y": layout.POSITIONS[n.id][1]} for n in data.NEIGHBORHOODS],
        "links": links,
        "missions": [{"id": m.id, "boroughs": list(m.boroughs)} for m in data.MISSIONS],
        "wild_cards": list(data.WILD_CARDS),
        "set_values": list(data.SET_VALUES),
        "viewbox": list(layout.VIEWBOX),
        "node_radius": layout.NODE_RADIUS,
        "reconstructed": [
            "neighborhood names, their borough and pest, and the adjacency (RULINGS.md §5.2)",
            "the six occupation missions (RULINGS.md §5.3)",
            "the two River Wild cards (RULINGS.md §5.4)",
            "the optional tunnel and ferry links (NY-14)",
        ],
        "rulebook": ["borough bonuses", "starting cubes", "set values"],
        "presentation": "map positions and colours are the server's drawing, not the printed board",
    }
