"""The load driver: players of the commit-reveal workload that react to every frame.

Each :class:`Player` holds one WebSocket to the gateway (one per player, as the web page and the
SDK do), opened by the SDK's client (clients/sdk/client.py, ``connect(read=False)``), and plays
any number of games on it, one after another or at once. Its reader reacts
to every view as soon as it arrives: a sealed round that this seat has not committed yet is
committed at once (commitment from ``shared.fairness.commitments``, fresh 32-byte nonce, the
opening sealed to the escrow key of the round's round_opened record entry), so
every seat "moves as soon as allowed". Timings use ``time.perf_counter``:

* submit->ack: the commit frame is sent -> the escrow's receipt (``committed``) arrives;
* submit->reveal: the commit frame is sent -> the view that carries the round's
  ``picks_revealed`` event arrives (the round is scored; for the last seat to commit this is
  the whole round trip through escrow, adjudicator and gateway).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from clients.sdk.client import ApiError, Client
from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import seal_opening
from shared.protocol.versions import PROTOCOL_VERSION, SEALED_COMMIT_VERSION
from shared.runtime.session_keys import SessionKey

GAME = "duel"
OPTIONS: dict[str, Any] = {"rounds": 5, "with_turns": False, "with_dice": False}
ROUNDS = int(OPTIONS["rounds"])
LONG_TIMEOUT_MS = 3_600_000  # idle pooled games must not reach their round deadline


class BenchError(Exception):
    pass


@dataclass
class Stats:
    """Everything the driver measures (seconds, perf_counter clock)."""

    ack: list[tuple[float, float]] = field(default_factory=list)  # (when, seconds)
    reveal: list[tuple[float, float]] = field(default_factory=list)
    rounds_done: list[float] = field(default_factory=list)  # completion time of each round
    games_done: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    frames_in: int = 0
    frames_out: int = 0
    # frames received by kind: the frame's type, a record frame's entry type after a colon
    # ("record:committed"): what a seat receives per round
    frames_by_kind: Counter[str] = field(default_factory=Counter)
    measuring: bool = True
    # (game id, rounds completed, when) per round seat 0 sees revealed, when a list (the long
    # match: bench/longmatch.py)
    marks: list[tuple[str, int, float]] | None = None

    def clear(self) -> None:
        self.ack.clear()
        self.reveal.clear()
        self.rounds_done.clear()
        self.games_done.clear()
        self.errors.clear()
        self.frames_in = self.frames_out = 0
        self.frames_by_kind.clear()


@dataclass
class Track:
    """One player's view of one game."""

    game_id: str
    done: asyncio.Future[None]
    until: str | None = None  # stop (and resolve) once this round is open at the escrow
    seq: int = -1
    seat: int | None = None
    committed: set[str] = field(default_factory=set)
    submitted: dict[str, float] = field(default_factory=dict)  # round id -> send time
    escrow_keys: dict[str, str] = field(default_factory=dict)  # round id -> round_opened's key
    waiting: dict[str, Any] | None = None  # a round's node offered before its round_opened


_ids = itertools.count(1)
# Whether the players sign their commits with their session key (docs/protocol.md "Signed
# commands"); off only for the A/B of what signing costs (`python -m bench --signatures off`,
# which also starts the services with EMPIRE_REQUIRE_SIGNATURES=0, or they refuse them).
SIGN = True
# The protocol version of the players' watches: 3 (the default) gets one frame per state change
# with its record entries; 2 one frame per record entry (`python -m bench
# --protocol 2`, the A/B of the frames alone, same code)
WATCH_VERSION = PROTOCOL_VERSION


@functools.cache
def _idle_http() -> httpx.AsyncClient:
    """The HTTP client every player's SDK client is given: never used (the tokens are handed
    in, so none is refreshed), and one instead of one per player (each costs a TLS context:
    ~0.1 s of CPU and ~0.8 MiB)."""
    return httpx.AsyncClient()


