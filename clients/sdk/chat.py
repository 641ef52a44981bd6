"""Table talk over the socket (docs/protocol.md, "Table talk"): join and leave a table's or a
game's channel, post, mute a player, report a message. Chat never touches a GameSession: a bot
playing a seat never sees it."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import websockets

from clients.sdk.chat_log import ChatLog, chat_key
from clients.sdk.commands import Commands
from clients.sdk.errors import ApiError


class Chat(Commands):
    """The chat calls. Its state is set by ``Client.__init__``."""

    async def chat_join(self, table_id: str | None = None, game_id: str | None = None,
                        timeout: float = 30.0) -> ChatLog:
        """Follow a table's chat (``table_id``) or a game's (``game_id``); returns the channel
        once its history arrived. ApiError with the refusal (``chat/not_member``, …)."""
        if self.ws is None:
            await self.connect()
        key = chat_key(table_id, game_id)
        log = self.chats.get(key) or ChatLog(table_id=table_id, game_id=game_id)
        self.chats[key] = log
        log.joined.clear()
        cmd_id = "j" + secrets.token_hex(8)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[cmd_id] = fut
        self._chat_cmds.add(cmd_id)
        try:
            await self._send({"type": "chat_join", "cmd_id": cmd_id, "table_id": table_id,
                              "game_id": game_id})
            joined: asyncio.Future[Any] = asyncio.ensure_future(log.joined.wait())
            done, _ = await asyncio.wait([joined, fut], timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            joined.cancel()
        finally:
            self.replies.pop(cmd_id, None)
            self._chat_cmds.discard(cmd_id)
        if fut in done and fut.result().get("type") == "rejected":
            self.chats.pop(key, None)
            reply = fut.result()
            raise ApiError(reply["code"], reply.get("message", ""))
        if not log.joined.is_set():
            raise TimeoutError(f"no chat history for {key}")
        return log

    async def chat_leave(self, table_id: str | None = None, game_id: str | None = None) -> None:
        self.chats.pop(chat_key(table_id, game_id), None)
        with contextlib.suppress(websockets.ConnectionClosed):
            await self._send({"type": "chat_leave", "table_id": table_id, "game_id": game_id})

    async def _chat_command(self, msg: dict[str, Any]) -> str:
        if self.ws is None:
            await self.connect()
        self._chat_cmds.add(msg["cmd_id"])
        try:
            reply = await self._command(msg)
        finally:
            self._chat_cmds.discard(msg["cmd_id"])
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return str(msg["cmd_id"])

    async def chat(self, text: str, table_id: str | None = None, game_id: str | None = None,
                   channel: str | None = None, cmd_id: str | None = None) -> str:
        """Post to a table's chat or a game's channel (``channel`` defaults to the one joined,
        else ``table`` / ``seats``). Returns the message id (``cmd_id``; the same id twice is
        refused ``chat/duplicate``); ApiError on a refusal."""
        joined = self.chats.get(chat_key(table_id, game_id))
        ch = channel or (joined.channel if joined and joined.channel else None) or (
            "table" if table_id is not None else "seats")
        return await self._chat_command({"type": "chat", "cmd_id": cmd_id or
                                         "m" + secrets.token_hex(8), "channel": ch,
                                         "table_id": table_id, "game_id": game_id,
                                         "text": text})

    async def chat_mute(self, player_id: str, muted: bool = True) -> None:
        """Hide (or show again) a player's messages, for this player only, in every chat."""
        await self._chat_command({"type": "chat_mute", "cmd_id": "u" + secrets.token_hex(8),
                                  "player_id": player_id, "muted": muted})
        (self.muted.add if muted else self.muted.discard)(player_id)

    async def chat_report(self, msg_id: str, table_id: str | None = None,
                          game_id: str | None = None, channel: str | None = None,
                          reason: str = "") -> None:
        """Report a message (its ``id``) of a channel this player reads to the operators."""
        joined = self.chats.get(chat_key(table_id, game_id))
        ch = channel or (joined.channel if joined and joined.channel else None) or (
            "table" if table_id is not None else "seats")
        await self._chat_command({"type": "chat_report", "cmd_id": "r" + secrets.token_hex(8),
                                  "channel": ch, "table_id": table_id, "game_id": game_id,
                                  "msg_id": msg_id, "reason": reason})
