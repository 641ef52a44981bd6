"""One WebSocket's outbound queue and its writer task.

Nothing else ever awaits this socket: the fan-out (``push``) only appends to the queue and
returns, so one client that stops reading cannot hold up anybody else. The connection's own
output (replies, a ``watch``'s replay) goes through ``put``, which first waits until the queue
has drained to a quarter of its bounds: a client that floods requests without reading is
slowed by its own backlog, and its replays are paged, never queued whole.

A connection is closed with 4008 ("slow consumer") when its queue passes either bound
(EMPIRE_WS_QUEUE_FRAMES frames, EMPIRE_WS_QUEUE_BYTES bytes) or one frame's send stays blocked
longer than EMPIRE_WS_SEND_TIMEOUT_S. The client reconnects and resumes from its last seq and
record id (docs/protocol.md, "Resume").

Where the server can frame several messages into one write (``send_texts``: the gateway's own
WebSocket protocol, services/gateway/edge/server.py), the writer hands it every frame queued
when it wakes, up to ``BATCH_FRAMES`` frames or ``BATCH_BYTES`` bytes: each frame stays its
own WebSocket message, and the backlog costs one write to the socket instead of one each.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog

from services.gateway.edge import metrics as edge_metrics

log = structlog.get_logger("gateway")

SLOW_CONSUMER = 4008  # close code: the client did not read its frames fast enough
SERVICE_RESTART = 1012  # close code: this gateway is draining; reconnect (another replica)
BATCH_FRAMES = 64  # a writer's batch: at most this many frames ...
BATCH_BYTES = 256 * 1024  # ... and, after its first frame, at most this many bytes

SendText = Callable[[str], Awaitable[None]]
SendTexts = Callable[[list[str]], Awaitable[None]]
Close = Callable[[int, str], Coroutine[Any, Any, None]]


def _one_at_a_time(send_text: SendText) -> SendTexts:
    async def send(batch: list[str]) -> None:
        await send_text(batch[0])
    return send


class Outbound:
    def __init__(self, send_text: SendText, close: Close, max_frames: int, max_bytes: int,
                 send_timeout_s: float, label: str = "",
                 send_texts: SendTexts | None = None) -> None:
        # One sender for the writer: the server's ``send_texts``, or, where the server frames
        # one message a call, a batch bound of one over ``send_text``.
        self._batch_frames = BATCH_FRAMES if send_texts is not None else 1
        self._send = send_texts if send_texts is not None else _one_at_a_time(send_text)
        self._close = close
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.send_timeout_s = send_timeout_s
        self.label = label  # for logs: the player id
        self._q: deque[tuple[str, int]] = deque()
        self.queued_bytes = 0
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self.closed = False
        self.reason = ""
        self._writer: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._writer = asyncio.create_task(self._run())

    @property
    def queued_frames(self) -> int:
        return len(self._q)

    def _roomy(self) -> bool:
        return len(self._q) <= self.max_frames // 4 and self.queued_bytes <= self.max_bytes // 4

    def push(self, text: str, size: int) -> bool:
        """Queue a frame without waiting; over a bound the connection is closed 4008."""
        if self.closed:
            return False
        if len(self._q) >= self.max_frames or self.queued_bytes + size > self.max_bytes:
            self.fail("queue", "slow consumer: outbound queue full")
            return False
        self._q.append((text, size))
        self.queued_bytes += size
        if not self._roomy():
            self._room.clear()
        self._wake.set()
        return True

    async def put(self, text: str, size: int) -> bool:
        """Queue a frame of the connection's own output once there is room for it."""
        while not self.closed and not self._roomy():
            await self._room.wait()
        return self.push(text, size)

    async def wait_room(self) -> None:
        while not self.closed and not self._roomy():
            await self._room.wait()

    async def _run(self) -> None:
        while not self.closed:
            if not self._q:
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = self._take()
            if self._roomy():
                self._room.set()
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for wraps the send in a task of
                # its own, one per send
                async with asyncio.timeout(self.send_timeout_s):
                    await self._send(batch)
            except TimeoutError:
                self.fail("send", "slow consumer: send blocked")
                return
            except Exception:  # the socket is gone; the reader loop cleans up
                self.stop()
                return

    def _take(self) -> list[str]:
        """The next send's frames: one, or with ``send_texts`` the backlog up to its bounds."""
        q = self._q
        text, size = q.popleft()
        batch, taken = [text], size
        limit = self._batch_frames
        while q and len(batch) < limit and taken + q[0][1] <= BATCH_BYTES:
            text, size = q.popleft()
            batch.append(text)
            taken += size
        self.queued_bytes -= taken
        return batch

    def fail(self, reason: str, message: str) -> None:
        """Close the connection 4008 at once (queued frames are dropped)."""
        if self.closed:
            return
        self.stop()
        self.reason = reason
        edge_metrics.SLOW_CONSUMERS.labels(reason).inc()
        log.warning("slow_consumer", reason=reason, player_id=self.label)
        self._closer = asyncio.create_task(self._close(SLOW_CONSUMER, message))

    def drain(self) -> None:
        """Close 1012 (service restart) once: the gateway is shutting down; the client
        reconnects, reaches another replica and resumes from its last seq."""
        if self.closed:
            return
        self.stop()
        self.reason = "drain"
        self._closer = asyncio.create_task(
            self._close(SERVICE_RESTART, "server restart: reconnect and resume"))

    def end(self, code: int, reason: str) -> None:
        """Close with ``code`` at once (queued frames are dropped): e.g. the session was
        revoked (4401, reason ``auth/revoked_session``)."""
        if self.closed:
            return
        self.stop()
        self.reason = reason
        self._closer = asyncio.create_task(self._close(code, reason))

    def stop(self) -> None:
        """No more frames: drop the queue, wake whoever waits, end the writer."""
        self.closed = True
        self._q.clear()
        self.queued_bytes = 0
        self._room.set()
        self._wake.set()
        writer = self._writer
        if writer is not None and writer is not asyncio.current_task() and not writer.done():
            writer.cancel()

    async def aclose(self) -> None:
        self.stop()
        for task in (self._writer, self._closer):
            if task is not None and task is not asyncio.current_task():
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
