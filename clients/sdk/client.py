"""Empire Hall Python SDK (asyncio): lobby calls over HTTP, play over one WebSocket.

    async with Client("http://127.0.0.1:8000") as c:
        await c.sign_in("ada")
        table = await c.create_table("empire", seats=3, options={"version": "beginner"})
        await c.add_bot(table["table_id"]); await c.add_bot(table["table_id"])
        game_id = await c.start(table["table_id"])
        game = await c.watch(game_id)
        async for view in game.updates(): ...

Commitments and nonces are computed here (``commit``), and every reveal is checked against
the commitment received before the round closed (``GameSession.verify_reveals``). The client
resumes after a disconnect from its last view seq and record id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from shared.fairness.commitments import commitment, new_nonce


class ApiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class Receipt:
    """What a seat keeps after committing: enough to prove its choice later."""

    round_id: str
    slot: str
    choice: Any
    nonce: str
    commitment: str
    acknowledged: bool = False


@dataclass
class GameSession:
    game_id: str
    client: Client
    seat: int | None = None
    view: dict[str, Any] | None = None  # the latest ViewUpdate message
    seq: int = -1
    record: list[dict[str, Any]] = field(default_factory=list)
    record_id: str = "0-0"
    events: list[dict[str, Any]] = field(default_factory=list)
    receipts: dict[str, Receipt] = field(default_factory=dict)  # "<round>/<slot>" -> receipt
    commitments_seen: dict[str, str] = field(default_factory=dict)  # before close
    closed_rounds: set[str] = field(default_factory=set)
    rejections: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def ended(self) -> bool:
        return bool(self.view and self.view["node"].get("kind") == "terminal")

    def on_view(self, msg: dict[str, Any]) -> None:
        if msg["seq"] <= self.seq and not msg.get("gap"):
            return
        self.view, self.seq = msg, msg["seq"]
        self.seat = msg["seat"]
        self.events.extend(msg.get("events", []))
        self.changed.set()

    def on_record(self, msg: dict[str, Any]) -> None:
        entry = msg["entry"]
        self.record.append(entry)
        self.record_id = msg["id"]
        if entry.get("type") == "committed":
            self.commitments_seen[f"{entry['round_id']}/{entry['slot']}"] = entry["commitment"]
        elif entry.get("type") == "round_closed":
            self.closed_rounds.add(entry["round_id"])
        self.changed.set()

    def committed_slots(self, round_id: str) -> dict[str, dict[str, Any]]:
        """slot -> committed record entry, for a round (public parts included)."""
        return {e["slot"]: e for e in self.record
                if e.get("type") == "committed" and e["round_id"] == round_id}

    def verify_reveals(self) -> list[str]:
        """Check every revealed choice against the commitment seen before close.

        Returns a list of problems (empty = all verified)."""
        problems = []
        for e in self.record:
            if e.get("type") != "round_revealed":
                continue
            for o in e["openings"]:
                key = f"{e['round_id']}/{o['slot']}"
                seen = self.commitments_seen.get(key)
                if o["defaulted"]:
                    if seen is not None:
                        problems.append(f"{key}: committed but shown as defaulted")
                    continue
                c = commitment(self.game_id, e["round_id"], o["slot"], o["seat"], o["choice"],
                               o["nonce"])
                if seen is None or c != seen or c != o["commitment"]:
                    problems.append(f"{key}: reveal does not match the commitment")
                mine = self.receipts.get(key)
                if mine is not None and (mine.commitment != c or mine.choice != o["choice"]):
                    problems.append(f"{key}: my choice was altered")
        return problems

    async def wait(self, timeout: float = 30.0) -> None:
        self.changed.clear()
        await asyncio.wait_for(self.changed.wait(), timeout)

    async def act(self, action: Any, expected_seq: int | None = None) -> str:
        return await self.client.act(self.game_id, action,
                                     self.seq if expected_seq is None else expected_seq)

    async def commit(self, round_id: str, slot: str, choice: Any,
                     public: dict[str, Any] | None = None) -> Receipt:
        return await self.client.commit(self, round_id, slot, choice, public)


class Client:
    def __init__(self, base_url: str, token: str | None = None, capture: bool = False) -> None:
        self.base_url = base_url.rstrip("/")
        self.captured: list[str] | None = [] if capture else None  # raw frames, for audits
        self.token = token
        self.player_id: str | None = None
        self.name: str | None = None
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=30.0)
        self.ws: Any = None
        self.games: dict[str, GameSession] = {}
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP ----------------------------------------------------------------------------

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        r = await self.http.request(method, path, json=body, headers=headers)
        data = r.json()
        if r.status_code >= 400 or (isinstance(data, dict) and data.get("ok") is False):
            raise ApiError(data.get("code", f"http/{r.status_code}"), data.get("message", ""))
        return data

    async def sign_in(self, name: str) -> dict[str, Any]:
        data = await self._call("POST", "/api/players", {"name": name})
        self.token, self.player_id, self.name = data["token"], data["player_id"], data["name"]
        return dict(data)

    async def games_catalog(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/api/games"))["games"])

    async def create_table(self, game: str, seats: int, options: dict[str, Any] | None = None,
                           **extra: Any) -> dict[str, Any]:
        body = {"game": game, "seats": seats, "options": options or {}, **extra}
        return dict((await self._call("POST", "/api/tables", body))["table"])

    async def list_tables(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/api/tables"))

    async def join(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/join"))["table"])

    async def join_invite(self, code: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/invites/{code}/join"))["table"])

    async def add_bot(self, table_id: str, kind: str = "heuristic") -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/bots",
                                      {"kind": kind}))["table"])

    async def start(self, table_id: str) -> str:
        return str((await self._call("POST", f"/api/tables/{table_id}/start"))["game_id"])

    async def record(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/record"))

    async def result(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/result"))

    async def leaderboard(self, game: str) -> list[dict[str, Any]]:
        return list((await self._call("GET", f"/api/leaderboard/{game}"))["entries"])

    # -- WebSocket -----------------------------------------------------------------------

    async def connect(self) -> None:
        url = self.base_url.replace("http", "ws", 1) + f"/ws?token={self.token}"
        self.ws = await websockets.connect(url, max_size=2**24)
        hello = json.loads(await self.ws.recv())
        if hello.get("type") != "welcome":
            raise ApiError(hello.get("code", "auth/invalid_token"), hello.get("message", ""))
        self.player_id = hello["player_id"]
        self._reader = asyncio.create_task(self._read())

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
        """Resume every watched game from its last seq and record id."""
        for delay in (0.1, 0.2, 0.5, 1, 2, 2, 2, 5, 5, 5):
            await asyncio.sleep(delay)
            with contextlib.suppress(OSError, websockets.WebSocketException):
                url = self.base_url.replace("http", "ws", 1) + f"/ws?token={self.token}"
                self.ws = await websockets.connect(url, max_size=2**24)
                await self.ws.recv()  # welcome
                for g in self.games.values():
                    await self._send({"type": "watch", "game_id": g.game_id,
                                      "after_seq": g.seq, "after_record": g.record_id})
                return
        raise ConnectionError("could not reconnect")

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        game = self.games.get(msg.get("game_id", ""))
        if kind == "view" and game is not None:
            game.on_view(msg)
        elif kind == "record" and game is not None:
            game.on_record(msg)
        elif kind in ("accepted", "rejected", "committed"):
            cmd = msg.get("cmd_id")
            if kind == "committed" and game is not None:
                r = game.receipts.get(f"{msg['round_id']}/{msg['slot']}")
                if r is not None:
                    r.acknowledged = True
            if kind == "rejected" and game is not None:
                game.rejections.append(msg)
                game.changed.set()
            fut = self.replies.pop(cmd, None) if cmd else None
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def _send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def watch(self, game_id: str, timeout: float = 30.0) -> GameSession:
        if self.ws is None:
            await self.connect()
        game = self.games.setdefault(game_id, GameSession(game_id=game_id, client=self))
        await self._send({"type": "watch", "game_id": game_id})
        deadline = asyncio.get_running_loop().time() + timeout
        while game.view is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await game.wait(1.0)
            if game.rejections and game.rejections[-1].get("code") == "game/not_found":
                game.rejections.clear()
                await asyncio.sleep(0.2)
                await self._send({"type": "watch", "game_id": game_id})
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"no view of {game_id}")
        return game

    async def _command(self, msg: dict[str, Any]) -> dict[str, Any]:
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[msg["cmd_id"]] = fut
        await self._send(msg)
        return await asyncio.wait_for(fut, 30)

    async def act(self, game_id: str, action: Any, expected_seq: int | None) -> str:
        cmd_id = "c" + secrets.token_hex(8)
        reply = await self._command({"type": "act", "cmd_id": cmd_id, "game_id": game_id,
                                     "expected_seq": expected_seq, "action": action})
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return cmd_id

    async def commit(self, game: GameSession, round_id: str, slot: str, choice: Any,
                     public: dict[str, Any] | None = None) -> Receipt:
        """Commit a sealed choice; the nonce never leaves this process except in the opening
        sent to the escrow."""
        if game.seat is None:
            raise ApiError("seat/not_seated", "spectators cannot commit")
        nonce = new_nonce()
        c = commitment(game.game_id, round_id, slot, game.seat, choice, nonce)
        receipt = Receipt(round_id=round_id, slot=slot, choice=choice, nonce=nonce,
                          commitment=c)
        game.receipts[f"{round_id}/{slot}"] = receipt
        cmd_id = "k" + secrets.token_hex(8)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[cmd_id] = fut
        await self._send({"type": "commit", "cmd_id": cmd_id, "game_id": game.game_id,
                          "round_id": round_id, "slot": slot, "commitment": c,
                          "choice": choice, "nonce": nonce, "public": public})
        reply = await asyncio.wait_for(fut, 30)
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return receipt

    async def close(self) -> None:
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        await self.http.aclose()


async def updates(game: GameSession) -> AsyncIterator[dict[str, Any]]:
    """Yield each new view of a game until it ends."""
    last = -1
    while True:
        if game.view is not None and game.seq != last:
            last = game.seq
            yield game.view
            if game.ended:
                return
        with contextlib.suppress(asyncio.TimeoutError):
            await game.wait(1.0)
