"""The game fan-out, read per shard: a gateway reads only the shards of the games its own
sockets watch.

Each game's ``notify`` and ``reply`` entries go to one shard ``gw:updates:{u}:<k>``, k =
crc32(game id) mod EMPIRE_GW_SHARDS (``shared.protocol.streams.updates_for``; the adjudicator,
the escrow and the dealer write them). A gateway reads the shards of the games in
``Hub.by_game`` (and of games it just sent a command for), one XREAD over all of them,
blocking: an entry of a game in a shard no socket here watches is never read here. With 64
shards and a few games per gateway, that is close to reading per game; with many games per
gateway, the shards of unwatched games are still skipped.

Two parts: ``Shards`` knows which shards are wanted and where each is read from (the hub asks
it ``want`` before a watch's first read and before a command's publish); ``ShardReader`` is
the read loop over them, handing each batch to the hub.

* **No gap at a new watch.** ``want(game)`` gives the game's shard a cursor (the shard's last
  id, read now) before the watch's own first reads (``Hub.watch``), and before a command's
  publish (the reply must not slip past); the blocked read is woken to include it.
* **Resume.** The cursor of a shard read goes on from its last id (a read that failed is tried
  again from the same ids); a shard no longer wanted is dropped, and read from its end again
  when wanted (no stale replies).
* **Safety net.** ``Hub.sweep_loop`` pumps recently active games every 2 s.
* **Cluster.** All shards share the hash tag ``{u}``: one slot, so one XREAD reads them all.
* **Slow consumers.** Entries go to ``Hub.deliver_batch``: bounded per-connection queues,
  nothing here waits for a socket.

Chat (``chat_notify``, ``mutes_changed``) reaches every gateway through the small shared
channel ``gw:updates`` (services/gateway/app.py), which also takes notify / reply entries
written by a release that used that one stream, during a rolling upgrade.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, cast

import structlog
from faststream.redis.parser.binary import BinaryMessageFormatV1

from services.gateway.ports import Entry, RedisClient, stream_entries
from shared.protocol import streams
from shared.runtime import metrics, tracing
from shared.runtime.jsonutil import loads, text

log = structlog.get_logger("gateway")

PIN_S = 30.0  # a shard a command was just sent on stays read this long (its reply)


def decode(fields: dict[bytes, bytes]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(body, headers) of a fan-out entry: faststream's wire format, or a plain ``d`` field."""
    raw = fields.get(b"__data__")
    if raw is None:
        return loads(fields.get(b"d", b"{}")), {}
    data, headers = BinaryMessageFormatV1.parse(raw)
    return (loads(data) if data else {}), dict(headers or {})


class Shards:
    """Which fan-out shards this gateway reads, and from where: a cursor per wanted shard."""

    def __init__(self, redis: RedisClient, count: int) -> None:
        self.redis = redis
        self.count = count  # EMPIRE_GW_SHARDS
        self.cursors: dict[str, str] = {}  # shard stream -> last id handed on
        self._pinned: dict[str, float] = {}  # shard -> until (monotonic): a command's reply
        self._stream_of: dict[str, str] = {}  # game id -> its shard (memo)
        self.woken = asyncio.Event()  # set when a shard is newly wanted

    def stream_of(self, game_id: str) -> str:
        s = self._stream_of.get(game_id)
        if s is None:
            if len(self._stream_of) > 100_000:
                self._stream_of.clear()
            s = self._stream_of[game_id] = streams.updates_for(game_id, self.count)
        return s

    def wanted(self, games: Iterable[str]) -> set[str]:
        """The shards of ``games`` (the games watched here) and the pinned ones."""
        now = time.monotonic()
        for s, until in list(self._pinned.items()):
            if until < now:
                del self._pinned[s]
        return {self.stream_of(g) for g in list(games)} | set(self._pinned)

    async def want(self, game_id: str, pin: bool = False) -> None:
        """From now on the game's shard is read (from its current end). Awaited before a
        watch's first read and before a command's publish: nothing written after is missed.
        ``pin``: keep reading it for PIN_S even if no socket here watches the game."""
        s = self.stream_of(game_id)
        if pin:
            self._pinned[s] = time.monotonic() + PIN_S
        if s in self.cursors:
            return
        last = stream_entries(await self.redis.xrevrange(s, count=1))
        if s not in self.cursors:  # (a concurrent want may have set it meanwhile)
            self._start_at_end(s, last)
            self.woken.set()

    def _start_at_end(self, shard: str, last: list[Any]) -> None:
        """The shard's cursor at its last entry (``last``: XREVRANGE COUNT 1's answer), unless
        one is held already."""
        self.cursors.setdefault(shard, text(last[0][0]) if last else "0-0")

    async def sync(self, wanted: set[str]) -> None:
        """Cursors for exactly the wanted shards: dropped ones forget theirs (read from their
        end again when wanted), new ones (a game watched without ``want``) start at their end."""
        for s in list(self.cursors):
            if s not in wanted:
                del self.cursors[s]
        new = sorted(wanted - self.cursors.keys())
        if new:
            async with self.redis.pipeline(transaction=False) as pipe:
                for s in new:
                    pipe.xrevrange(s, count=1)
                lasts = await pipe.execute()
            for s, last in zip(new, lasts, strict=True):
                self._start_at_end(s, last)


