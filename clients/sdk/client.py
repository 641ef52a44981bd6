"""Empire Hall Python SDK (asyncio): lobby calls over HTTP, play over one WebSocket.

    async with Client("http://127.0.0.1:8000") as c:
        await c.sign_in("ada")
        table = await c.create_table("empire", seats=3, options={"version": "beginner"})
        await c.add_bot(table["table_id"]); await c.add_bot(table["table_id"])
        game_id = await c.start(table["table_id"])
        game = await c.watch(game_id)
        async for view in game.updates(): ...

Commitments and nonces are computed here (``commit``), and every reveal is checked against
the commitment received before the round closed (``GameSession.verify_reveals``); once a game
is over ``Client.verify_game`` re-checks the dealer's proofs and every sealed round from the
public record (``shared.fairness.verify``). The client resumes after a disconnect on its own
(``clients.sdk.connection``).

This module is the SDK's public face: ``Client`` is assembled from one layer per subject,
each in its own module (``accounts``: HTTP requests and accounts; ``lobby``: tables and
matches; ``connection``: the socket; ``commands``: signed acts and commits; ``chat``: table
talk), and the names users import are re-exported here.
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from clients.sdk.accounts import IDEMPOTENT_TRIES
from clients.sdk.chat import Chat
from clients.sdk.chat_log import ChatLog
from clients.sdk.commands import KEPT_RECEIPTS
from clients.sdk.connection import WATCH_AGAIN, WATCH_BACKOFF_S, WATCH_TRIES
from clients.sdk.errors import TRANSIENT_CODES, ApiError
from clients.sdk.lobby import Verification
from clients.sdk.session import GameSession, Receipt, updates
from shared.runtime.session_keys import SessionKey

__all__ = [
    "IDEMPOTENT_TRIES",
    "KEPT_RECEIPTS",
    "TRANSIENT_CODES",
    "WATCH_AGAIN",
    "WATCH_BACKOFF_S",
    "WATCH_TRIES",
    "ApiError",
    "ChatLog",
    "Client",
    "GameSession",
    "Receipt",
    "Verification",
    "updates",
]


class Client(Chat):
    def __init__(self, base_url: str, token: str | None = None, capture: bool = False,
                 http: httpx.AsyncClient | None = None, compression: bool = True,
                 keepalive: bool = True, open_timeout_s: float = 10.0) -> None:
        """``http``: an HTTP client to share (e.g. one per bot runner for all its seats: each
        httpx client holds a TLS context of ~0.8 MiB); it is not closed with this client.
        ``compression``: permessage-deflate on the WebSocket (its zlib state costs ~300 KiB
        per connection; off for many connections in one process). ``keepalive``: WebSocket
        pings every 20 s (off for a load driver, whose loop may be busier than the pings'
        timeout). ``open_timeout_s``: the WebSocket's opening handshake."""
        self.base_url = base_url.rstrip("/")
        self._ping_interval = 20.0 if keepalive else None
        self._open_timeout_s = open_timeout_s
        self.captured = [] if capture else None  # raw frames, for audits
        self.token = token  # the access token (minutes) or a bot's seat token
        self.refresh_token = None  # spent on every refresh, replaced
        self.access_expires_ms = 0  # 0: unknown (a token handed in): never refreshed early
        self.session_id = None
        self.player_id = None
        self.name = None
        self._refreshing = None
        # this session's Ed25519 key: every act and commit is signed with it (registered
        # through the lobby for the player first: docs/protocol.md "Signed commands")
        self.session_key = SessionKey()
        self._key_registered = ""
        self._own_http = http is None
        self.http = http if http is not None else httpx.AsyncClient(base_url=self.base_url,
                                                                     timeout=30.0)
        self._compression = "deflate" if compression else None
        self.ws = None
        self.games = {}
        self.chats = {}  # "t:<table>" / "g:<game>" -> a joined channel
        self.muted = set()  # players whose messages this player does not see
        self._chat_cmds = set()  # chat commands awaiting their reply
        self.kept_receipts = {}  # receipts of unwatched games
        self.replies = {}
        self._reader = None
        self._closing = False
        self._pending = {}  # cmd_id -> command awaiting its reply
        self._resent = set()  # cmd ids sent again after a reconnect
        self._gen = 0  # bumped on every (re)connection
        self.reconnects = 0
        self.resent = 0  # commands sent again after a reconnect
        # a watch refused by a refusal that may pass, sent again (``_watch_again``)
        self._rewatch = {}  # game id -> the pending re-send
        self._rewatch_tries = {}  # game id -> refusals in a row
        self.rewatched = 0  # watches sent again after such a refusal
        # "My games" (clients/sdk/my_games.py), kept by the my_game frames
        self.my_games_by_id = {}
        self.my_games_changed = asyncio.Event()
        self.clock_offset_ms = 0

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._closing = True
        for task in list(self._rewatch.values()):
            task.cancel()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._own_http:
            await self.http.aclose()
