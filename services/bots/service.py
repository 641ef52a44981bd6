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

A place is held by a game that moves, not by whoever came first: when the runner is full and
a seat waits, the seat whose game has been still the longest (``bots_park_idle_s`` at least)
is parked for it and looked at again later (services/bots/parking.py). So guests' games that
nobody plays cannot keep a newcomer's bot waiting.

Seats of kind "easy", "normal" or "hard" play the game's search bot; their searches run in
a bounded pool of worker processes within each decision's time budget
(``services/bots/search.py``), so they never block the other seats.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import httpx
import structlog

from clients.sdk.bot_player import make_bot, play_with
from clients.sdk.client import Client
from services.bots import parking
from services.bots.ports import BotsStorePort
from services.bots.search import SEARCH_KINDS, SearchPool, play_search
from services.bots.store import ACTIVE, LEASE_MS, decode
from shared.protocol import internal as im
from shared.protocol.streams import RECLAIM_IDLE_MS
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.settings import Settings
from shared.runtime.tasks import cancel_and_wait

log = structlog.get_logger("bots")


# plays one seat to its end (the default: the SDK through the gateway's WebSocket)
PlaySeat = Callable[[im.SeatBot], Awaitable[None]]


class Watched(Protocol):
    """What the runner reads of a seat's game to know when it last changed (a GameSession)."""

    @property
    def seq(self) -> int: ...


def now_ms() -> int:
    return int(time.time() * 1000)


def queued_ms(msg_id: bytes) -> int | None:
    """A stream entry's time (its id's first part), None when the id is not a stream id."""
    head = msg_id.split(b"-", 1)[0]
    return int(head) if head.isdigit() else None


