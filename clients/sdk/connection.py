"""The WebSocket half of the client: one connection, resumed after a drop (every watched game
from its last view seq and record id, every chat joined, every command still awaiting its reply
re-sent under the same ``cmd_id``: commands are idempotent by id, so nothing applies twice),
and every incoming frame dispatched to its game session, its command's caller or its chat log.

Watches are sent at protocol version 3: one ``view`` frame per state change with the record
entries up to it in ``records``, other entries in ``records`` frames; the session applies each
entry exactly as a version 2 ``record`` frame (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import websockets
from websockets.typing import Subprotocol

from clients.sdk.chat_log import ChatLog, chat_key
from clients.sdk.errors import TRANSIENT_CODES, ApiError
from clients.sdk.lobby import LobbyApi
from clients.sdk.session import GameSession
from shared.protocol.versions import PROTOCOL_VERSION

WATCH_AGAIN = TRANSIENT_CODES | {"game/not_found"}  # a refused watch that may pass if sent again
# a refused watch that may pass is sent again after WATCH_BACKOFF_S[n] (the last one repeats),
# at most WATCH_TRIES times in a row for a game (a frame of the game resets the count); then
# the refusal stays in ``GameSession.rejections`` for the caller
WATCH_BACKOFF_S = (0.2, 0.4, 0.8, 1.6, 3.2, 5.0)
WATCH_TRIES = 12


@dataclass
class _Pending:
    """A command awaiting its first reply; ``gen`` = the connection it was last sent on."""

    text: str
    future: asyncio.Future[dict[str, Any]]
    gen: int = -1
    resent: int = 0



class Connection(LobbyApi):
    """The socket and what arrives on it. Its state is set by ``Client.__init__``."""

    reconnect_delays: tuple[float, ...] = (0.1, 0.2, 0.5, 1, 2, 2, 2, 5, 5, 5)
    _ping_interval: float | None
    _open_timeout_s: float
    _compression: str | None
    captured: list[str] | None
    ws: Any
    chats: dict[str, ChatLog]
    muted: set[str]
    _chat_cmds: set[str]
    replies: dict[str, asyncio.Future[dict[str, Any]]]
    _reader: asyncio.Task[None] | None
    _closing: bool
    _pending: dict[str, _Pending]
    _resent: set[str]
    _gen: int
    reconnects: int
    resent: int
    _rewatch: dict[str, asyncio.Task[None]]
    _rewatch_tries: dict[str, int]
    rewatched: int

    async def _open_socket(self) -> Any:
        """A socket authenticated by the ``Sec-WebSocket-Protocol`` offer (never the URL)."""
        await self.fresh_token()
        offer = [Subprotocol("empire.v1"), Subprotocol(f"empire.token.{self.token}")]
        return await websockets.connect(self.base_url.replace("http", "ws", 1) + "/ws",
                                        max_size=2**24, compression=self._compression,
                                        subprotocols=offer, ping_interval=self._ping_interval,
                                        open_timeout=self._open_timeout_s)

    async def connect(self, read: bool = True) -> None:
        """Open the socket and wait for the gateway's welcome. ``read=False``: the caller
        reads the socket itself (``raw_frames``; a load driver that reacts to every frame):
        nothing is dispatched to game sessions and a lost connection is not resumed."""
        self.ws = await self._open_socket()
        hello = json.loads(await self.ws.recv())
        if hello.get("type") != "welcome" and hello.get("code") == "auth/expired_token" \
                and self.refresh_token:
            await self.ws.close()
            await self.refresh()
            self.ws = await self._open_socket()
            hello = json.loads(await self.ws.recv())
        if hello.get("type") != "welcome":
            raise ApiError(hello.get("code", "auth/invalid_token"), hello.get("message", ""))
        self.player_id = hello["player_id"]
        if read:
            self._reader = asyncio.create_task(self._read())

    async def raw_frames(self) -> AsyncIterator[str | bytes]:
        """Every frame of a socket opened with ``connect(read=False)``, as it arrives, until
        the connection closes."""
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                yield raw

    async def send_raw(self, text: str) -> None:
        """Send one frame as it is (a socket opened with ``connect(read=False)``)."""
        await self.ws.send(text)

    async def _read(self) -> None:
        while not self._closing:
            try:
                async for raw in self.ws:
                    if self.captured is not None:
                        self.captured.append(raw)
                    self._dispatch(json.loads(raw))
            except (websockets.ConnectionClosed, OSError):
                pass
            if self._closing:
                return
            await self._reconnect()

    async def _reconnect(self) -> None:
        """Resume every watched game from its last seq and record id, then re-send every
        command still awaiting its reply (same cmd_id: applied at most once)."""
        for delay in self.reconnect_delays:
            await asyncio.sleep(delay)
            if self._closing:
                return
            with contextlib.suppress(OSError, asyncio.TimeoutError,
                                     websockets.WebSocketException, ApiError):
                ws = await self._open_socket()
                hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if hello.get("type") != "welcome":
                    await ws.close()
                    if hello.get("code") == "auth/revoked_session":
                        break  # signed out elsewhere: reconnecting cannot help
                    continue
                for g in list(self.games.values()):
                    g.resumed_from.append(g.seq)
                    await ws.send(
                        json.dumps(
                            {
                                "type": "watch",
                                "v": PROTOCOL_VERSION,
                                "game_id": g.game_id,
                                "after_seq": g.seq,
                                "after_record": g.record_id,
                            }
                        )
                    )
                for log in list(self.chats.values()):  # the history fills any gap
                    await ws.send(json.dumps({"type": "chat_join", "table_id": log.table_id,
                                              "game_id": log.game_id}))
                self.ws = ws
                self._gen += 1
                self.reconnects += 1
                for cmd_id, p in list(self._pending.items()):
                    if p.gen != self._gen and not p.future.done():
                        p.gen = self._gen
                        p.resent += 1
                        self._resent.add(cmd_id)
                        self.resent += 1
                        await ws.send(p.text)
                return
        raise ConnectionError("could not reconnect")

    async def disconnect(self) -> None:
        """Drop the socket abruptly, as a network failure would (the client reconnects and
        resumes on its own). For tests and for moving to another network."""
        if self.ws is not None:
            transport = getattr(self.ws, "transport", None)
            if transport is not None:
                transport.abort()
            else:  # pragma: no cover - every websockets connection has a transport
                await self.ws.close()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind in ("chat", "chat_history", "chat_mutes"):
            self._on_chat(msg)
            return
        if kind == "my_game":  # one of this player's games changed ("My games")
            self._on_my_game(msg)
            return
        game = self.games.get(msg.get("game_id", ""))
        if kind == "view" and game is not None:
            self._rewatch_tries.pop(game.game_id, None)
            # protocol v3: the record entries up to this state change ride in the view
            # (applied first: they happened first); below v3 they come as ``record`` frames
            for item in msg.get("records", ()):
                game.on_record(item)
            game.on_view(msg)
        elif kind == "record" and game is not None:
            self._rewatch_tries.pop(game.game_id, None)
            game.on_record(msg)
        elif kind == "records" and game is not None:  # v3: entries of no view, in order
            self._rewatch_tries.pop(game.game_id, None)
            for item in msg["records"]:
                game.on_record(item)
        elif kind == "rejected" and not msg.get("cmd_id") and game is not None \
                and msg.get("code") in WATCH_AGAIN and self._watch_again(game):
            return  # a refused watch (no cmd_id, the game named): sent again shortly
        elif kind in ("accepted", "rejected", "committed"):
            cmd = msg.get("cmd_id")
            if cmd:
                self._pending.pop(cmd, None)
            if (
                kind == "rejected"
                and cmd in self._resent
                and msg.get("code") == "command/duplicate"
            ):
                return  # the first copy was applied before the disconnect: not a refusal
            if kind == "committed" and game is not None:
                r = game.receipts.get(f"{msg['round_id']}/{msg['slot']}")
                # the receipt of this very commitment: a late receipt for an earlier attempt
                # at the slot (one that went unanswered) must not vouch for a later one
                if r is not None and r.commitment == msg.get("commitment"):
                    r.acknowledged = True
            if (
                kind == "rejected"
                and game is not None
                and cmd not in self._chat_cmds  # chat never touches a GameSession
                and not (cmd in self._resent and cmd in self.replies)
            ):
                # (a re-sent command's first reply goes to its caller only: ``commit`` tells
                # a copy accepted before the drop from a real refusal)
                game.rejections.append(msg)
                game.changed.set()
            fut = self.replies.pop(cmd, None) if cmd else None
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def _send(self, msg: dict[str, Any]) -> None:
        """Send one message. While the connection is down a command waits in ``_pending``
        (the reconnect re-sends it); any other message waits for the new connection."""
        text = json.dumps(msg)
        cmd = msg.get("cmd_id")
        pending = self._pending.get(cmd) if isinstance(cmd, str) else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while True:
            ws, gen = self.ws, self._gen
            if pending is not None:
                if pending.gen == gen:
                    return  # the reconnect already sent it on this connection
                pending.gen = gen
            try:
                await ws.send(text)
                return
            except websockets.ConnectionClosed:
                if self._closing:
                    raise
                if pending is not None and pending.gen == gen:
                    pending.gen = -1
                if self._gen == gen:
                    if pending is not None:
                        return  # the reconnect will send it
                    while self._gen == gen and not self._closing:
                        if loop.time() > deadline:
                            raise
                        await asyncio.sleep(0.05)

    def _watch_again(self, game: GameSession) -> bool:
        """A watch of ``game`` was refused by a refusal that may pass: send it again, from
        where the session stands, after a backoff. Any watch, ``watch()``'s own or one the
        reconnect sent (a gateway cut off from storage refuses the resumed watch: without
        this the seat never hears of its game again and its turns time out). False when the
        tries are spent: the caller gets the refusal."""
        gid = game.game_id
        if gid in self._rewatch:
            return True  # a re-send is already on its way
        tries = self._rewatch_tries.get(gid, 0)
        if tries >= WATCH_TRIES or self._closing:
            return False
        self._rewatch_tries[gid] = tries + 1
        delay = WATCH_BACKOFF_S[min(tries, len(WATCH_BACKOFF_S) - 1)]
        self._rewatch[gid] = asyncio.get_running_loop().create_task(
            self._send_watch_later(game, delay))
        return True

    async def _send_watch_later(self, game: GameSession, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
        finally:  # from here a new refusal schedules a new re-send
            self._rewatch.pop(game.game_id, None)
        if self._closing or self.games.get(game.game_id) is not game:
            return  # closed, or unwatched meanwhile
        self.rewatched += 1
        with contextlib.suppress(websockets.ConnectionClosed):  # the reconnect resumes it
            await self._send({"type": "watch", "v": PROTOCOL_VERSION, "game_id": game.game_id,
                              "after_seq": game.seq, "after_record": game.record_id})

    async def _request(
        self, msg: dict[str, Any], timeout: float = 30.0
    ) -> tuple[dict[str, Any], _Pending]:
        """Send a command and wait for its first reply (re-sent after a reconnect)."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        cmd_id = msg["cmd_id"]
        pending = _Pending(text=json.dumps(msg), future=fut)
        self.replies[cmd_id] = fut
        self._pending[cmd_id] = pending
        try:
            await self._send(msg)
            async with asyncio.timeout(timeout):  # see CANCEL_SAFE (clients/sdk/session.py)
                return await fut, pending
        finally:
            self._pending.pop(cmd_id, None)
            self.replies.pop(cmd_id, None)

    def _on_chat(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "chat_mutes":
            self.muted = set(msg["muted"])
            return
        log = self.chats.get(chat_key(msg.get("table_id"), msg.get("game_id")))
        if log is None:
            return
        if msg["type"] == "chat_history":
            log.channel = msg["channel"]
            self.muted = set(msg.get("muted", []))
            for line in msg["messages"]:
                log.add(line)
            log.joined.set()
            log.changed.set()
        else:
            log.add(msg)
