"""Table talk in the terminal: a chat panel (the channel's lines and an input line) for a table
before its start or a game (docs/protocol.md, "Table talk"). Lines are written as plain
``rich.text.Text``: a message is never read as markup."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, RichLog

from clients.sdk import ApiError, ChatLog, Client

NETWORK = (ApiError, OSError, TimeoutError, httpx.HTTPError)
CHANNELS = {"table": "table chat", "seats": "players' chat (spectators never see it)",
            "spectators": "spectators' chat (players do not see it)"}


def line_text(m: dict[str, object]) -> Text:
    stamp = time.strftime("%H:%M", time.localtime(int(str(m["ts"])) / 1000))
    out = Text(f"{stamp} ", style="dim")
    out.append(str(m["name"]), style="bold")
    out.append(f": {m['text']}")
    return out


class ChatPanel(Vertical):
    """``follow(client, table_id=…)`` or ``follow(client, game_id=…)``; Enter in the input
    posts (a refusal is shown with its code)."""

    DEFAULT_CSS = """
    ChatPanel { height: 12; border: round $secondary; }
    ChatPanel RichLog { height: 1fr; }
    ChatPanel Input { height: 3; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.client: Client | None = None
        self.place: dict[str, str | None] = {}
        self.log_: ChatLog | None = None
        self._follow_task: asyncio.Task[None] | None = None
        self.heading = Label("Table talk", classes="chat-title")
        self.chat_lines = RichLog(classes="chat-lines", max_lines=500, wrap=True, min_width=20)

    def compose(self) -> ComposeResult:
        yield self.heading
        yield self.chat_lines
        yield Input(placeholder="say something (Enter)", max_length=500, classes="chat-input")

    def write(self, text: Text | str) -> None:
        self.chat_lines.write(text if isinstance(text, Text) else Text(text))

    def follow(self, client: Client, table_id: str | None = None,
               game_id: str | None = None) -> None:
        place = {"table_id": table_id, "game_id": game_id}
        if place == self.place and self._follow_task is not None and not self._follow_task.done():
            return
        self.stop()
        self.client, self.place = client, place
        self._follow_task = asyncio.create_task(self._follow())

    def stop(self) -> None:
        if self._follow_task is not None:
            self._follow_task.cancel()
            self._follow_task = None
        if self.client is not None and self.log_ is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().create_task(
                    self.client.chat_leave(self.place["table_id"], self.place["game_id"]))
        self.log_ = None

    async def _follow(self) -> None:
        assert self.client is not None
        try:
            log = await self.client.chat_join(self.place["table_id"], self.place["game_id"])
        except NETWORK as exc:
            self.write(f"no chat here: {getattr(exc, 'code', '')} {exc}".strip())
            return
        self.log_ = log
        self.heading.update(CHANNELS.get(log.channel or "", "chat"))
        shown = 0
        while True:
            for m in log.messages[shown:]:
                self.write(line_text(m))
            shown = len(log.messages)
            log.changed.clear()
            if len(log.messages) > shown:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(log.changed.wait(), 1.0)

    @on(Input.Submitted, ".chat-input")
    async def _send(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        if not text.strip() or self.client is None or self.log_ is None:
            return
        event.input.value = ""
        try:
            await self.client.chat(text, self.place["table_id"], self.place["game_id"])
        except NETWORK as exc:
            self.write(Text(f"not sent: {getattr(exc, 'code', '')} {exc}", style="red"))
