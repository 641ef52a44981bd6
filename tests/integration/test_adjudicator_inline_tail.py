"""The adjudicator's commit on a single server carries its publishes and the consumed entry's
XACK (shared/runtime/tail.py) when they are all that follows it (no timer to arm): the same
entries, in the same order, as the outbox publishes after the commit otherwise, and the entry
acknowledged and deleted in the commit's step."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adjudicator.service import Adjudicator
from services.adjudicator.store import Store
from shared.protocol import internal as im
from shared.runtime import bus
from shared.runtime.archive import ValkeyArchive
from shared.runtime.jsonutil import loads
from shared.runtime.outbox import Outbox
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration

S = Settings(require_signatures=False)
GROUP = "adjudicator"


class Recorder(Outbox):
    """The outbox, recording the (stream, type) of what it publishes itself."""

    def __init__(self, redis: Any) -> None:
        super().__init__(redis)
        self.sent: list[tuple[str, str]] = []

    async def publish(self, body: Any, stream: str, maxlen: int | None = None,
                      **kw: Any) -> Any:
        self.sent.append((stream, body.get("type", "?")))
        return await super().publish(body, stream, maxlen, **kw)


class Plain:
    """The outbox behind a publisher that prepares no entries: the commit's publishes go
    after it, through the outbox."""

    def __init__(self, redis: Any) -> None:
        self.outbox = Outbox(redis)
        self.sent: list[tuple[str, str]] = []

    async def publish(self, body: Any, stream: str, maxlen: int | None = None,
                      **kw: Any) -> Any:
        self.sent.append((stream, body.get("type", "?")))
        return await self.outbox.publish(body, stream, maxlen, **kw)


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[Any]:
    client = aioredis.Redis.from_url(redis_url)
    await client.flushall()
    yield client
    await client.aclose()


async def _delivered(r: Any) -> bus.Delivery:
    with contextlib.suppress(aioredis.ResponseError):
        await r.xgroup_create("t:in", GROUP, id="0", mkstream=True)
    await r.xadd("t:in", {"__data__": b"x"})
    res = await r.xreadgroup(GROUP, "c1", {"t:in": ">"}, count=1)
    return bus.Delivery("t:in", GROUP, res[0][1][0][0], delete=True)


async def _play(r: Any, gid: str, broker: Recorder | Plain
                ) -> list[tuple[bus.Delivery, int]]:
    """A duel brought to its first turn, the seed and the first draw each handled as a
    consumed entry: each one's delivery and how many publishes the outbox made for it."""
    adj = Adjudicator(S, Store(r), broker, ValkeyArchive(r), Registered(r))
    players = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]
    await adj.on_create(im.CreateGame(game_id=gid, game="duel", players=players,
                                      client_entropy=False, options={"rounds": 2}))
    out = []
    for msg in (im.SeedCommitted(game_id=gid, commitment="00" * 32),
                im.DrawMade(game_id=gid, label="setup:first", values=[0])):
        d = await _delivered(r)
        before = len(broker.sent)
        token = bus._DELIVERY.set(d)
        try:
            await adj.dispatch(msg.model_dump(mode="json"))
        finally:
            bus._DELIVERY.reset(token)
        out.append((d, len(broker.sent) - before))
    return out


def _types(entries: list[Any]) -> list[str]:
    out = []
    for _, fields in entries:
        data = fields[b"__data__"]
        out.append(loads(data[data.index(b"{"):])["type"])
    return out


async def test_the_commit_publishes_and_acknowledges_in_its_own_step(r: Any) -> None:
    plain, inline = Plain(r), Recorder(r)
    (seed, by_seed), (draw, by_draw) = await _play(r, "g-plain", plain)
    assert by_seed and by_draw and not seed.acked and not draw.acked  # the bus acknowledges
    (seed, by_seed), (draw, by_draw) = await _play(r, "g-inline", inline)
    assert seed.acked and by_seed == 0  # its publishes and XACK in the commit's step
    # the first turn's timer follows the draw's commit: published after it, the bus acks
    assert not draw.acked and by_draw
    # the same entries on the same streams, in the same order (each game's fan-out shard
    # its own)
    shared = sorted({s for s, _ in plain.sent if not s.startswith("gw:updates")})
    assert shared
    for stream in shared:
        assert _types(await r.xrange(stream)) == [t for s, t in plain.sent if s == stream] * 2
    [mine] = {s for s, _ in inline.sent if s.startswith("gw:updates")}
    [theirs] = {s for s, _ in plain.sent if s.startswith("gw:updates")}
    assert _types(await r.xrange(mine)) == _types(await r.xrange(theirs))
    assert (await r.xpending("t:in", GROUP))["pending"] == 3  # all but the inline seed's
    assert await r.xlen("t:in") == 3  # that one deleted with its XACK
