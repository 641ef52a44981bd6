"""One chat channel a client joined, as it holds it: the messages, oldest first, without the
players this client muted."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ChatLog:
    """One chat channel this client joined (``Client.chat_join``): a table's (``table``) or a
    game's (``seats`` for a seat, ``spectators`` for anyone else). Messages are
    ``{id, player_id, name, text, ts}``, oldest first, without the players this client muted.
    Chat never touches a GameSession: a bot playing a seat never sees it."""

    table_id: str | None
    game_id: str | None
    channel: str | None = None  # set by the history
    messages: list[dict[str, Any]] = field(default_factory=list)
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, line: dict[str, Any]) -> None:
        if any(m["id"] == line["id"] for m in self.messages[-200:]):
            return  # a second history after a reconnect
        self.messages.append({k: line[k] for k in ("id", "player_id", "name", "text", "ts")})
        self.changed.set()

    def texts(self) -> list[str]:
        return [m["text"] for m in self.messages]

    async def wait_for(self, cond: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until ``cond()`` holds; TimeoutError after ``timeout`` s."""

        async def loop() -> None:
            while not cond():
                self.changed.clear()
                if cond():
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):  # see CANCEL_SAFE (clients/sdk/session.py)
                        await self.changed.wait()

        async with asyncio.timeout(timeout):
            await loop()


def chat_key(table_id: str | None, game_id: str | None) -> str:
    return f"t:{table_id}" if table_id is not None else f"g:{game_id}"