class ShardReader:
    """Reads the fan-out shards of the games watched here and hands the entries, one batch per
    read, to ``deliver`` (``Hub.deliver_batch``)."""

    def __init__(self, redis: RedisClient, shards: Shards, games: Callable[[], Iterable[str]],
                 deliver: Callable[[list[dict[str, Any]]], Awaitable[None]],
                 count: int = 256, block_ms: int = 2000, retry_s: float = 0.5) -> None:
        self.redis = redis
        self.shards = shards
        self.games = games  # the game ids watched here (Hub.by_game's keys)
        self.deliver = deliver
        self.count = count
        self.block_ms = block_ms
        self.retry_s = retry_s
        self.task: asyncio.Task[None] | None = None
        # counters (bench, tests): XREAD calls made and fan-out entries read
        self.reads = 0
        self.entries = 0

    @property
    def cursors(self) -> dict[str, str]:
        return self.shards.cursors

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def read_once(self) -> list[dict[str, Any]] | None:
        """One blocking read of the wanted shards; woken early (and None) when a new shard is
        wanted. The entries read are handed to ``deliver``."""
        await self.shards.sync(self.shards.wanted(self.games()))
        # cleared after the sync (no await between here and the ids taken below): a shard
        # wanted from now on wakes this read; one wanted before is in the ids already
        woken = self.shards.woken
        woken.clear()
        if not self.cursors:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), self.block_ms / 1000)
            return None
        ids = dict(self.cursors)
        metrics.FANOUT_SHARDS.set(len(ids))
        streams_ids: dict[Any, Any] = dict(ids)  # (redis-py's own mapping type is invariant)
        read = asyncio.ensure_future(self.redis.xread(streams_ids, count=self.count,
                                                      block=self.block_ms))
        wake = asyncio.ensure_future(woken.wait())
        try:
            await asyncio.wait({read, wake}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            wake.cancel()
        if not read.done():  # a new shard: read again with it (nothing is lost: same ids)
            read.cancel()
            with contextlib.suppress(BaseException):
                await read
            return None
        # RESP2's answer: [stream, entries] per stream with new entries (none: empty)
        res = cast(list[tuple[bytes, list[Entry]]], read.result() or [])
        self.reads += 1
        bodies: list[dict[str, Any]] = []
        headers: list[dict[str, Any]] = []
        for stream, entries in res:
            s = text(stream)
            for i, fields in entries:
                try:
                    body, h = decode(fields)
                except Exception as exc:  # one bad entry never stops the fan-out
                    log.error("malformed_fan_out_entry", error=repr(exc)[:300])
                    body, h = {}, {}
                if body:
                    bodies.append(body)
                    headers.append(h)
                if s in self.cursors:
                    self.cursors[s] = text(i)
        self.entries += len(bodies)
        metrics.FANOUT_ENTRIES.inc(len(bodies))
        if headers:
            tracing.received(streams.GW_UPDATES, headers)  # the traces end here
        if bodies:
            await self.deliver(bodies)
        return bodies

    async def run(self) -> None:
        while True:
            try:
                await self.read_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Valkey restarting: read again from the same ids
                log.warning("fan_out_read_failed", error=repr(exc)[:200])
                await asyncio.sleep(self.retry_s)

    def start(self) -> None:
        if not self.running:
            self.task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
