"""A fault-injecting TCP proxy for tests, on asyncio in a thread of its own.

One ``FaultProxy`` relays one listening loopback port to one target (a service's link to Valkey,
a client's link to the gateway). The test changes its faults at any time, from any thread:

- ``latency_s`` and ``jitter_s``: every chunk waits latency ± jitter (uniform) before it is
  forwarded, per direction, in order (a slow link, not reordering);
- ``bandwidth_bps``: bytes per second per direction per connection (0: unlimited);
- ``reset_p``: the probability that a chunk makes the proxy reset the connection instead of
  forwarding it (lost packets as TCP sees them: the connection dies);
- ``stall_p`` and ``stall_s``: the probability that a chunk is held ``stall_s`` first (a
  retransmission timeout);
- ``cut("up" | "down" | "both")``: bytes in that direction are swallowed while connections stay
  open (a one-way partition: nothing arrives, nothing closes);
- ``partition()`` / ``heal()``: both directions cut and new connections held unanswered;
  ``partition(hold=True)``: the bytes in flight are held, not swallowed, and delivered after
  the heal, as TCP retransmits across a real partition (a connection held past ``hold_max_s``
  is reset, as TCP gives up); ``reset_all()``: every open connection reset now.

Every fault is drawn from a seeded ``random.Random`` so a failing run can be repeated. The
proxy listens on 127.0.0.1 only; every loop is bounded by the connection's life."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Literal

from shared.runtime.valkey import free_port

Direction = Literal["up", "down", "both"]


@dataclass
class Faults:
    latency_s: float = 0.0
    jitter_s: float = 0.0
    bandwidth_bps: int = 0
    reset_p: float = 0.0
    stall_p: float = 0.0
    stall_s: float = 0.0
    cut_up: bool = False
    cut_down: bool = False
    hold_new: bool = False  # a partition: new connections are accepted but never relayed
    hold_cut: bool = False  # cut bytes wait for the heal instead of vanishing
    hold_max_s: float = 120.0


@dataclass
class Counters:
    connections: int = 0
    resets: int = 0
    stalls: int = 0
    bytes_up: int = 0
    bytes_down: int = 0
    swallowed: int = 0


@dataclass
class FaultProxy:
    target_port: int
    target_host: str = "127.0.0.1"
    seed: int = 0
    port: int = field(default_factory=free_port)
    faults: Faults = field(default_factory=Faults)
    counters: Counters = field(default_factory=Counters)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name=f"fault-proxy-{self.port}")
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    # -- control (any thread) ---------------------------------------------------------------
    def set(self, **changes: float | int | bool) -> FaultProxy:
        for k, v in changes.items():
            if not hasattr(self.faults, k):
                raise TypeError(f"unknown fault {k!r}")
            setattr(self.faults, k, v)
        return self

    def clear(self) -> FaultProxy:
        self.faults = Faults()
        return self

    def cut(self, direction: Direction) -> FaultProxy:
        self.faults.cut_up = direction in ("up", "both")
        self.faults.cut_down = direction in ("down", "both")
        return self

    def partition(self, hold: bool = False) -> FaultProxy:
        return self.set(cut_up=True, cut_down=True, hold_new=True, hold_cut=hold)

    def heal(self) -> FaultProxy:
        return self.set(cut_up=False, cut_down=False, hold_new=False, hold_cut=False)

    def reset_all(self) -> None:
        asyncio.run_coroutine_threadsafe(self._reset_all(), self._loop).result(5)

    @property
    def url_netloc(self) -> str:
        return f"127.0.0.1:{self.port}"

    # -- life -------------------------------------------------------------------------------
    def start(self) -> FaultProxy:
        self._thread.start()

        async def serve() -> asyncio.Server:
            return await asyncio.start_server(self._handle, "127.0.0.1", self.port)

        self._server = asyncio.run_coroutine_threadsafe(serve(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._server is not None:
            server = self._server

            async def close() -> None:  # on the proxy's loop: asyncio is not thread-safe
                server.close()
                await self._reset_all()

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # -- relay ------------------------------------------------------------------------------
    async def _reset_all(self) -> None:
        for w in list(self._writers):
            self._reset(w)

    def _reset(self, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:  # SO_LINGER 0: close sends RST, as a dropped link does
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                b"\x01\x00\x00\x00\x00\x00\x00\x00")
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.counters.connections += 1
        self._writers.add(writer)
        while self.faults.hold_new and not writer.is_closing():
            await asyncio.sleep(0.05)  # a partition: the handshake completed, nothing else
        try:
            up_r, up_w = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            self._reset(writer)
            self._writers.discard(writer)
            return
        self._writers.add(up_w)
        pair = (writer, up_w)
        await asyncio.gather(self._pipe(reader, up_w, "up", pair),
                             self._pipe(up_r, writer, "down", pair))
        self._writers.discard(writer)
        self._writers.discard(up_w)

    def _cut(self, direction: str) -> bool:
        f = self.faults
        return (f.cut_up and direction == "up") or (f.cut_down and direction == "down")

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    direction: str, pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter]
                    ) -> None:
        """Read and schedule on one side, deliver on the other: a chunk's delay counts from
        its arrival (latency does not add up across chunks), order is kept, and bandwidth
        serialises the chunks."""
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def deliver() -> None:
            due = 0.0
            while (item := await queue.get()) is not None:
                target, data = item
                due = max(due, target)
                if self.faults.bandwidth_bps:
                    due += len(data) / self.faults.bandwidth_bps
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
                if direction == "up":
                    self.counters.bytes_up += len(data)
                else:
                    self.counters.bytes_down += len(data)

        sender = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                f = self.faults
                if self._rng.random() < f.reset_p:
                    self.counters.resets += 1
                    for w in pair:
                        self._reset(w)
                    return
                if self._cut(direction) and f.hold_cut:
                    held_at = time.monotonic()
                    while self._cut(direction) and self.faults.hold_cut:  # until the heal
                        if time.monotonic() - held_at > f.hold_max_s or writer.is_closing():
                            self.counters.resets += 1
                            for w in pair:
                                self._reset(w)
                            return
                        await asyncio.sleep(0.02)
                    f = self.faults
                if self._cut(direction):
                    self.counters.swallowed += len(data)
                    continue
                delay = f.latency_s + (self._rng.uniform(-f.jitter_s, f.jitter_s)
                                       if f.jitter_s else 0.0)
                if f.stall_p and self._rng.random() < f.stall_p:
                    self.counters.stalls += 1
                    delay += f.stall_s
                await queue.put((time.monotonic() + max(0.0, delay), data))
                if sender.done():
                    return
        except (ConnectionError, OSError):
            pass
        finally:
            await queue.put(None)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(sender, 30)
            with contextlib.suppress(Exception):
                writer.close()
