"""The durable timers' pure parts (shared/runtime/timers.py): key naming per partition, the
member's game and the claim's reply."""

from __future__ import annotations

import asyncio

import pytest

from shared.protocol import streams
from shared.runtime import timers

pytestmark = pytest.mark.unit


def hash_tag(key: str) -> str:
    """The part of a key a Redis cluster hashes (the first non-empty {...})."""
    start = key.index("{")
    return key[start + 1:key.index("}", start)]


def test_each_partition_has_its_own_key_and_hash_tag() -> None:
    keys = [timers.partition_key(streams.TIMERS_ADJ, p) for p in range(8)]
    assert keys[3] == "timers:adj:{adj/3}"
    assert len({hash_tag(k) for k in keys}) == 8
    esc = timers.partition_key(streams.TIMERS_ESC, 3)
    assert esc == "timers:esc:{esc/3}" and hash_tag(esc) != hash_tag(keys[3])
    assert all(k.startswith(streams.TIMERS_ADJ + ":") for k in keys)  # ACL: ~timers:adj:*


def test_a_game_lands_in_its_stream_partition() -> None:
    for gid in ("g-1", "g-abc", "g-0123456789abcdef"):
        assert timers.key_for(streams.TIMERS_ESC, gid, 16) == timers.partition_key(
            streams.TIMERS_ESC, streams.shard_of(gid, 16))
    assert timers.key_for(streams.TIMERS_ADJ, "g-1", 1) == "timers:adj:{adj/0}"


def test_the_game_of_a_member_is_its_first_field() -> None:
    assert timers.game_of("g-1|12") == "g-1"
    assert timers.game_of("g-1|pick:1|s0") == "g-1"
    assert timers.game_of("g-1") == "g-1"


def test_a_claim_reply_is_the_lease_then_the_members() -> None:
    c = timers.parse_claim("k", [b"1700000010000", b"g-1|3", "g-2|expire"])
    assert c == timers.Claim("k", "1700000010000", ["g-1|3", "g-2|expire"])
    assert timers.parse_claim("k", [b"5"]).members == []


class _TurnsCancel:
    """A timers object whose poll turns a cancel into a TimeoutError (a library timeout racing
    the cancel)."""

    async def poll_once(self, handle: object, now_ms: int) -> int:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise TimeoutError("the library's timeout") from None
        return 0


class _EatsCancel:
    """A timers object whose poll eats the cancel and returns normally (no error to see)."""

    async def poll_once(self, handle: object, now_ms: int) -> int:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return 0  # swallowed: no error, no re-raise
        return 0


def _ends_on_cancel(poller: object) -> None:
    """Run the timer loop on ``poller``, cancel it, and require that it ends as cancelled."""

    async def run() -> None:
        loop = asyncio.create_task(
            timers.Timers.run(poller, lambda m: None, 0.01, lambda: 0))  # type: ignore[arg-type,return-value]
        await asyncio.sleep(0.05)
        loop.cancel()
        done, _ = await asyncio.wait({loop}, timeout=5)
        assert done, "the timer loop went on polling after its cancel"
        assert loop.cancelled()

    asyncio.run(run())


def test_the_loop_ends_when_cancelled_even_if_a_library_turns_the_cancel_into_an_error() -> None:
    """A cancel that lands in a library which turns it into another error is consumed; the loop
    must still end instead of logging and polling on, or awaiting its cancel never returns (seen
    as an intermittent hang of the escrow's timer test)."""
    _ends_on_cancel(_TurnsCancel())


def test_a_cancel_swallowed_whole_still_ends_the_loop() -> None:
    """A poll that eats the cancel: the loop checks the task's pending cancel before it sleeps,
    so it still ends."""
    _ends_on_cancel(_EatsCancel())


def test_cancel_and_wait_cancels_again_a_task_that_swallowed_the_first_cancel() -> None:
    from shared.runtime.tasks import cancel_and_wait

    async def stubborn() -> None:
        for _ in range(2):  # swallows the first cancel, as a racing library timeout can
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
        await asyncio.sleep(10)

    stop: list[bool] = []

    async def forever() -> None:
        while not stop:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]

    async def run() -> None:
        t = asyncio.create_task(stubborn())
        await asyncio.sleep(0.01)
        t.cancel()
        done, _ = await asyncio.wait({t}, timeout=0.3)
        assert not done  # plain cancel-then-await would wait forever here
        assert await cancel_and_wait(t, grace_s=5, every_s=0.05) == []
        assert t.cancelled()
        f = asyncio.create_task(forever())
        await asyncio.sleep(0.01)
        assert await cancel_and_wait(f, grace_s=0.3, every_s=0.05) == [f]  # said, not hung
        stop.append(True)
        assert await cancel_and_wait(f) == []

    asyncio.run(run())