class Player:
    """One signed-in player with one WebSocket."""

    def __init__(
        self,
        base_url: str,
        player_id: str,
        token: str,
        stats: Stats,
        rng: random.Random | None = None,
        key: SessionKey | None = None,
    ) -> None:
        self.player_id = player_id
        self.token = token
        self.key = key or SessionKey()  # registered for the player (Lobby.sign_in)
        self.stats = stats
        self.rng = rng or random.Random()
        # the SDK's client holds the socket (token in the subprotocol offer, never in the
        # URL; the welcome checked); this player reads every frame itself
        self.client = Client(base_url, token=token, http=_idle_http(), compression=False,
                             keepalive=False, open_timeout_s=30.0)
        self.tracks: dict[str, Track] = {}
        self.pending: dict[str, float] = {}  # commit cmd id -> send time
        self._reader: asyncio.Task[None] | None = None
        self.lost = False  # the connection ended (the gateway closed it or died)

    async def connect(self) -> None:
        try:
            await self.client.connect(read=False)
        except ApiError as exc:
            raise BenchError(f"not welcomed: {exc}") from exc
        self._reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self.client.close()
        for tr in self.tracks.values():
            if not tr.done.done():
                tr.done.set_exception(BenchError("connection closed"))
        self.tracks.clear()

    async def send(self, msg: dict[str, Any]) -> None:
        self.stats.frames_out += 1
        await self.client.send_raw(orjson.dumps(msg).decode())

    def follow(self, game_id: str, until: str | None = None) -> asyncio.Future[None]:
        """Play a game; the future resolves when it ends, or (``until``) as soon as that
        sealed round is open at the escrow, without committing to it."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tracks[game_id] = Track(game_id=game_id, done=fut, until=until)
        return fut

    async def watch(self, game_id: str, until: str | None = None) -> asyncio.Future[None]:
        fut = self.follow(game_id, until)
        await self.send({"type": "watch", "v": WATCH_VERSION, "game_id": game_id})
        return fut

    async def unwatch(self, game_id: str) -> None:
        self.tracks.pop(game_id, None)
        await self.send({"type": "unwatch", "game_id": game_id})

    # -- the reader: decide on every frame ------------------------------------------------

    async def _read(self) -> None:
        try:
            async for raw in self.client.raw_frames():
                now = time.perf_counter()
                self.stats.frames_in += 1
                msg = orjson.loads(raw)
                kind = msg.get("type")
                if kind == "record":
                    self.stats.frames_by_kind[f"record:{msg['entry'].get('type')}"] += 1
                else:
                    self.stats.frames_by_kind[str(kind)] += 1
                if kind == "view":
                    # version 3: the record entries up to this state change come first
                    for item in msg.get("records", ()):
                        await self._on_record({"game_id": msg["game_id"], **item})
                    await self._on_view(msg, now)
                elif kind == "record":
                    await self._on_record(msg)
                elif kind == "records":
                    for item in msg["records"]:
                        await self._on_record({"game_id": msg["game_id"], **item})
                elif kind == "committed":
                    t0 = self.pending.pop(msg["cmd_id"], None)
                    if t0 is not None and self.stats.measuring:
                        self.stats.ack.append((t0, now - t0))
                elif kind == "rejected":
                    self.stats.errors[str(msg.get("code"))] += 1
                    self.pending.pop(str(msg.get("cmd_id")), None)
                    tr = self.tracks.get(str(msg.get("game_id")))
                    if tr is not None and not tr.done.done():
                        tr.done.set_exception(
                            BenchError(f"{msg.get('code')}: {msg.get('message')}")
                        )
        finally:
            self.lost = True
            for tr in self.tracks.values():
                if not tr.done.done():
                    tr.done.set_exception(BenchError("connection lost"))

    async def _on_record(self, msg: dict[str, Any]) -> None:
        tr = self.tracks.get(msg["game_id"])
        if tr is None:
            return
        entry = msg["entry"]
        if entry.get("type") == "round_opened" and isinstance(entry.get("escrow_key"), str):
            rid = entry["round_id"]
            tr.escrow_keys[rid] = entry["escrow_key"]
            node, tr.waiting = tr.waiting, None
            if node is not None:
                await self._commit_round(tr, node)
        if tr.until is None:
            return
        if (
            entry.get("type") == "round_opened"
            and entry.get("round_id") == tr.until
            and not tr.done.done()
        ):
            tr.done.set_result(None)

    async def _on_view(self, msg: dict[str, Any], now: float) -> None:
        tr = self.tracks.get(msg["game_id"])
        if tr is None or msg["seq"] <= tr.seq:
            return
        tr.seq, tr.seat = msg["seq"], msg["seat"]
        for ev in msg["events"]:
            if ev["type"] == "picks_revealed":
                rid = f"pick:{ev['data']['round']}"
                if self.stats.marks is not None and tr.seat == 0:
                    self.stats.marks.append((tr.game_id, int(ev["data"]["round"]), now))
                t0 = tr.submitted.pop(rid, None)
                if self.stats.measuring:
                    if t0 is not None:
                        self.stats.reveal.append((t0, now - t0))
                    if tr.seat == 0:
                        self.stats.rounds_done.append(now)
        node = msg["node"]
        kind = node.get("kind")
        if kind == "terminal":
            if not tr.done.done():
                if tr.seat == 0 and self.stats.measuring:
                    self.stats.games_done.append(now)
                tr.done.set_result(None)
            return
        if kind != "simultaneous" or tr.seat is None:
            return
        rid = node["round_id"]
        if rid in tr.committed or rid == tr.until:
            return
        if not tr.escrow_keys:  # the first round_opened (the key to seal to) comes next
            tr.waiting = node
            return
        await self._commit_round(tr, node)

    async def _commit_round(self, tr: Track, node: dict[str, Any]) -> None:
        rid = node["round_id"]
        if rid in tr.committed or tr.seat is None:
            return
        tr.committed.add(rid)
        for slot in node["my_slots"]:
            if node.get("platform"):
                choice: Any = secrets.token_hex(32)  # a client seed for the dealer
            else:
                choice = self.rng.choice(slot["allowed"])
            nonce = new_nonce()
            c = commitment(tr.game_id, rid, slot["key"], tr.seat, choice, nonce)
            # the round's key, or until its round_opened arrives the game's latest (the
            # escrow has one key)
            key = tr.escrow_keys.get(rid) or next(reversed(tr.escrow_keys.values()))
            sealed = seal_opening(key, tr.game_id, rid, slot["key"], tr.seat, choice, nonce)
            cmd_id = f"k{next(_ids):x}"
            t0 = time.perf_counter()
            self.pending[cmd_id] = t0
            if rid.startswith("pick:"):
                tr.submitted.setdefault(rid, t0)
            await self.send(
                {
                    "type": "commit",
                    "v": SEALED_COMMIT_VERSION,
                    "cmd_id": cmd_id,
                    "game_id": tr.game_id,
                    "round_id": rid,
                    "slot": slot["key"],
                    "commitment": c,
                    "sealed": sealed,
                    **(self.key.sign_commit(tr.game_id, tr.seat, cmd_id, rid, slot["key"], c,
                                            sealed, None) if SIGN else {}),
                }
            )


# -- HTTP: players and tables ---------------------------------------------------------------


@dataclass
class Identity:
    player_id: str
    token: str
    key: SessionKey = field(default_factory=SessionKey)  # registered at sign-in


class Lobby:
    """The few HTTP calls the workload needs (sign in, create, join, start)."""

    def __init__(self, base_url: str, connections: int = 64) -> None:
        self.table_log: dict[str, str] | None = None  # game id -> table id, when set
        # uvicorn drops idle keep-alive connections after 5 s: expire ours sooner
        limits = httpx.Limits(
            max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=2.0
        )
        self.http = httpx.AsyncClient(base_url=base_url, timeout=60.0, limits=limits)

    async def close(self) -> None:
        await self.http.aclose()

    async def _call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        for attempt in range(3):
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
                break
            except httpx.RemoteProtocolError:  # a reused connection the server had closed
                if attempt == 2:
                    raise
        data = r.json()
        if r.status_code >= 400 or (isinstance(data, dict) and data.get("ok") is False):
            raise BenchError(f"{method} {path}: {r.status_code} {data}")
        return data

    async def sign_in(self, name: str) -> Identity:
        data = await self._call("POST", "/api/players", body={"name": name})
        ident = Identity(player_id=data["player_id"], token=data["token"])
        # the session key every commit is signed with (docs/protocol.md "Signed commands")
        await self._call("POST", "/api/session-keys", ident.token, {"key": ident.key.public})
        return ident

    async def new_game(
        self, host: Identity, guest: Identity, client_entropy: bool,
        options: dict[str, Any] | None = None,
    ) -> tuple[str, str]:
        """create (the host takes seat 0), join (seat 1), start: (game id, table id);
        ``options``: the duel's (the workload's OPTIONS unless given)."""
        body = {
            "game": GAME,
            "seats": 2,
            "options": OPTIONS if options is None else options,
            "public": False,
            "client_entropy": client_entropy,
            "round_timeout_ms": LONG_TIMEOUT_MS,
            "turn_timeout_ms": LONG_TIMEOUT_MS,
        }
        table = (await self._call("POST", "/api/tables", host.token, body))["table"]
        tid = table["table_id"]
        # a private table (out of the public listing) is joined with its invite
        await self._call("POST", f"/api/invites/{table['invite']}/join", guest.token)
        gid = str((await self._call("POST", f"/api/tables/{tid}/start", host.token))["game_id"])
        if self.table_log is not None:
            self.table_log[gid] = tid
        return gid, tid


async def gather_limited(n: int, coros: list[Any]) -> list[Any]:
    """Run coroutines with at most ``n`` in flight."""
    sem = asyncio.Semaphore(n)

    async def one(c: Any) -> Any:
        async with sem:
            return await c

    return list(await asyncio.gather(*(one(c) for c in coros)))
