"""A socket's writer hands the server its whole backlog at once where the server can frame
several messages into one write (``send_texts``), within its bounds and in order; elsewhere
it sends frame by frame."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.fanout.outbound import BATCH_BYTES, BATCH_FRAMES, SLOW_CONSUMER, Outbound
from tests.support.waits import eventually

pytestmark = pytest.mark.unit


class Socket:
    def __init__(self) -> None:
        self.sends: list[list[str]] = []
        self.closed: list[int] = []
        self.hold = asyncio.Event()
        self.hold.set()

    async def send_text(self, text: str) -> None:
        await self.hold.wait()
        self.sends.append([text])

    async def send_texts(self, texts: list[str]) -> None:
        await self.hold.wait()
        self.sends.append(list(texts))

    async def close(self, code: int, reason: str) -> None:
        self.closed.append(code)


def _outbound(sock: Socket, batches: bool, timeout_s: float = 5.0) -> Outbound:
    return Outbound(sock.send_text, sock.close, 10_000, 1 << 24, timeout_s, label="p",
                    send_texts=sock.send_texts if batches else None)


async def test_the_backlog_goes_in_one_send_in_order() -> None:
    sock = Socket()
    out = _outbound(sock, batches=True)
    out.start()
    for i in range(5):  # queued before the writer first runs
        out.push(f"f{i}", 2)
    await eventually(lambda: sum(map(len, sock.sends)) == 5, "five frames sent")
    assert sock.sends == [["f0", "f1", "f2", "f3", "f4"]]
    assert out.queued_frames == 0 and out.queued_bytes == 0
    await out.aclose()


async def test_a_batch_keeps_to_its_frame_and_byte_bounds() -> None:
    sock = Socket()
    out = _outbound(sock, batches=True)
    for i in range(BATCH_FRAMES + 3):
        out.push(f"s{i}", 3)
    big = "x" * (BATCH_BYTES // 2 - 1)
    for _ in range(5):
        out.push(big, len(big))
    huge = "y" * (BATCH_BYTES + 1)  # over the byte bound alone: sent by itself
    out.push(huge, len(huge))
    out.start()
    await eventually(lambda: sum(map(len, sock.sends)) == BATCH_FRAMES + 9, "every frame sent")
    sizes = [len(s) for s in sock.sends]
    assert sizes[0] == BATCH_FRAMES
    assert [x for b in sock.sends for x in b] == (
        [f"s{i}" for i in range(BATCH_FRAMES + 3)] + [big] * 5 + [huge])
    assert all(sum(len(t) for t in b) <= BATCH_BYTES for b in sock.sends if len(b) > 1)
    assert sock.sends[-1] == [huge]
    await out.aclose()


async def test_without_the_servers_batch_call_each_frame_is_its_own_send() -> None:
    sock = Socket()
    out = _outbound(sock, batches=False)
    for i in range(4):
        out.push(f"f{i}", 2)
    out.start()
    await eventually(lambda: len(sock.sends) == 4, "four sends")
    assert sock.sends == [["f0"], ["f1"], ["f2"], ["f3"]]
    await out.aclose()


async def test_a_batch_blocked_past_the_send_timeout_closes_4008() -> None:
    sock = Socket()
    sock.hold.clear()  # the client stopped reading: the write never completes
    out = _outbound(sock, batches=True, timeout_s=0.2)
    out.start()
    for i in range(3):
        out.push(f"f{i}", 2)
    await eventually(lambda: sock.closed == [SLOW_CONSUMER], "closed 4008")
    assert out.closed and out.reason == "send" and sock.sends == []
    await out.aclose()
