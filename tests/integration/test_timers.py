"""The durable timer helper against a real server (shared/runtime/timers.py): one claim per
due timer across replicas, a lease that gives a crashed handler's timer back, re-arming kept,
partitioned keys, and the old global keys drained after an upgrade. Time is passed in (no
sleeping): ``now`` is a number the test chooses."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shared.protocol import streams
from shared.runtime.timers import Timers, partition_key

pytestmark = pytest.mark.integration

DB = 11  # its own logical database: no running system's loop polls these keys
NOW = 1_700_000_000_000



class Fired:
    def __init__(self, result: bool = True) -> None:
        self.seen: list[str] = []
        self.result = result

    async def __call__(self, member: str) -> bool:
        self.seen.append(member)
        await asyncio.sleep(0)  # let a concurrent poller interleave
        return self.result


async def test_each_due_timer_fires_once_across_replicas(r: Any) -> None:
    replicas = [Timers(r, streams.TIMERS_ADJ, partitions=4, batch=8) for _ in range(3)]
    due = {f"g-{i}|{i}": NOW - i for i in range(60)}
    for member, at in due.items():
        await replicas[0].arm(member, at)
    await replicas[0].arm("g-late|1", NOW + 1)  # not due yet
    fired = [Fired() for _ in replicas]
    await asyncio.gather(*[t.poll_once(f, NOW) for t, f in zip(replicas, fired, strict=True)])
    seen = [m for f in fired for m in f.seen]
    assert sorted(seen) == sorted(due) and len(seen) == len(set(seen))
    assert await replicas[0].due("g-late|1") == NOW + 1
    assert all([await replicas[0].due(m) is None for m in due])  # dropped when done
    assert await replicas[1].poll_once(Fired(), NOW) == 0


async def test_a_failed_handler_gets_its_timer_back_when_the_lease_ends(r: Any) -> None:
    t = Timers(r, streams.TIMERS_ESC, partitions=2, lease_ms=10_000)
    await t.arm("g-1|pick:1", NOW)

    async def crash(member: str) -> bool:
        raise ConnectionError("the handler's Redis went away")

    assert await t.poll_once(crash, NOW) == 1
    assert await t.due("g-1|pick:1") == NOW + 10_000  # claimed: nobody else fires it now
    assert await t.poll_once(Fired(), NOW + 9_999) == 0
    again = Fired()
    assert await t.poll_once(again, NOW + 10_000) == 1
    assert again.seen == ["g-1|pick:1"] and await t.due("g-1|pick:1") is None


async def test_a_timer_re_armed_by_its_handler_keeps_the_new_time(r: Any) -> None:
    t = Timers(r, streams.TIMERS_ADJ)

    async def rearm(member: str) -> bool:
        await t.arm(member, NOW + 2_000)  # e.g. the archive waiting for the reveal
        return True  # even reported done, the new time stands (the claim's score moved)

    await t.arm("g-1|archive", NOW)
    assert await t.poll_once(rearm, NOW) == 1
    assert await t.due("g-1|archive") == NOW + 2_000


async def test_keep_never_postpones_an_armed_timer(r: Any) -> None:
    t = Timers(r, streams.TIMERS_ADJ)
    await t.arm("g-1|expire", NOW)
    await t.arm("g-1|expire", NOW + 5_000, keep=True)
    assert await t.due("g-1|expire") == NOW
    await t.arm("g-1|expire", NOW + 5_000)
    assert await t.due("g-1|expire") == NOW + 5_000


async def test_timers_spread_over_the_partition_keys(r: Any) -> None:
    t = Timers(r, streams.TIMERS_ADJ, partitions=4)
    for i in range(40):
        await t.arm(f"g-{i}|1", NOW)
    sizes = [await r.zcard(partition_key(streams.TIMERS_ADJ, p)) for p in range(4)]
    assert sum(sizes) == 40 and all(n > 0 for n in sizes)
    assert await r.exists(streams.TIMERS_ADJ) == 0  # nothing in the old global key
    fired = Fired()
    assert await t.poll_once(fired, NOW) == 40


async def test_timers_left_in_the_old_global_key_still_fire(r: Any) -> None:
    """An upgrade: the previous release armed its timers in ``timers:esc``."""
    await r.zadd(streams.TIMERS_ESC, {"g-old|pick:1": NOW - 5, "g-old|pick:2": NOW + 60_000})
    t = Timers(r, streams.TIMERS_ESC, partitions=2)
    fired = Fired()
    assert await t.poll_once(fired, NOW) == 1
    assert fired.seen == ["g-old|pick:1"]
    assert await r.zrange(streams.TIMERS_ESC, 0, -1) == [b"g-old|pick:2"]
    assert await t.poll_once(fired, NOW + 60_000) == 1
    assert await r.exists(streams.TIMERS_ESC) == 0


async def test_a_full_batch_is_claimed_again_within_one_poll(r: Any) -> None:
    t = Timers(r, streams.TIMERS_ADJ, batch=4, rounds=3)
    for i in range(20):
        await t.arm(f"g-1|{i}", NOW)
    assert await t.poll_once(Fired(), NOW) == 12  # 3 claims of 4: bounded per poll
    assert await t.poll_once(Fired(), NOW) == 8
