"""Live connections and what each one watches; relays only the watcher's own streams.

A connection watching game G as seat s receives entries of ``g:{G}:v:<s>`` (its own view
stream) and ``g:{G}:rec`` (the public record); a spectator receives ``g:{G}:v:spec``. Nothing
else is ever read for a client. Every gateway replica reads the ``gw:updates`` fan-out stream
and pumps the watchers of the games named there; a slow sweep catches anything missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import structlog
from pydantic import ValidationError

from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads, text

log = structlog.get_logger("gateway")

VIEW_PAGE = 200  # view entries read per watcher per pump (a view is a complete snapshot)
RECORD_PAGE = 500  # public record entries per read; a longer backlog is paged


@dataclass
class Watch:
    game_id: str
    seat: int | None
    view_id: str = "0-0"  # last view stream id sent
    record_id: str = "0-0"  # last record stream id sent
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(eq=False)
class Connection:
    player_id: str
    name: str
    send_text: Any  # async (str) -> None
    watches: dict[str, Watch] = field(default_factory=dict)
    closed: bool = False

    async def send(self, msg: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            await self.send_text(dumps(msg))
        except Exception:  # the socket is gone; the reader loop cleans up
            self.closed = True


class Hub:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.by_game: dict[str, set[Connection]] = defaultdict(set)
        self.by_player: dict[str, set[Connection]] = defaultdict(set)
        self._meta: dict[str, dict[str, Any]] = {}
        self._active: dict[str, float] = {}  # game -> last fan-out (monotonic)

    async def meta(self, game_id: str) -> dict[str, Any] | None:
        if game_id in self._meta:
            return self._meta[game_id]
        raw = await self.redis.get(Keys(game_id).meta)
        if raw is None:
            return None
        meta = loads(raw)
        if len(self._meta) > 50_000:
            self._meta.clear()
        self._meta[game_id] = meta
        return meta  # type: ignore[no-any-return]

    async def seat_of(self, game_id: str, player_id: str) -> tuple[bool, int | None]:
        """(game exists, seat or None for a spectator)."""
        meta = await self.meta(game_id)
        if meta is None:
            return False, None
        for i, p in enumerate(meta["players"]):
            if p["player_id"] == player_id:
                return True, i
        return True, None

    def add(self, conn: Connection) -> None:
        self.by_player[conn.player_id].add(conn)

    def remove(self, conn: Connection) -> None:
        conn.closed = True
        self.by_player[conn.player_id].discard(conn)
        if not self.by_player[conn.player_id]:
            del self.by_player[conn.player_id]
        for gid in conn.watches:
            self.by_game[gid].discard(conn)
            if not self.by_game[gid]:
                del self.by_game[gid]

    async def watch(self, conn: Connection, game_id: str, seat: int | None, after_seq: int,
                    after_record: str) -> None:
        w = Watch(game_id=game_id, seat=seat, record_id=after_record)
        conn.watches[game_id] = w
        self.by_game[game_id].add(conn)
        self._active[game_id] = time.monotonic()
        async with w.lock:
            await self._resume_view(conn, w, after_seq)
            await self._pump_record(conn, w)

    def unwatch(self, conn: Connection, game_id: str) -> None:
        conn.watches.pop(game_id, None)
        self.by_game[game_id].discard(conn)

    async def _resume_view(self, conn: Connection, w: Watch, after_seq: int) -> None:
        key = Keys(w.game_id).view(w.seat)
        entries = await self.redis.xrevrange(key, count=64)
        if not entries:
            return
        entries.reverse()
        payloads = [(text(i), loads(f[b"d"])) for i, f in entries]
        newer = [(i, p) for i, p in payloads if p["seq"] > after_seq]
        if after_seq < 0 or not newer or newer[0][1]["seq"] != after_seq + 1:
            # fresh watch or a gap: the latest snapshot is complete on its own
            last_id, last = payloads[-1]
            if last["seq"] > after_seq:
                await conn.send(self._view_msg(w, last, gap=after_seq >= 0))
            w.view_id = last_id
            return
        for i, p in newer:
            await conn.send(self._view_msg(w, p))
            w.view_id = i

    def _view_msg(self, w: Watch, p: dict[str, Any], gap: bool = False) -> dict[str, Any]:
        return {"type": "view", "v": 1, "game_id": w.game_id, "seq": p["seq"],
                "seat": p["seat"], "stage": p.get("stage"), "view": p["view"],
                "legal": p["legal"], "node": p["node"], "events": p["events"],
                "cmd_ids": p.get("cmd_ids", []), "gap": gap}

    async def _send_views(self, conn: Connection, w: Watch, entries: list[Any]) -> None:
        for i, f in entries:
            await conn.send(self._view_msg(w, loads(f[b"d"])))
            w.view_id = text(i)

    async def _send_records(self, conn: Connection, w: Watch, entries: list[Any]) -> None:
        for i, f in entries:
            await conn.send({"type": "record", "v": 1, "game_id": w.game_id,
                             "id": text(i), "entry": loads(f[b"d"])})
            w.record_id = text(i)

    async def _pump_record(self, conn: Connection, w: Watch) -> None:
        key = Keys(w.game_id).record
        while True:
            entries = await self.redis.xrange(key, min=f"({w.record_id}", count=RECORD_PAGE)
            await self._send_records(conn, w, entries)
            if len(entries) < RECORD_PAGE:
                return

    async def pump(self, game_id: str) -> None:
        """One pipelined round trip for every watcher of the game (view + record each)."""
        todo = [(conn, w) for conn in list(self.by_game.get(game_id, ()))
                if (w := conn.watches.get(game_id)) is not None and not conn.closed]
        if not todo:
            return
        todo.sort(key=lambda cw: id(cw[1]))  # one lock order for concurrent pumps
        held: list[asyncio.Lock] = []
        try:
            for _, w in todo:
                await w.lock.acquire()
                held.append(w.lock)
            k = Keys(game_id)
            async with self.redis.pipeline(transaction=False) as pipe:
                for _, w in todo:
                    pipe.xrange(k.view(w.seat), min=f"({w.view_id}", count=VIEW_PAGE)
                    pipe.xrange(k.record, min=f"({w.record_id}", count=RECORD_PAGE)
                res = await pipe.execute()
            for i, (conn, w) in enumerate(todo):
                await self._send_views(conn, w, res[2 * i])
                await self._send_records(conn, w, res[2 * i + 1])
                if len(res[2 * i + 1]) >= RECORD_PAGE:
                    await self._pump_record(conn, w)
        finally:
            for lock in held:
                lock.release()

    async def deliver_batch(self, bodies: list[dict[str, Any]]) -> None:
        """A batch of fan-out entries: every game named in it is pumped once (a reply means
        its game changed too), then the replies go to their players, each after the state it
        refers to."""
        dirty: dict[str, None] = {}
        replies: list[im.Reply] = []
        for body in bodies:
            if body.get("type") == "notify" and isinstance(gid := body.get("game_id"), str):
                dirty[gid] = None
                continue
            try:
                msg = im.GATEWAY_INPUT.validate_python(body)
            except ValidationError as exc:
                log.error("malformed_fan_out_entry", error=str(exc)[:300])
                continue
            dirty[msg.game_id] = None
            if isinstance(msg, im.Reply) and msg.player_id in self.by_player:
                replies.append(msg)
        now = time.monotonic()
        games = [g for g in dirty if g in self.by_game]
        for g in games:
            self._active[g] = now
        await asyncio.gather(*(self.pump(g) for g in games))
        for msg in replies:
            if msg.ok:
                out: dict[str, Any] = {"type": "committed", "v": 1, "cmd_id": msg.cmd_id,
                                       "game_id": msg.game_id, "round_id": msg.round_id,
                                       "slot": msg.slot, "commitment": msg.commitment}
            else:
                out = {"type": "rejected", "v": 1, "cmd_id": msg.cmd_id,
                       "game_id": msg.game_id, "code": msg.code, "message": msg.message}
            for conn in list(self.by_player.get(msg.player_id, ())):
                await conn.send(out)

    async def sweep_loop(self, every_s: float = 2.0, active_s: float = 60.0) -> None:
        """Catch anything a lost fan-out entry missed, for games that changed recently (a
        watched game that stays quiet, e.g. a finished one nobody unwatched, is not read)."""
        while True:
            await asyncio.sleep(every_s)
            cutoff = time.monotonic() - active_s
            for gid, seen in list(self._active.items()):
                if seen < cutoff or gid not in self.by_game:
                    self._active.pop(gid, None)
                    continue
                with contextlib.suppress(Exception):
                    await self.pump(gid)
