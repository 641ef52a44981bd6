"""Command ids belong to one (game, seat): one seat cannot burn another seat's ids
by sending them first, and a seat's refused ids are remembered boundedly (a count and a TTL),
while a command applied twice still has its effect once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adjudicator.service import Adjudicator
from services.adjudicator.store import Store
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.archive import ValkeyArchive
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration


class Sink:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        self.sent.append((stream, body))

    def replies(self) -> list[dict[str, Any]]:
        return [b for _, b in self.sent if b.get("type") == "reply"]


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[Any]:
    client = aioredis.Redis.from_url(redis_url)
    await client.flushall()
    yield client
    await client.aclose()


async def playing_duel(r: Any, gid: str, settings: Settings | None = None
                       ) -> tuple[Adjudicator, Sink]:
    """A duel at its first turn (seat 0 to call), driven through the adjudicator's handlers."""
    sink = Sink()
    s = settings or Settings(require_signatures=False)
    store = Store(r, refusals_kept=s.refusals_kept,
                  refusals_ttl_ms=int(s.refusals_ttl_s * 1000))  # as app.py builds it
    adj = Adjudicator(s, store, sink, ValkeyArchive(r), Registered(r))
    players = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]
    await adj.on_create(im.CreateGame(game_id=gid, game="duel", players=players,
                                      client_entropy=False, options={"rounds": 2}))
    await adj.on_seed(im.SeedCommitted(game_id=gid, commitment="00" * 32))
    await adj.on_draw(im.DrawMade(game_id=gid, label="setup:first", values=[0]))
    doc = await adj.store.load(gid)
    assert doc is not None and doc.stage == "playing"
    return adj, sink


def act(gid: str, seat: int, cmd: str, stake: int = 1) -> im.SubmitAction:
    return im.SubmitAction(cmd_id=cmd, game_id=gid, seat=seat, player_id=f"p{seat}",
                           action={"type": "call", "stake": stake})


async def test_a_seat_cannot_burn_another_seats_command_id(r: Any) -> None:
    gid = "g-ids"
    adj, sink = await playing_duel(r, gid)
    seq0 = (await adj.store.load(gid)).seq  # type: ignore[union-attr]
    await adj.on_action(act(gid, 1, "c-1"))  # seat 1 is not awaited: refused
    assert sink.replies()[-1]["code"] == "action/not_your_turn"
    await adj.on_action(act(gid, 0, "c-1"))  # seat 0's own c-1: applied
    doc = await adj.store.load(gid)
    assert doc is not None and doc.seq == seq0 + 1, sink.replies()[-1]
    await adj.on_action(act(gid, 0, "c-1"))  # the same command again: its effect once
    assert sink.replies()[-1]["code"] == "command/duplicate"
    assert (await adj.store.load(gid)).seq == seq0 + 1  # type: ignore[union-attr]
    await adj.on_action(act(gid, 1, "c-1"))  # seat 1's refused c-1 stays refused
    assert sink.replies()[-1]["code"] == "command/duplicate"


async def test_refused_command_ids_are_remembered_boundedly(r: Any) -> None:
    gid = "g-refusals"
    settings = Settings(refusals_kept=100, refusals_ttl_s=3600, require_signatures=False)
    adj, sink = await playing_duel(r, gid, settings)
    k = Keys(gid)

    async def game_bytes() -> int:
        total = 0
        async for key in r.scan_iter(match=f"g:{{{gid}}}:*"):
            total += await r.memory_usage(key) or 0
        return total

    before = await game_bytes()
    for i in range(2_000):  # seat 1, out of turn, each with a fresh id
        await adj.on_action(act(gid, 1, f"x-{i:06d}"))
    grown = await game_bytes() - before
    assert all(b["code"] == "action/not_your_turn" for b in sink.replies()[-2_000:])
    assert grown < 32 * 1024, grown  # ~100 ids kept, not 2,000
    # the latest refusals are still known (a replay of one is a duplicate) ...
    await adj.on_action(act(gid, 1, "x-001999"))
    assert sink.replies()[-1]["code"] == "command/duplicate"
    # ... and forgotten after their TTL: every key holding them expires
    ttls = [await r.pttl(key) async for key in r.scan_iter(match=f"g:{{{gid}}}:rej:*")]
    assert ttls and all(0 < t <= 3_600_000 for t in ttls), ttls
    assert await r.exists(k.state)
