"""Protocol version 3 in the fan-out (fewer frames): a watch at v3 gets each view in
one frame with the record entries up to the last one its state change wrote (``r`` on the
view entry), the other entries in ``records`` frames; a watch below v3 gets today's frames,
one per view and one per entry. Both get the same views and the same entries, in order, and
the watch's record cursor moves only with what was queued (a resume loses nothing)."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from services.gateway.fanout import hub as hub_module
from services.gateway.fanout.hub import Connection, Hub, Watch
from services.gateway.fanout.outbound import Outbound
from shared.protocol.server import SERVER_ADAPTER, RecordEntries, RecordEntry, ViewUpdate
from shared.protocol.streams import Keys
from tests.support.encodings import counted_encodings

pytestmark = pytest.mark.unit

GAME = "g-v3"
K = Keys(GAME)


def view(seq: int) -> dict[str, Any]:
    return {"seq": seq, "seat": 0, "stage": "playing", "view": {"round": seq}, "legal": [],
            "node": {"kind": "simultaneous"}, "events": [{"type": "x", "data": {}}],
            "cmd_ids": []}


def entry(n: int) -> dict[str, Any]:
    return {"type": "committed", "round_id": f"pick:{n}", "slot": "s1", "seat": 1,
            "commitment": "ab" * 32}


class Pipe:
    def __init__(self, redis: FakeRedis) -> None:
        self.redis = redis
        self.calls: list[tuple[str, str, int]] = []

    async def __aenter__(self) -> Pipe:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def xrange(self, key: str, min: str, count: int) -> None:
        self.calls.append((key, min, count))

    async def execute(self) -> list[Any]:
        return [[(i, f) for i, f in self.redis.streams.get(key, [])
                 if _id(i) > _id(after[1:])][:count] for key, after, count in self.calls]


def _id(i: bytes | str) -> tuple[int, int]:
    ms, n = (i.decode() if isinstance(i, bytes) else i).split("-")
    return int(ms), int(n)


class FakeRedis:
    def __init__(self) -> None:
        self.streams: dict[str, list[Any]] = {K.view(0): [], K.record: []}

    def pipeline(self, transaction: bool = False) -> Pipe:
        return Pipe(self)

    def add_record(self, i: str, e: dict[str, Any]) -> None:
        self.streams[K.record].append((i.encode(), {b"d": orjson.dumps(e)}))

    def add_view(self, i: str, v: dict[str, Any], r: str | None) -> None:
        f = {b"d": orjson.dumps(v)}
        if r is not None:
            f[b"r"] = r.encode()
        self.streams[K.view(0)].append((i.encode(), f))


def seat(hub: Hub, name: str, version: int, sent: list[str], frames: int = 64) -> Connection:
    async def send(text: str) -> None:
        sent.append(text)

    async def close(code: int, reason: str) -> None:
        return None

    conn = Connection(player_id=name, name=name,
                      out=Outbound(send, close, frames, 1 << 20, 5.0, label=name))
    conn.watches[GAME] = Watch(game_id=GAME, seat=0, version=version)
    hub.by_game[GAME].add(conn)
    hub.add(conn)
    return conn


def game() -> FakeRedis:
    """Entries 1-0 and 2-0 (the escrow's), then a move that wrote 3-0 and 4-0 and the view
    at 5-0 (r = 4-0), then the other seat's commitment 6-0, a move with no record entry (view
    6-0, no r), and 7-0."""
    redis = FakeRedis()
    for n in (1, 2, 3, 4):
        redis.add_record(f"{n}-0", entry(n))
    redis.add_view("5-0", view(1), "4-0")
    redis.add_record("6-0", entry(6))
    redis.add_view("6-0", view(2), None)
    redis.add_record("7-0", entry(7))
    return redis


async def pumped(hub: Hub, *conns: Connection) -> None:
    for c in conns:
        c.out.start()
    await hub.pump_games([GAME])
    await asyncio.sleep(0.05)  # the writers send
    for c in conns:
        await c.out.aclose()


def delivered(frames: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(views without v and records, record entries as {id, entry}) in delivery order, each
    frame checked against the server models."""
    views, entries = [], []
    for t in frames:
        msg = orjson.loads(t)
        SERVER_ADAPTER.validate_python(msg)
        if msg["type"] == "record":
            entries.append({"id": msg["id"], "entry": msg["entry"]})
            continue
        entries += msg.get("records", [])
        if msg["type"] == "view":
            views.append({k: x for k, x in msg.items() if k not in ("v", "records")})
    return views, entries


def test_a_v3_watch_gets_a_view_with_its_entries_then_the_rest_in_records_frames() -> None:
    sent: list[str] = []
    hub = Hub(game())
    conn = seat(hub, "a", 3, sent)
    asyncio.run(pumped(hub, conn))
    frames = [orjson.loads(t) for t in sent]
    assert [f["type"] for f in frames] == ["view", "view", "records"]
    assert all(f["v"] == 3 for f in frames)
    assert [r["id"] for r in frames[0]["records"]] == ["1-0", "2-0", "3-0", "4-0"]
    assert frames[1]["records"] == []  # a move with no entry: nothing rides with it
    assert [r["id"] for r in frames[2]["records"]] == ["6-0", "7-0"]
    assert isinstance(SERVER_ADAPTER.validate_python(frames[0]), ViewUpdate)
    assert isinstance(SERVER_ADAPTER.validate_python(frames[2]), RecordEntries)
    w = conn.watches[GAME]
    assert (w.view_id, w.record_id) == ("6-0", "7-0")


