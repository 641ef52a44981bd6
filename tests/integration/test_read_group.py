"""The shared group read of the lobby's request server and the bot runner
(shared/runtime/redis.py read_group) against a real server: entries read once per group,
and a group the server lost (it came back without its data: NOGROUP) created again."""

from __future__ import annotations

from typing import Any

import pytest

from shared.runtime.redis import ensure_group, read_group

pytestmark = pytest.mark.integration

DB = 12  # its own logical database



async def test_reads_new_entries_once_and_recreates_a_lost_group(r: Any) -> None:
    await ensure_group(r, "s", "g")
    for i in range(3):
        await r.xadd("s", {"d": str(i)})
    got = await read_group(r, "s", "g", "c", count=2, retry_s=0, block_ms=10)
    assert [f[b"d"] for _, f in got or []] == [b"0", b"1"]
    rest = await read_group(r, "s", "g", "c", count=10, retry_s=0, block_ms=10)
    assert [f[b"d"] for _, f in rest or []] == [b"2"]
    assert await read_group(r, "s", "g", "c", count=10, retry_s=0, block_ms=10) == []
    await r.flushdb()  # the server lost its data
    assert await read_group(r, "s", "g", "c", count=10, retry_s=0, block_ms=10) is None
    await r.xadd("s", {"d": "after"})
    again = await read_group(r, "s", "g", "c", count=10, retry_s=0, block_ms=10)
    assert [f[b"d"] for _, f in again or []] == [b"after"]
