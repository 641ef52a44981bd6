"""Boards of past steps for the replay viewer: a finished game's move log re-applied by the
engine (shared.rules.replay), the view of any seat (or the spectator) after any step.

Served only once a game has ended: its whole move log, chance outcomes included, is public then,
so no step's view carries anything the rules still hide. The engine states of a few recently
asked games are kept (least recently used first out, bounded by the number of states held; a
single game longer than the whole bound is served but not kept);
re-applying a log runs in a worker thread so the event loop keeps serving players.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from cachetools import LRUCache

from shared.rules import registry
from shared.rules.replay import states

Loader = Callable[[], Awaitable[list[dict[str, Any]]]]


class ReplayBoards:
    def __init__(self, max_states: int = 20_000) -> None:
        self.max_states = max_states
        self._games: LRUCache[str, list[Any]] = LRUCache(maxsize=max_states, getsizeof=len)
        self._building: dict[str, asyncio.Future[list[Any]]] = {}

    async def states(self, game_id: str, meta: dict[str, Any], load_log: Loader) -> list[Any]:
        """The states of a finished game: [setup, after move 1, ...] (built once, shared)."""
        hit = self._games.get(game_id)
        if hit is not None:
            return hit
        pending = self._building.get(game_id)
        if pending is None:
            pending = asyncio.ensure_future(self._build(game_id, meta, load_log))
            self._building[game_id] = pending
            pending.add_done_callback(lambda _: self._building.pop(game_id, None))
        return await asyncio.shield(pending)

    async def _build(self, game_id: str, meta: dict[str, Any], load_log: Loader) -> list[Any]:
        log = await load_log()  # in the order the adjudicator applied the moves
        built = await asyncio.to_thread(states, meta["game"], meta.get("options") or {},
                                        len(meta["players"]), log)
        with contextlib.suppress(ValueError):  # longer than the bound: served, not kept
            self._games[game_id] = built
        return built

    @staticmethod
    def view(game_name: str, state: Any, seat: int | None) -> dict[str, Any]:
        return registry.get(game_name).view(state, seat)
