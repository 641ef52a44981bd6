"""The bot runner: plays bot seats through the gateway's WebSocket with the SDK.

Each seat is held under a lease (``bots:lease:<game>:<seat>``) renewed while it plays; the
seats to play live in ``bots:active``. If a runner dies its leases lapse and another replica
(or the restarted one) resumes those seats from their last view.

A runner plays at most ``bots_max_seats`` seats at once. It reads ``bots:in`` only while it
has room, and only as many entries as it has room for (back-pressure: the other entries wait
in the stream, and any replica with room takes them); it adopts lapsed seats of
``bots:active`` the same way. Its seats share one HTTP client (connection pool and TLS
context) and open their WebSockets without compression, so a seat costs its socket, its
session and a task (bench/bot_seats.py: ~760 KiB per seat before, see docs/operations.md).

Seats of kind "easy", "normal" or "hard" play the game's search bot; their searches run in
a bounded pool of worker processes within each decision's time budget
(``services/bots/search.py``), so they never block the other seats.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import structlog

from clients.sdk.bot_player import play_seat
from clients.sdk.client import Client
from services.bots.search import SEARCH_KINDS, SearchPool, play_search_seat
from shared.protocol import internal as im
from shared.protocol import keys, streams
from shared.runtime.bus import _dead_letter
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.redis import ensure_group
from shared.runtime.settings import Settings

log = structlog.get_logger("bots")
ACTIVE = keys.BOTS_ACTIVE
LEASE_MS = 10_000


class BotRunner:
    def __init__(self, settings: Settings, redis: Any) -> None:
        self.settings = settings
        self.redis = redis
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.capacity = settings.bots_max_seats
        self._http: httpx.AsyncClient | None = None
        self._room = asyncio.Event()  # set when a seat ends (the reader may read again)
        self.search = SearchPool(settings.bots_search_workers)  # easy/normal/hard seats

    @property
    def free(self) -> int:
        return max(0, self.capacity - len(self.tasks))

    def http(self) -> httpx.AsyncClient:
        """One HTTP client for every seat of this runner."""
        if self._http is None:
            self._http = httpx.AsyncClient(base_url=self.settings.gateway_url, timeout=30.0,
                                           limits=httpx.Limits(max_connections=32))
        return self._http

    async def close(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._http is not None:
            await self._http.aclose()
        self.search.close()

    @staticmethod
    def _key(seat: im.SeatBot) -> str:
        return f"{seat.game_id}:{seat.seat}"

    async def on_seat(self, body: dict[str, Any]) -> None:
        seat = im.SeatBot.model_validate(body)
        await self.redis.hset(ACTIVE, self._key(seat), dumps(seat.model_dump()))
        await self._maybe_start(seat)

    async def _maybe_start(self, seat: im.SeatBot) -> bool:
        """Take the seat if this runner has room and nobody holds it."""
        key = self._key(seat)
        if key in self.tasks:
            return True
        if self.free <= 0:
            return False
        if not await self.redis.set(keys.bots_lease(key), self.settings.instance, nx=True,
                                    px=LEASE_MS):
            return False
        self.tasks[key] = asyncio.create_task(self._play(seat))
        return True

    async def _play(self, seat: im.SeatBot) -> None:
        key = self._key(seat)
        renew = asyncio.create_task(self._renew(key))
        try:
            async with Client(self.settings.gateway_url, token=seat.token, http=self.http(),
                              compression=False) as c:
                if seat.kind in SEARCH_KINDS:  # issue 22: ISMCTS in the worker pool
                    await play_search_seat(c, seat.game_id, seat.kind, self.search)
                else:
                    await play_seat(c, seat.game_id, kind=seat.kind)
            await self.redis.hdel(ACTIVE, key)
            log.info("bot_done", game_id=seat.game_id, seat=seat.seat)
        except Exception as exc:
            log.warning("bot_error", game_id=seat.game_id, seat=seat.seat, error=repr(exc))
        finally:
            renew.cancel()
            with contextlib.suppress(Exception):
                await self.redis.delete(keys.bots_lease(key))
            self.tasks.pop(key, None)
            self._room.set()

    async def _renew(self, key: str) -> None:
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            await self.redis.set(keys.bots_lease(key), self.settings.instance, px=LEASE_MS)

    # -- the input, read only while there is room ---------------------------------------

    async def read_loop(self) -> None:
        """Read ``bots:in`` in the bots group, at most as many entries as there is room for;
        each is stored in ``bots:active`` (durable) and started, then XACKed and XDELed."""
        stream, group = streams.BOTS_IN, streams.GROUP_BOTS
        while True:
            if self.free <= 0:
                self._room.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._room.wait(), 1.0)
                continue
            try:
                res = await self.redis.xreadgroup(group, self.settings.instance, {stream: ">"},
                                                  count=min(self.free, 64), block=1000)
                for _, entries in res or ():
                    await self._take(entries)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Valkey restarting: try again shortly
                log.warning("bots_read_failed", error=repr(exc)[:200])
                await asyncio.sleep(self.settings.read_retry_s)
                if "NOGROUP" in str(exc):  # the server lost its data: start over
                    with contextlib.suppress(Exception):
                        await ensure_group(self.redis, stream, group)

    async def reclaim_loop(self) -> None:
        """Entries a dead runner read but did not store: taken over when there is room."""
        stream, group = streams.BOTS_IN, streams.GROUP_BOTS
        while True:
            await asyncio.sleep(streams.RECLAIM_IDLE_MS / 1000)
            if self.free <= 0:
                continue
            with contextlib.suppress(Exception):
                _, claimed, *_ = await self.redis.xautoclaim(
                    stream, group, self.settings.instance,
                    min_idle_time=streams.RECLAIM_IDLE_MS, start_id="0-0",
                    count=min(self.free, 64))
                await self._take([e for e in claimed if e[1] is not None])

    async def _take(self, entries: list[Any]) -> None:
        done: list[bytes] = []
        for msg_id, fields in entries:
            body = _body(fields)
            try:
                await self.on_seat(body)
                done.append(msg_id)
            except Exception as exc:  # malformed: never playable, moved to the dlq
                log.error("bad_seat_message", error=repr(exc)[:300])
                await _dead_letter(self.redis, streams.BOTS_IN, body, exc)
                done.append(msg_id)
        if done:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.xack(streams.BOTS_IN, streams.GROUP_BOTS, *done)
                pipe.xdel(streams.BOTS_IN, *done)
                await pipe.execute()

    async def resume_loop(self) -> None:
        """Adopt seats whose runner died (lease lapsed) or that ended with an error, while
        this runner has room."""
        while True:
            with contextlib.suppress(Exception):
                cursor = 0
                while self.free > 0:
                    cursor, page = await self.redis.hscan(ACTIVE, cursor, count=200)
                    for raw in page.values():
                        if self.free <= 0:
                            break
                        await self._maybe_start(im.SeatBot.model_validate(loads(raw)))
                    if cursor == 0:
                        break
            await asyncio.sleep(3.0)


def _body(fields: dict[bytes, bytes]) -> Any:
    """A stream entry's JSON body (faststream's wire format, or a plain ``d`` field)."""
    from faststream.redis.parser.binary import BinaryMessageFormatV1

    raw = fields.get(b"__data__")
    if raw is None:
        return loads(fields.get(b"d", b"{}"))
    data, _ = BinaryMessageFormatV1.parse(raw)
    return loads(data) if data else {}


__all__ = ["ACTIVE", "LEASE_MS", "BotRunner", "text"]
