"""game name -> Game; the only place services and tests look games up (their bots:
``shared.ai.registry``)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from shared.rules.api import Game

if TYPE_CHECKING:
    from shared.rules._kit.rollout import RolloutDriver

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


# the games with a rollout (``shared.rules._kit.rollout.Rollout``: random seats on a clone of the
# one engine's state, its in-place moves, no events) for the search's rollouts and the
# benchmarks; not a second engine. The duel's state is a frozen model without in-place moves.
_ROLLOUT: frozenset[str] = frozenset({"empire", "empire-cards", "empire-engine", "empire-nyc",
                                      "empires-end"})


def rollout_names() -> tuple[str, ...]:
    """Games with a rollout (``get_rollout``)."""
    return tuple(n for n in _MODULES if n in _ROLLOUT)


@cache
def get_rollout(name: str) -> RolloutDriver:
    """The game's rollout driver (``shared.rules._kit.rollout.Rollout``)."""
    if name not in _ROLLOUT:
        raise UnknownGame(name)
    from shared.rules._kit.rollout import Rollout

    return Rollout(get(name))
