""""My games" in the SDK: every game of the signed-in player, the ones waiting for it first
(``GET /api/me/games``), kept up to date by the ``my_game`` frames of the WebSocket
(docs/protocol.md, section 1.1 "My games"), and clocks as people read them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from clients.sdk.accounts import AccountsApi

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS


def clock_text(ms: int | None) -> str:
    """Time left as a player reads it, as the web page writes it (clients/web/format.js):
    "4 days 23 h", "1 day", "5 h 12 min", "7 min", "45 s" (rounded down; None: no clock)."""
    if ms is None:
        return "no clock"
    ms = max(0, int(ms))
    if ms >= DAY_MS:
        d, h = divmod(ms // HOUR_MS, 24)
        days = f"{d} day" if d == 1 else f"{d} days"
        return f"{days} {h} h" if h else days
    if ms >= HOUR_MS:
        h, m = divmod(ms // MINUTE_MS, 60)
        return f"{h} h {m} min" if m else f"{h} h"
    if ms >= MINUTE_MS:
        return f"{ms // MINUTE_MS} min"
    return f"{ms // 1000} s"


def ordered(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The server's order: waiting for me (oldest wait first), running (latest change
    first), ended (latest first)."""
    def key(g: dict[str, Any]) -> tuple[int, int, str]:
        if g.get("my_turn"):
            return (0, int(g.get("since_ms") or 0), g["game_id"])
        return (2 if g.get("ended") else 1, -int(g.get("at_ms") or 0), g["game_id"])
    return sorted(games, key=key)


class MyGamesApi(AccountsApi):
    """Its state is set by ``Client.__init__``: ``my_games_by_id`` (game id -> entry, the
    newest seen), ``my_games_changed`` (set on every change), ``clock_offset_ms`` (the
    server's clock minus this machine's, from the last answer)."""

    my_games_by_id: dict[str, dict[str, Any]]
    my_games_changed: asyncio.Event
    clock_offset_ms: int

    async def my_games(self) -> list[dict[str, Any]]:
        """Every game of this player, waiting for it first (and the local copy refreshed)."""
        answer = await self._call("GET", "/api/me/games")
        self.clock_offset_ms = int(answer.get("now_ms", 0)) - int(time.time() * 1000)
        self.my_games_by_id = {g["game_id"]: g for g in answer["games"]}
        self.my_games_changed.set()
        return list(answer["games"])

    def my_games_now(self) -> list[dict[str, Any]]:
        """The local copy, in the server's order (kept by the ``my_game`` frames)."""
        return ordered(list(self.my_games_by_id.values()))

    def time_left_ms(self, game: dict[str, Any]) -> int | None:
        """Time left on this player's clock in ``game`` (None: it does not wait for it)."""
        if not game.get("my_turn") or game.get("deadline_ms") is None:
            return None
        now = int(time.time() * 1000) + self.clock_offset_ms
        return max(0, int(game["deadline_ms"]) - now)

    def _on_my_game(self, msg: dict[str, Any]) -> None:
        game = msg.get("game")
        if not isinstance(game, dict) or not isinstance(game.get("game_id"), str):
            return
        held = self.my_games_by_id.get(game["game_id"])
        if held is None or int(game.get("seq", 0)) >= int(held.get("seq", 0)):
            self.my_games_by_id[game["game_id"]] = game
        if msg.get("now_ms"):
            self.clock_offset_ms = int(msg["now_ms"]) - int(time.time() * 1000)
        self.my_games_changed.set()
