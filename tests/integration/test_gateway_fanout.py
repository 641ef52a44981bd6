"""The game fan-out read per game shard, against a real server: the real gateway
(``build`` as ``create_app`` wires it, its lifespan running) and the real adjudicator's notify
and reply publishes. A gateway whose sockets watch game A is never handed an entry of game B;
the entries it does get are counted where they arrive (``Hub.deliver_batch``), and its
XREAD names only the watched games' shards)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from services.adjudicator.service import Adjudicator
from services.gateway.app import build
from services.gateway.fanout.hub import Connection
from services.gateway.fanout.outbound import Outbound
from services.gateway.service import Gateway
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime import bus
from shared.runtime.settings import Settings
from tests.e2e.conftest import with_db
from tests.support.fakes import FakeAdjudicatorStore, FakeKeyRegistry

pytestmark = pytest.mark.integration

DB = 7  # no running system reads this database's streams (``r`` is on it, emptied first)
SHARDS = 8


class NoArchive:
    async def put(self, game_id: str, doc: dict[str, Any]) -> bool:
        return True

    async def get(self, game_id: str) -> dict[str, Any] | None:
        return None


@dataclass
class Seen:
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def games(self) -> set[str]:
        return {b["game_id"] for b in self.bodies if "game_id" in b}


def two_games_in_two_shards() -> tuple[str, str, str]:
    """Three game ids whose fan-out shards all differ (bounded search)."""
    found: dict[str, str] = {}
    for i in range(1000):
        gid = f"fan-{uuid.uuid4().hex[:8]}-{i}"
        found.setdefault(streams.updates_for(gid, SHARDS), gid)
        if len(found) == 3:
            a, b, c = found.values()
            return a, b, c
    raise AssertionError("no three shards")  # pragma: no cover


@pytest.fixture
async def system(redis_url: str, r: Any) -> AsyncIterator[tuple[Gateway, Adjudicator, Seen]]:
    url = with_db(redis_url, DB)
    settings = Settings(redis_url=url, redis_plaintext=True, gw_shards=SHARDS,
                        instance=f"gw-fan-{uuid.uuid4().hex[:6]}", log_json=False)
    gw = build(settings)
    seen = Seen()
    deliver = gw.hub.deliver_batch

    async def recorded(bodies: list[dict[str, Any]]) -> None:  # where the entries arrive
        seen.bodies.extend(bodies)
        await deliver(bodies)

    gw.hub.deliver_batch = recorded  # type: ignore[method-assign]
    gw.fanout.deliver = recorded
    broker = bus.make_broker(settings)
    await broker.connect()
    adj = Adjudicator(settings, FakeAdjudicatorStore(), broker, NoArchive(),  # type: ignore[arg-type]
                      FakeKeyRegistry())

    async def ready() -> bool:
        return True

    async with gw.running(ready=ready):
        yield gw, adj, seen
    await broker.stop()


def connection(player_id: str) -> tuple[Connection, list[dict[str, Any]]]:
    inbox: list[dict[str, Any]] = []

    async def send(text: str) -> None:
        inbox.append(orjson.loads(text))

    async def close(code: int, reason: str) -> None:
        pass

    out = Outbound(send, close, max_frames=256, max_bytes=1 << 20, send_timeout_s=5.0)
    out.start()
    return Connection(player_id=player_id, name=player_id, out=out), inbox


async def a_game(r: Any, game_id: str) -> None:
    meta = {"game_id": game_id, "game": "duel", "options": {},
            "players": [{"player_id": "p0", "name": "p0"}, {"player_id": "p1", "name": "p1"}]}
    await r.set(Keys(game_id).meta, orjson.dumps(meta))


async def until(check: Any, tries: int = 200) -> bool:
    for _ in range(tries):  # bounded: at most ~10 s
        if check():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_gateway_watching_game_a_reads_no_entry_of_game_b(
        system: tuple[Gateway, Adjudicator, Seen], r: Any) -> None:
    gw, adj, seen = system
    a, b, _ = two_games_in_two_shards()
    await a_game(r, a)
    await a_game(r, b)
    conn, inbox = connection("p0")
    gw.hub.add(conn)
    try:
        await gw.hub.watch(conn, a, 0, -1, "0-0")
        for _ in range(20):  # game B moves on: nobody here watches it
            await adj.notify(b)
            await adj.reply(im.Reply(game_id=b, player_id="p0", cmd_id=f"b-{_}", ok=False,
                                     code="action/illegal", message="no"))
        await adj.reply(im.Reply(game_id=a, player_id="p0", cmd_id="a-1", ok=False,
                                 code="action/illegal", message="no"))
        await adj.notify(a)
        assert await until(lambda: sum(x.get("game_id") == a for x in seen.bodies) >= 2), seen
        assert seen.games() == {a}  # not one entry of B was handed on
        assert gw.fanout.entries == 2  # ... nor read: the reader read only A's shard
        assert set(gw.fanout.cursors) == {streams.updates_for(a, SHARDS)}
        assert await until(lambda: any(f.get("cmd_id") == "a-1" for f in inbox)), inbox
        assert not any(str(f.get("cmd_id", "")).startswith("b-") for f in inbox)
        assert await r.xlen(streams.updates_for(b, SHARDS)) == 40  # B's entries were written
    finally:
        gw.hub.remove(conn)


async def test_a_new_watch_and_a_command_on_an_unwatched_game_get_their_entries(
        system: tuple[Gateway, Adjudicator, Seen], r: Any) -> None:
    """The reader is blocked on A's shard when C is watched: C's shard is read from then on
    (nothing between the watch and the next read is lost); a command for a game not watched
    here (D's shard pinned) still gets its reply."""
    gw, adj, seen = system
    a, c, d = two_games_in_two_shards()
    for g in (a, c, d):
        await a_game(r, g)
    conn, inbox = connection("p1")
    gw.hub.add(conn)
    try:
        await gw.hub.watch(conn, a, 1, -1, "0-0")
        await adj.notify(a)
        assert await until(lambda: a in seen.games())
        await gw.hub.watch(conn, c, 1, -1, "0-0")
        await adj.notify(c)  # written right after the watch
        assert await until(lambda: c in seen.games()), seen
        assert gw.hub.want is not None
        await gw.hub.want(d, pin=True)  # as the WebSocket does before publishing a command
        await adj.reply(im.Reply(game_id=d, player_id="p1", cmd_id="d-1", ok=False,
                                 code="action/illegal", message="no"))
        assert await until(lambda: any(f.get("cmd_id") == "d-1" for f in inbox)), inbox
        gw.hub.unwatch(conn, a)
        gw.hub.unwatch(conn, c)
        assert a not in gw.hub.by_game and c not in gw.hub.by_game
    finally:
        gw.hub.remove(conn)


async def test_the_gateway_is_not_ready_once_its_shard_reader_stops(
        system: tuple[Gateway, Adjudicator, Seen]) -> None:
    from services.gateway.routes import health

    gw, _, _ = system
    assert await until(lambda: gw.fanout.running)
    assert await health.ready(gw)
    assert gw.fanout.task is not None
    gw.fanout.task.cancel()  # as when its task dies: the process lives on
    assert await until(lambda: not gw.fanout.running)
    assert await health._not_ready(gw) == "fan-out"
