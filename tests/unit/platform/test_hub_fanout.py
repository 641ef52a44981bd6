"""The fan-out shares its work between watchers: watchers at the same place of the
same stream share one read, and every frame is encoded once for all of them; every watcher
still gets every frame, in order, as its own queue allows."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from services.gateway.fanout.hub import Connection, Hub, Watch
from services.gateway.fanout.outbound import Outbound
from shared.protocol.streams import Keys
from tests.support.encodings import counted_encodings
from tests.support.waits import eventually

pytestmark = pytest.mark.unit

GAME = "g-fan"
VIEW = {"seq": 3, "seat": None, "stage": "play", "view": {"round": 2}, "legal": [],
        "node": "act", "events": []}
RECORD = [{"type": "committed", "round_id": "r1", "slot": "s0", "commitment": "ab" * 32}]


class Pipe:
    def __init__(self, redis: FakeRedis) -> None:
        self.redis = redis
        self.calls: list[tuple[str, str]] = []

    async def __aenter__(self) -> Pipe:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def xrange(self, key: str, min: str, count: int) -> None:
        self.calls.append((key, min))

    async def execute(self) -> list[Any]:
        self.redis.reads.extend(self.calls)
        return [[(i, f) for i, f in self.redis.streams.get(key, []) if _id(i) > _id(after[1:])]
                for key, after in self.calls]


def _id(i: bytes | str) -> tuple[int, int]:
    ms, n = (i.decode() if isinstance(i, bytes) else i).split("-")
    return int(ms), int(n)


class FakeRedis:
    def __init__(self) -> None:
        k = Keys(GAME)
        self.streams: dict[str, list[Any]] = {
            k.view(None): [(b"1-0", {b"d": orjson.dumps(VIEW)})],
            k.record: [(f"{i + 1}-0".encode(), {b"d": orjson.dumps(e)})
                       for i, e in enumerate(RECORD)],
        }
        self.reads: list[tuple[str, str]] = []

    def pipeline(self, transaction: bool = False) -> Pipe:
        return Pipe(self)


def _spectator(hub: Hub, i: int, sent: list[str]) -> Connection:
    async def send(text: str) -> None:
        sent.append(text)

    async def close(code: int, reason: str) -> None:
        return None

    out = Outbound(send, close, 64, 1 << 20, 5.0, label=f"p{i}")
    conn = Connection(player_id=f"p{i}", name=f"P{i}", out=out)
    conn.watches[GAME] = Watch(game_id=GAME, seat=None)
    hub.by_game[GAME].add(conn)
    hub.add(conn)
    return conn


def test_spectators_of_one_game_share_one_read_per_stream_and_one_encoding() -> None:
    async def run() -> None:
        redis = FakeRedis()
        hub = Hub(redis)
        sent: list[list[str]] = [[] for _ in range(50)]
        conns = [_spectator(hub, i, sent[i]) for i in range(50)]
        for c in conns:
            c.out.start()
        with counted_encodings() as encoded:
            await hub.pump_games([GAME])
        # 50 watchers, two streams: two reads and two encodings, not one per watcher
        assert len(redis.reads) == 2, redis.reads
        assert len(encoded) == 2, len(encoded)
        await eventually(lambda: all(len(got) == 2 for got in sent), "the writers sent")
        for got in sent:
            assert [orjson.loads(t)["type"] for t in got] == ["view", "record"], got
        assert len({t for got in sent for t in got}) == 2  # the very same frames
        for c in conns:
            w = c.watches[GAME]
            assert (w.view_id, w.record_id) == ("1-0", "1-0")
        # caught up: the next pump reads from where they are, still once per stream
        await hub.pump_games([GAME])
        assert redis.reads[2:] == [(Keys(GAME).view(None), "(1-0"), (Keys(GAME).record, "(1-0")]
        for c in conns:
            await c.out.aclose()

    asyncio.run(run())


def test_watchers_at_different_places_read_apart_and_each_gets_its_own_frames() -> None:
    async def run() -> None:
        redis = FakeRedis()
        hub = Hub(redis)
        sent: list[list[str]] = [[], []]
        a, b = (_spectator(hub, i, sent[i]) for i in range(2))
        b.watches[GAME].view_id = "1-0"  # b has the view already, not the record
        for c in (a, b):
            c.out.start()
        await hub.pump_games([GAME])
        assert sorted(redis.reads) == sorted([(Keys(GAME).view(None), "(0-0"),
                                              (Keys(GAME).view(None), "(1-0"),
                                              (Keys(GAME).record, "(0-0")])
        await eventually(lambda: len(sent[0]) == 2 and len(sent[1]) == 1, "each watcher's frames")
        assert [orjson.loads(t)["type"] for t in sent[0]] == ["view", "record"]
        assert [orjson.loads(t)["type"] for t in sent[1]] == ["record"]
        for c in (a, b):
            await c.out.aclose()

    asyncio.run(run())


def test_the_sweep_reads_what_a_lost_fan_out_missed_and_leaves_a_live_game_alone() -> None:
    async def run() -> None:
        redis = FakeRedis()
        hub = Hub(redis)
        sent: list[str] = []
        conn = _spectator(hub, 0, sent)
        conn.out.start()
        hub._active[GAME] = 100.0  # told of at t=100, then its entries' fan-out was lost
        assert await hub.sweep(101.0, every_s=2.0, active_s=60.0) == []  # within the pass
        assert redis.reads == []  # left to its next fan-out, which reads from where it is
        assert await hub.sweep(103.0, every_s=2.0, active_s=60.0) == [GAME]
        await eventually(lambda: len(sent) == 2, "the sweep delivered the missed entries")
        assert [orjson.loads(t)["type"] for t in sent] == ["view", "record"]
        assert await hub.sweep(161.0, every_s=2.0, active_s=60.0) == []  # quiet a minute
        assert GAME not in hub._active
        await conn.out.aclose()

    asyncio.run(run())
