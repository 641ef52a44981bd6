"""game name -> Game; the only place services and tests look games up (their bots:
``shared.ai.registry``)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from shared.rules.api import Game

# name -> module exporting GAME. Add a game here when its engine lands.
_MODULES: dict[str, str] = {
    "empire": "shared.rules.empire",
    "empires-end": "shared.rules.empires_end",
    "empire-engine": "shared.rules.empire_engine",
    "empire-nyc": "shared.rules.empire_nyc",
    "empire-cards": "shared.rules.empire_cards",
    "duel": "shared.rules.duel",
}


class UnknownGame(KeyError):
    pass


def names() -> tuple[str, ...]:
    return tuple(_MODULES)


@cache
def get(name: str) -> Game:
    game: Game = importlib.import_module(package_of(name)).GAME
    return game


def package_of(name: str) -> str:
    """The game's package (``shared.rules.<package>``)."""
    try:
        return _MODULES[name]
    except KeyError as exc:
        raise UnknownGame(name) from exc


# name -> the game's fast playout module (``<package>.fast``, see ``_kit/fast.py``), for the
# games that have one.
_FAST: frozenset[str] = frozenset({"empire", "empire-cards", "empire-engine", "empire-nyc",
                                   "empires-end"})


def fast_names() -> tuple[str, ...]:
    """Games with a fast playout engine (``get_fast``)."""
    return tuple(n for n in _MODULES if n in _FAST)


# games whose contract path is the fast path: their playout module is a small adapter over
# the one engine (``<package>.rollout``), not a second engine (``<package>.fast``)
_ROLLOUT: frozenset[str] = frozenset({"empire-cards", "empire-engine"})


def get_fast(name: str) -> Any:
    """The game's fast playout module (``shared.rules._kit.fast.FastEngine``)."""
    if name not in _FAST:
        raise UnknownGame(name)
    return importlib.import_module(_MODULES[name] + (".rollout" if name in _ROLLOUT
                                                     else ".fast"))