class BotRunner:
    def __init__(self, settings: Settings, store: BotsStorePort,
                 play: PlaySeat | None = None) -> None:
        self.settings = settings
        self.store = store
        self.play_seat: PlaySeat = play or self._play_through_gateway
        self.reclaim_s = RECLAIM_IDLE_MS / 1000  # how often entries of dead runners are looked for
        self.renew_s = LEASE_MS / 3000  # a seat's lease is renewed every third of its life
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.capacity = settings.bots_max_seats
        self.park_idle_ms = int(settings.bots_park_idle_s * 1000)
        self.park_max_ms = max(self.park_idle_ms, int(settings.bots_park_max_s * 1000))
        self.activity: dict[str, parking.Activity] = {}  # the seats played, by key
        self.watched: dict[str, Watched] = {}  # their games, once watched
        self._http: httpx.AsyncClient | None = None
        self._room = asyncio.Event()  # set when a seat ends (the reader may read again)
        self.search = SearchPool(settings.bots_search_workers)  # easy/normal/hard seats

    @property
    def free(self) -> int:
        return max(0, self.capacity - len(self.tasks))

    def room(self) -> int:
        """Places for seats that wait: the free ones and those of seats parkable for them."""
        self.observe()
        return self.free + parking.still(self.activity, now_ms(), self.park_idle_ms)

    def observe(self) -> None:
        """Note which seats' games changed since the last look."""
        t = now_ms()
        for key, game in list(self.watched.items()):
            a = self.activity.get(key)
            if a is not None:
                a.saw(game.seq, t)

    async def observe_loop(self) -> None:
        """Look at the seats' games every second (when each last changed)."""
        while True:
            await asyncio.sleep(1.0)
            self.observe()

    def http(self) -> httpx.AsyncClient:
        """One HTTP client for every seat of this runner."""
        if self._http is None:
            self._http = httpx.AsyncClient(base_url=self.settings.gateway_url, timeout=30.0,
                                           limits=httpx.Limits(max_connections=32))
        return self._http

    async def close(self) -> None:
        await cancel_and_wait(list(self.tasks.values()))
        if self._http is not None:
            await self._http.aclose()
        self.search.close()

    @staticmethod
    def _key(seat: im.SeatBot) -> str:
        return f"{seat.game_id}:{seat.seat}"

    async def on_seat(self, body: dict[str, Any], queued_ms: int | None = None) -> None:
        """A seat to play (queued at ``queued_ms``: its stream entry's time): stored, and
        started if there is a place for it, else noted as waiting since then."""
        seat = im.SeatBot.model_validate(body)
        key = self._key(seat)
        await self.store.keep(key, dumps(seat.model_dump()))
        note = parking.waiting(now_ms() if queued_ms is None else queued_ms)
        if not await self._maybe_start(seat, note, noted=False):
            await self.store.park(key, note.dumps())

    async def _maybe_start(self, seat: im.SeatBot, parked: parking.Parked | None = None,
                           noted: bool = True) -> bool:
        """Take the seat if nobody holds it and this runner has room, or a seat still long
        enough to park for it (``parked``: the seat's note, in ``bots:parked`` if
        ``noted``)."""
        key = self._key(seat)
        if key in self.tasks:
            return True
        victim: tuple[str, parking.Activity] | None = None
        if self.free <= 0:
            self.observe()
            t = now_ms()
            chosen = parking.victim(self.activity, t, self.park_idle_ms,
                                    parking.claim(parked, t, self.park_idle_ms))
            if chosen is None:
                return False
            victim = (chosen, self.activity.pop(chosen))  # nobody else picks it meanwhile
        if not await self.store.lease(key):
            if victim is not None and victim[0] in self.tasks:
                self.activity[victim[0]] = victim[1]
            return False
        if victim is not None:
            await self._park(*victim)
        if parked is not None and noted:
            await self.store.unpark(key)
        self.activity[key] = parking.resumed(parked, now_ms())
        self.tasks[key] = asyncio.create_task(self._play(seat))
        return True

    async def _park(self, key: str, activity: parking.Activity) -> None:
        """Give the seat's place to a waiting one: its note first (so no runner adopts it
        before it is due), then its play stops; its socket closes and its lease is released
        as its task ends, while the waiting seat starts (no need to wait for a close)."""
        note = parking.park(activity, now_ms(), self.park_idle_ms, self.park_max_ms)
        await self.store.park(key, note.dumps())
        task = self.tasks.get(key)
        if task is not None:
            task.cancel()
        log.info("bot_parked", seat=key, still_s=round((now_ms() - activity.since_ms) / 1000),
                 parks=note.parks)

    async def _play(self, seat: im.SeatBot) -> None:
        key = self._key(seat)
        stop = asyncio.Event()
        renew = asyncio.create_task(self._renew(key, stop))
        try:
            await self.play_seat(seat)
            await self.store.forget(key)
            log.info("bot_done", game_id=seat.game_id, seat=seat.seat)
        except Exception as exc:
            log.warning("bot_error", game_id=seat.game_id, seat=seat.seat, error=repr(exc))
        finally:
            # the renewal ends before the lease is deleted: a renewal cancelled mid-command
            # could otherwise land after the delete and leave a stale lease for 10 s
            stop.set()
            with contextlib.suppress(Exception):
                await renew
            with contextlib.suppress(Exception):
                await self.store.release(key)
            self.tasks.pop(key, None)
            self.activity.pop(key, None)
            self.watched.pop(key, None)
            self._room.set()

    async def _play_through_gateway(self, seat: im.SeatBot) -> None:
        async with Client(self.settings.gateway_url, token=seat.token, http=self.http(),
                          compression=False) as c:
            game = await c.watch(seat.game_id)
            self.watched[self._key(seat)] = game
            meta = await c._call("GET", f"/api/matches/{seat.game_id}")
            if seat.kind in SEARCH_KINDS:  # ISMCTS in the worker pool
                await play_search(game, meta["game"], seat.kind, self.search)
            else:
                await play_with(game, make_bot(meta["game"], seat.kind))

    async def _renew(self, key: str, stop: asyncio.Event) -> None:
        """Renew the seat's lease every third of its life until ``stop`` is set; a failed
        renewal (Valkey restarting) is retried at the next tick."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.renew_s)
            if stop.is_set():
                return
            try:
                await self.store.renew(key)
            except Exception as exc:
                log.warning("bot_lease_renew_failed", seat=key, error=repr(exc)[:200])

    # -- the input, read only while there is room ---------------------------------------

    async def read_loop(self) -> None:
        """Read ``bots:in`` in the bots group, at most as many entries as there is room for
        (free places, and places of seats still long enough to park); each is stored in
        ``bots:active`` (durable) and started, then XACKed and XDELed."""
        while True:
            room = self.room()
            if room <= 0:
                self._room.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._room.wait(), 1.0)
                continue
            entries = await self.store.read(min(room, 64), self.settings.read_retry_s)
            try:
                if entries:
                    await self._take(entries)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Valkey restarting: the entries stay pending (reclaim)
                log.warning("bots_take_failed", error=repr(exc)[:200])
                await asyncio.sleep(self.settings.read_retry_s)

    async def reclaim_loop(self) -> None:
        """Entries a dead runner read but did not store: taken over when there is room."""
        while True:
            await asyncio.sleep(self.reclaim_s)
            if self.free <= 0:
                continue
            with contextlib.suppress(Exception):
                await self._take(await self.store.reclaim(min(self.free, 64)))

    async def _take(self, entries: list[Any]) -> None:
        done: list[bytes] = []
        for msg_id, fields in entries:
            body = decode(fields)
            try:
                await self.on_seat(body, queued_ms(msg_id))
                done.append(msg_id)
            except Exception as exc:  # malformed: never playable, moved to the dlq
                log.error("bad_seat_message", error=repr(exc)[:300])
                await self.store.dead_letter(body, exc)
                done.append(msg_id)
        if done:
            await self.store.done(done)

    async def resume_loop(self) -> None:
        """Adopt seats whose runner died (lease lapsed), that ended with an error, that
        waited for a place, or parked ones that are due, while this runner has room."""
        while True:
            with contextlib.suppress(Exception):
                await self.resume_once()
            await asyncio.sleep(3.0)

    async def resume_once(self) -> None:
        """One pass over ``bots:active``: each seat not played here and not parked until
        later is taken while there is room (a free place, or a still seat to park)."""
        notes = await self.store.parked()
        cursor = 0
        room = self.room()
        while room > 0:
            cursor, page = await self.store.active_page(cursor)
            for raw in page:
                if room <= 0:
                    break
                seat = im.SeatBot.model_validate(loads(raw))
                note = notes.get(self._key(seat))
                parked = parking.Parked.loads(note) if note else None
                if parked is not None and not parked.due(now_ms()):
                    continue
                if self._key(seat) not in self.tasks and await self._maybe_start(seat, parked):
                    room -= 1  # a free place taken, or a still seat parked for it
            if cursor == 0:
                break


__all__ = ["ACTIVE", "LEASE_MS", "BotRunner"]
