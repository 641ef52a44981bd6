"""The game catalogue: the games, their options, component data and rules pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from services.gateway.edge.http_errors import HttpError
from shared.protocol import http as hm
from shared.protocol.http import typed
from shared.rules import components, guides, registry

router = APIRouter()


@router.get("/api/games", **typed(hm.Games))
async def games() -> dict[str, Any]:
    out = []
    for name in registry.names():
        g = registry.get(name)
        out.append({"name": name, "title": g.title, "min_seats": g.min_seats,
                    "max_seats": g.max_seats, "rules_version": g.rules_version,
                    "options": g.options_schema()})
    return {"games": out}


def _known_game(game: str) -> str:
    if game not in registry.names():
        raise HttpError(404, "game/not_found", "no such game")
    return game


@router.get("/api/games/{game}/components", **typed(hm.Components))
async def game_components(game: str) -> dict[str, Any]:
    """The game's public component data (maps, cards, their text) from its data modules;
    ``reconstructed`` names what is the server's reconstruction (shared/rules/components.py)."""
    return components.components(_known_game(game))


@router.get("/api/games/{game}/rules", **typed(hm.Rules))
async def game_rules(game: str) -> dict[str, Any]:
    """How to play the game (its guide, ``shared/rules/<game>/guide.md``), then the rulings
    this server follows and what of its data is reconstructed, under "Rulings and
    reconstructed data" (markdown, ``shared/rules/guides.py``)."""
    name = _known_game(game)
    return {"game": name, "title": registry.get(name).title,
            "markdown": guides.rules_markdown(name),
            "reconstructed": components.components(name).get("reconstructed", [])}


@router.get("/api/games/{game}/images/{name}", include_in_schema=False)
async def game_image(game: str, name: str) -> FileResponse:
    """A picture of the game's guide (an SVG beside its engine); any other name is a typed
    404. A static file like the page's own (so not in the JSON API's OpenAPI document)."""
    path = guides.image(_known_game(game), name)
    if path is None:
        raise HttpError(404, "game/not_found", "There is no such picture in this game's guide.")
    return FileResponse(path, media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=3600"})
