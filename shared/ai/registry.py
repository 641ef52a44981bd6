"""game name -> its bots: the heuristic bot, the search support and the search bot. The games
themselves are looked up in ``shared.rules.registry``; each game's players live in
``shared.ai.<package>`` under the package name its rules have there."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from shared.ai.search.bot import SearchBot
from shared.ai.search.levels import Level
from shared.ai.search.spec import SearchSpec
from shared.rules import registry


def package_of(name: str) -> str:
    """The game's AI package (``shared.ai.<package>``, the package of its rules)."""
    return f"{__name__.rpartition('.')[0]}.{registry.package_of(name).rpartition('.')[2]}"


def bot_module(name: str) -> ModuleType:
    """The game's heuristic bot module (``<package>.bot``: ``HeuristicBot``, and ``Style``,
    ``TUNED`` where its bots take a style)."""
    return importlib.import_module(package_of(name) + ".bot")


def get_bot(name: str) -> Any:
    """A fresh heuristic bot for the game (``<package>.bot.HeuristicBot``)."""
    return bot_module(name).HeuristicBot()


def get_search_spec(name: str) -> SearchSpec:
    """The game's search support (``<package>.determinize.SEARCH``: determinize, evaluate,
    heuristic), for ``shared.ai.search``."""
    spec: SearchSpec = importlib.import_module(package_of(name) + ".determinize").SEARCH
    return spec


def get_search_bot(name: str, level: str | Level = "normal", seed: int | None = None
                   ) -> SearchBot:
    """A search bot (ISMCTS, ``shared.ai.search.SearchBot``) at ``level``: "easy", "normal"
    or "hard" (``LEVELS``). Its ``act``/``choose`` take an optional ``deadline``."""
    rollout = registry.get_rollout(name) if name in registry.rollout_names() else None
    return SearchBot(registry.get(name), get_search_spec(name), level, seed, rollout)
