"""The lobby's request server on ``lobby:rpc`` (a consumer group: any replica answers, a
request survives a lobby restart).

Requests are served concurrently: the reader takes new entries only while fewer than
``lobby_concurrency`` are in flight (back-pressure: the rest wait in the stream for this or
another replica) and each is handled in its own task, so a slow listing never holds a
sign-up back. What must be ordered is ordered by the handler (one lock per table and per
player in this process; WATCH/MULTI and Lua steps across replicas).

Each answer goes to the request's ``reply_to`` channel with its correlation id (faststream's
wire format, so the gateway's reply subscriber reads it), and then the entry is XACKed and
XDELed in one round trip: an answered request leaves no bytes behind. Answers finished in
the same turn of the event loop go out in one pipeline. An entry left pending by a dead
replica is reclaimed (XAUTOCLAIM) after ``RECLAIM_IDLE_MS`` and served again; one that failed
``MAX_DELIVERIES`` times goes to the dead-letter stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from shared.protocol import streams
from shared.runtime.bus import dead_letter, decode_entry
from shared.runtime.outbox import encode
from shared.runtime.redis import Client, read_group
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby")
Handle = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def decode(fields: dict[bytes, bytes]) -> tuple[Any, str | None, str]:
    """(body, reply_to, correlation id) of one stream entry (``bus.decode_entry``: a body
    that is not JSON stays text, which ``_serve`` refuses as it refuses any non-object)."""
    body, headers = decode_entry(fields)
    return body, headers.get("reply_to") or None, str(headers.get("correlation_id", ""))


class RpcServer:
    def __init__(self, settings: Settings, redis: Client, handle: Handle,
                 stream: str = streams.LOBBY_RPC, group: str = streams.GROUP_LOBBY) -> None:
        self.settings = settings
        self.redis = redis
        self.handle = handle
        self.stream = stream
        self.group = group
        self.consumer = settings.instance
        self.limit = settings.lobby_concurrency
        self.inflight: set[asyncio.Task[None]] = set()
        self._done: list[tuple[str | None, bytes, bytes, asyncio.Future[None]]] = []
        self._flushing = False

    # -- reading ------------------------------------------------------------------------

    async def run(self) -> None:
        """Read and serve until cancelled; on cancel, let the requests in flight finish."""
        try:
            while True:
                free = self.limit - len(self.inflight)
                if free <= 0:
                    await asyncio.wait(self.inflight, return_when=asyncio.FIRST_COMPLETED)
                    continue
                entries = await read_group(self.redis, self.stream, self.group,
                                           self.consumer, min(free, 256),
                                           self.settings.read_retry_s)
                for msg_id, fields in entries or ():  # None: failed, retried after a wait
                    self._spawn(msg_id, fields)
        finally:
            if self.inflight:
                await asyncio.gather(*self.inflight, return_exceptions=True)

    async def reclaim_loop(self) -> None:
        """Serve what a dead replica left pending (and what failed here)."""
        while True:
            await asyncio.sleep(streams.RECLAIM_IDLE_MS / 1000)
            with contextlib.suppress(Exception):
                await self.reclaim()

    async def reclaim(self) -> int:
        _, claimed, *_ = await self.redis.xautoclaim(
            self.stream, self.group, self.consumer, min_idle_time=streams.RECLAIM_IDLE_MS,
            start_id="0-0", count=100)
        for msg_id, fields in claimed:
            if fields is None:  # deleted meanwhile
                continue
            info = await self.redis.xpending_range(self.stream, self.group, min=msg_id,
                                                   max=msg_id, count=1)
            times = int(info[0]["times_delivered"]) if info else 1
            if times > streams.MAX_DELIVERIES:
                body, _, _ = decode(fields)
                log.error("dead_letter", stream=self.stream, deliveries=times)
                await dead_letter(self.redis, self.stream, body,
                                   RuntimeError("lobby request kept failing"))
                await self._ack([msg_id])
                continue
            self._spawn(msg_id, fields)
        return len(claimed)

    def _spawn(self, msg_id: bytes, fields: dict[bytes, bytes]) -> None:
        task = asyncio.create_task(self._serve(msg_id, fields))
        self.inflight.add(task)
        task.add_done_callback(self.inflight.discard)

    # -- serving ------------------------------------------------------------------------

    async def _serve(self, msg_id: bytes, fields: dict[bytes, bytes]) -> None:
        try:
            body, reply_to, cid = decode(fields)
            if isinstance(body, dict):
                answer = await self.handle(body)
            else:
                answer = {"ok": False, "code": "lobby/bad_request",
                          "message": "a lobby request is a JSON object"}
            await self._finish(reply_to, encode(answer, cid), msg_id)
        except Exception as exc:  # left pending: reclaimed and served again later
            log.warning("lobby_request_failed", error=repr(exc)[:300])

    async def _finish(self, reply_to: str | None, payload: bytes, msg_id: bytes) -> None:
        """Answer, then XACK + XDEL: gathered with the others finished in this loop turn."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._done.append((reply_to, payload, msg_id, fut))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._start_flush)
        await fut

    def _start_flush(self) -> None:
        self._flushing = False
        batch, self._done = self._done, []
        task = asyncio.ensure_future(self._flush(batch))
        self.inflight.add(task)  # awaited on shutdown like a request
        task.add_done_callback(self.inflight.discard)

    async def _flush(self, batch: list[tuple[str | None, bytes, bytes,
                                              asyncio.Future[None]]]) -> None:
        ids = [msg_id for _, _, msg_id, _ in batch]
        try:
            if self.settings.cluster:  # a cluster pipeline refuses PUBLISH: one by one
                await asyncio.gather(*(self.redis.publish(reply_to, payload)
                                       for reply_to, payload, _, _ in batch if reply_to))
            async with self.redis.pipeline(transaction=False) as pipe:
                if not self.settings.cluster:
                    for reply_to, payload, _, _ in batch:
                        if reply_to:
                            pipe.publish(reply_to, payload)
                pipe.xack(self.stream, self.group, *ids)
                pipe.xdel(self.stream, *ids)
                await pipe.execute()
        except Exception as exc:
            for *_, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        for *_, fut in batch:
            if not fut.done():
                fut.set_result(None)

    async def _ack(self, ids: list[bytes]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xack(self.stream, self.group, *ids)
            pipe.xdel(self.stream, *ids)
            await pipe.execute()
