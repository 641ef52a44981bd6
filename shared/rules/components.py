"""Each game's public component data as JSON (``<package>.components.components()``), for
``GET /api/games/{game}/components``: the page reads card and map text from here, never from
its own copy. Reconstructed data is listed under ``reconstructed``."""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

from shared.rules import registry
from shared.rules.api import Json


@cache
def components(game: str) -> dict[str, Json]:
    """Raises ``registry.UnknownGame`` for a game that is not registered."""
    try:
        module_name = registry._MODULES[game]
    except KeyError as exc:
        raise registry.UnknownGame(game) from exc
    module = importlib.import_module(module_name + ".components")
    out: dict[str, Json] = module.components()
    return out


@cache
def rulings(game: str) -> str:
    """The game's ``rulings.md`` (next to its engine, so it ships with the code): the
    RULINGS this server follows; "" when there is none."""
    try:
        module_name = registry._MODULES[game]
    except KeyError as exc:
        raise registry.UnknownGame(game) from exc
    module = importlib.import_module(module_name)
    doc = Path(str(module.__file__)).parent / "rulings.md"
    return doc.read_text(encoding="utf-8") if doc.is_file() else ""