def test_v2_and_v3_watches_get_the_same_views_and_entries_and_v2_gets_todays_frames() -> None:
    sent2: list[str] = []
    sent3: list[str] = []
    redis = game()
    hub = Hub(redis)
    c2 = seat(hub, "b2", 2, sent2)
    c3 = seat(hub, "b3", 3, sent3)
    asyncio.run(pumped(hub, c2, c3))
    frames2 = [orjson.loads(t) for t in sent2]
    assert [f["type"] for f in frames2] == ["view", "view"] + ["record"] * 6
    assert all(f["v"] == 1 and "records" not in f for f in frames2)
    assert isinstance(SERVER_ADAPTER.validate_python(frames2[-1]), RecordEntry)
    assert delivered(sent2) == delivered(sent3)
    assert len(sent3) == 3  # against 8


def test_records_frames_hold_at_most_records_per_frame_entries() -> None:
    redis = FakeRedis()
    n = 2 * hub_module.RECORDS_PER_FRAME + 5
    for i in range(1, n + 1):
        redis.add_record(f"{i}-0", entry(i))
    sent: list[str] = []
    hub = Hub(redis)
    conn = seat(hub, "c", 3, sent)
    asyncio.run(pumped(hub, conn))
    sizes = [len(orjson.loads(t)["records"]) for t in sent]
    assert sizes == [hub_module.RECORDS_PER_FRAME, hub_module.RECORDS_PER_FRAME, 5]
    assert conn.watches[GAME].record_id == f"{n}-0"


def test_the_record_cursor_moves_only_with_what_was_queued() -> None:
    """A queue that overflows (slow consumer, closed 4008) keeps the cursor at the last entry
    actually queued: the client's resume (after_record) starts from what it holds."""
    sent: list[str] = []
    hub = Hub(game())
    conn = seat(hub, "d", 3, sent, frames=1)  # room for one frame only

    async def run() -> None:
        await hub.pump_games([GAME])  # (the writer is not started: nothing leaves the queue)

    asyncio.run(run())
    w = conn.watches[GAME]
    assert conn.closed  # the second frame did not fit
    assert (w.view_id, w.record_id) == ("5-0", "4-0")  # the first frame's view and entries


def test_watchers_at_one_place_at_v3_share_one_encoding_per_frame() -> None:
    """The fan-out's memo holds for v3: watchers at the same place of the game get
    the very same frame texts, each encoded once."""
    redis = game()
    hub = Hub(redis)
    sent: list[list[str]] = [[] for _ in range(20)]
    conns = [seat(hub, f"s{i}", 3, sent[i]) for i in range(20)]
    with counted_encodings() as encoded:
        asyncio.run(pumped(hub, *conns))
    assert len(encoded) == 3
    assert all(got == sent[0] for got in sent)


def test_the_games_of_one_fan_out_batch_share_one_round_trip() -> None:
    """A batch of fan-out entries naming several games is one pipelined round trip
    for all their watchers (it was one per game), and each watcher still gets its own game's
    frames."""
    games = [f"g-b{i}" for i in range(5)]
    streams: dict[str, list[Any]] = {}
    for n, g in enumerate(games):
        k = Keys(g)
        streams[k.record] = [(b"1-0", {b"d": orjson.dumps(entry(n))})]
        streams[k.view(0)] = [(b"2-0", {b"d": orjson.dumps(view(n)), b"r": b"1-0"})]
    executed: list[int] = []

    class Counting(FakeRedis):
        def pipeline(self, transaction: bool = False) -> Pipe:
            pipe = Pipe(self)
            real = pipe.execute

            async def execute() -> list[Any]:
                executed.append(len(pipe.calls))
                return await real()

            pipe.execute = execute  # type: ignore[method-assign]
            return pipe

    redis = Counting()
    redis.streams = streams
    hub = Hub(redis)
    sent: dict[str, list[str]] = {g: [] for g in games}
    conns = []
    for g in games:
        async def send(text: str, into: list[str] = sent[g]) -> None:
            into.append(text)

        async def close(code: int, reason: str) -> None:
            return None

        conn = Connection(player_id=g, name=g, out=Outbound(send, close, 64, 1 << 20, 5.0))
        conn.watches[g] = Watch(game_id=g, seat=0, version=3)
        hub.by_game[g].add(conn)
        conns.append(conn)

    async def run() -> None:
        for c in conns:
            c.out.start()
        await hub.deliver_batch([{"type": "notify", "game_id": g} for g in games])
        await asyncio.sleep(0.05)
        for c in conns:
            await c.out.aclose()

    asyncio.run(run())
    assert executed == [2 * len(games)]  # one round trip: a view and a record read per game
    for n, g in enumerate(games):
        (frame,) = [orjson.loads(t) for t in sent[g]]
        assert frame["game_id"] == g and frame["seq"] == n
        assert [r["entry"] for r in frame["records"]] == [entry(n)]


def test_a_view_carries_at_most_records_per_frame_entries_the_older_go_first() -> None:
    """A watch that fell behind a long stretch of entries before a view gets them in
    ``records`` frames first, then the view with the last RECORDS_PER_FRAME: no frame grows
    with the backlog."""
    redis = FakeRedis()
    n = hub_module.RECORDS_PER_FRAME * 2 + 50
    for i in range(1, n + 1):
        redis.add_record(f"{i}-0", entry(i))
    redis.add_view(f"{n + 1}-0", view(1), f"{n}-0")
    sent: list[str] = []
    hub = Hub(redis)
    conn = seat(hub, "e", 3, sent)
    asyncio.run(pumped(hub, conn))
    frames = [orjson.loads(t) for t in sent]
    per = hub_module.RECORDS_PER_FRAME
    assert [(f["type"], len(f["records"])) for f in frames] == [
        ("records", per), ("records", 50), ("view", per)]
    ids = [r["id"] for f in frames for r in f["records"]]
    assert ids == [f"{i}-0" for i in range(1, n + 1)]
    assert frames[-1]["type"] == "view"
