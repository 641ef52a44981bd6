"""The escrow's steps on a single server publish and acknowledge in their own script
(services/escrow/ports.py Tail): an accepted commit's receipt, a round's open notify, a close's
reveal and receipt go out in the step that makes them durable, and the consumed entry is
acknowledged (and deleted) there too, so the bus leaves it out of its XACK. What goes out
is what the outbox would have published, readable by the same decoder."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime import bus
from shared.runtime.jsonutil import loads
from shared.runtime.outbox import _IDENTITY, Outbox
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings
from shared.runtime.valkey import EmbeddedValkey
from tests.support.sealing import sealed_commit, seed_escrow_key

pytestmark = pytest.mark.integration

UNSIGNED = Settings(require_signatures=False)
GROUP = "escrow"


@pytest.fixture(scope="module")
async def r() -> AsyncIterator[Any]:
    server = EmbeddedValkey()
    try:
        client = aioredis.Redis.from_url(server.start())
        await seed_escrow_key(client)
        yield client
        await client.aclose()
    finally:
        server.stop()


def _body(data: bytes) -> dict[str, Any]:
    """The JSON body of a faststream BinaryMessageFormatV1 entry (after its headers)."""
    assert data.startswith(_IDENTITY)
    return dict(loads(data[data.index(b"{"):]))


async def _entries(r: Any, stream: str) -> list[dict[str, Any]]:
    return [_body(f[b"__data__"]) for _, f in await r.xrange(stream)]


async def _delivered(r: Any, stream: str) -> bus.Delivery:
    """An entry XADDed to ``stream`` and read by the escrow's group, as the bus reads it (the
    handler is called with its message directly)."""
    with contextlib.suppress(aioredis.ResponseError):  # BUSYGROUP: made by an earlier step
        await r.xgroup_create(stream, GROUP, id="0", mkstream=True)
    await r.xadd(stream, {"__data__": b"x"})
    res = await r.xreadgroup(GROUP, "c1", {stream: ">"}, count=1)
    return bus.Delivery(stream, GROUP, res[0][1][0][0], delete=True)


async def _handle(d: bus.Delivery, coro: Any) -> None:
    token = bus._DELIVERY.set(d)
    try:
        await coro
    finally:
        bus._DELIVERY.reset(token)


async def test_a_round_opens_commits_and_closes_in_steps_that_acknowledge_their_entries(
        r: Any) -> None:
    gid = "g-inline"
    esc = Escrow(UNSIGNED, EscrowStore(r), Outbox(r), Registered(r))
    assert esc.store.inline
    spec = im.OpenRound(game_id=gid, game="duel", round_id="pick:1", deadline_ms=10**13,
                        pace="real-time",
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)),
                                           default=0) for i in range(2)])
    updates = streams.updates_for(gid, UNSIGNED.gw_shards)
    reveals = streams.sharded(streams.ADJ_REVEALS, gid, UNSIGNED.partitions)

    opened = await _delivered(r, "t:open")
    await _handle(opened, esc.on_open(spec))
    assert opened.acked
    assert [e["type"] for e in await _entries(r, updates)] == ["notify"]

    first = await _delivered(r, "t:commits")
    await _handle(first, esc.on_commit(sealed_commit(gid, "pick:1", "s0", 0, 4)))
    assert first.acked
    receipt = (await _entries(r, updates))[-1]
    assert receipt["type"] == "reply" and receipt["ok"] and receipt["slot"] == "s0"

    last = await _delivered(r, "t:commits")
    await _handle(last, esc.on_commit(sealed_commit(gid, "pick:1", "s1", 1, 6)))
    assert last.acked
    [reveal] = await _entries(r, reveals)
    assert reveal["choices"] == {"s0": 4, "s1": 6}
    receipt = (await _entries(r, updates))[-1]
    assert receipt["type"] == "reply" and receipt["ok"] and receipt["slot"] == "s1"
    # every entry acknowledged and deleted by the steps themselves
    for stream in ("t:open", "t:commits"):
        assert (await r.xpending(stream, GROUP))["pending"] == 0
        assert await r.xlen(stream) == 0
    # a refused commit is not the step's: the bus acknowledges it as before
    again = await _delivered(r, "t:commits")
    await _handle(again, esc.on_commit(sealed_commit(gid, "pick:1", "s1", 1, 6)))
    assert not again.acked
    assert (await _entries(r, updates))[-1]["ok"] is False
