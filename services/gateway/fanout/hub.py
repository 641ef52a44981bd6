"""Live connections and what each one watches; relays only the watcher's own streams.

A connection watching game G as seat s receives entries of ``g:{G}:v:<s>`` (its own view
stream) and ``g:{G}:rec`` (the public record); a spectator receives ``g:{G}:v:spec``. Nothing
else is ever read for a client, but the chat channels it joined (services/gateway/chat/) and
which of a watched game's players were deleted (shown anonymized: fanout/erased.py). Every
gateway replica reads the fan-out shards of the games its sockets watch (fanout/shards.py:
``want`` before a watch's first read) and pumps the watchers of the games named there; a slow
sweep catches anything missed.

The fan-out never waits for a client: it reads Redis and appends to each connection's
bounded outbound queue (services/gateway/fanout/outbound.py); every socket send happens in the
connection's own writer task, and no lock is held across one. A record backlog (a fresh
``watch`` of a long game, a watcher that fell a page behind) is paged by the connection's own
task, one page whenever its queue has room, never through the shared fan-out.

Protocol version 3 (fewer frames; shared/protocol/versions.py): a watch sent with
``v`` >= 3 gets ONE ``view`` frame per state change, whose ``records`` carry the record entries
up to the last one that state change wrote (the adjudicator stamps it on the view entry as
``r``: services/adjudicator/store.py), and the record entries that belong to no view (another
seat's commitment, the escrow's close, a backlog page) as ``records`` frames of up to
RECORDS_PER_FRAME entries. The entries, their order and their ids are exactly what a version 1
or 2 watch gets one ``record`` frame each; ``w.record_id`` moves only as they are queued, so a
resume (``after_record``) loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import orjson
import structlog
from cachetools import LRUCache
from pydantic import ValidationError

from services.gateway.chat.rooms import Sub
from services.gateway.fanout import erased, handover
from services.gateway.fanout.outbound import Outbound
from services.gateway.ports import RedisClient, Want, stream_entries
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.protocol.versions import COMBINED_FRAMES_VERSION
from shared.rules.narrate import narrate
from shared.runtime import metrics
from shared.runtime.jsonutil import loads, stream_order, text

log = structlog.get_logger("gateway")

VIEW_PAGE = 200  # view entries read per watcher per pump (a view is a complete snapshot)
RECORD_PAGE = 500  # public record entries per fan-out read; a longer backlog is paged
CATCH_UP_PAGE = 100  # record entries queued per page by a connection's own catch-up
RECORDS_PER_FRAME = 100  # version 3: record entries per ``records`` frame at most
CHAT_ENTRIES = ("chat_notify", "mutes_changed")  # fan-out entries of the chat, not of a game
PLAYER_ENTRIES = ("my_game",)  # a player's "My games" (fanout/my_games.py), not of a game


@dataclass
class Watch:
    game_id: str
    seat: int | None
    view_id: str = "0-0"  # last view stream id queued
    record_id: str = "0-0"  # last record stream id queued
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    catching_up: bool = False  # the record backlog is paged by the connection, not the pump
    catch_up: asyncio.Task[None] | None = None
    game: str = ""  # the game's registry name, for the log sentences
    version: int = 1  # the watch frame's protocol version: >= 3 combines frames
    names: list[str] = field(default_factory=list)  # seat -> player name (as shown)
    erased: set[str] = field(default_factory=set)  # its deleted players (erased.py)
    # how this watch's frames look beyond the entry (game, names, erased): part of the fan-out
    # memo's key (Frames), computed once per watch instead of once per entry and watcher
    look: tuple[Any, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.look = (self.game, tuple(self.names), frozenset(self.erased))

    @property
    def combined(self) -> bool:
        """Version 3: one frame per state change with its record entries."""
        return self.version >= COMBINED_FRAMES_VERSION


@dataclass(eq=False)
class Connection:
    player_id: str
    name: str
    out: Outbound
    session: str = ""  # the access token's session ("" for a bot's seat token)
    watches: dict[str, Watch] = field(default_factory=dict)
    rooms: dict[str, Sub] = field(default_factory=dict)  # chat rooms joined: key -> its place
    mutes: set[str] | None = None  # chat: players this one muted (loaded on chat_join)
    # commits published and not yet answered by the escrow: cmd_id -> (published at, game)
    awaiting: dict[str, tuple[float, str]] = field(default_factory=dict)

    @property
    def closed(self) -> bool:
        return self.out.closed

    def push(self, msg: dict[str, Any]) -> bool:
        """Queue a frame now (the fan-out: never waits; over the bound: closed 4008)."""
        b = orjson.dumps(msg)
        return self.out.push(b.decode(), len(b))

    async def send(self, msg: dict[str, Any]) -> None:
        """Queue a frame of the connection's own output, once its queue has room."""
        b = orjson.dumps(msg)
        await self.out.put(b.decode(), len(b))


class Frames:
    """Frames encoded once per fan-out: ``get(key, build)`` gives the frame's text and size,
    building and encoding it the first time its key is asked for."""

    def __init__(self) -> None:
        self._memo: dict[tuple[Any, ...], tuple[str, int]] = {}

    def get(self, key: tuple[Any, ...], build: Callable[[], dict[str, Any]]) -> tuple[str, int]:
        hit = self._memo.get(key)
        if hit is None:
            b = orjson.dumps(build())
            hit = self._memo[key] = (b.decode(), len(b))
        return hit


# a commit is answered by the escrow through the fan-out; one still unanswered this long (the
# fan-out or the escrow cut off from Valkey) is answered "message/unavailable" instead of
# leaving its client waiting in silence
COMMIT_ANSWER_S = 10.0


@dataclass(frozen=True)
class Place:
    """Where a player stands in a game, from its metadata (one read, cached)."""

    exists: bool
    seat: int | None = None  # None: not one of its players
    spectators: bool = False  # players without a seat may watch (the host's table option)


NOWHERE = Place(exists=False)


class Hub:
    def __init__(self, redis: RedisClient, want: Want | None = None) -> None:
        self.redis = redis
        # the fan-out's shards (fanout/shards.py Shards.want): the game's shard is read from
        # now on; awaited before a watch's first read and a command's publish (no gap)
        self.want = want
        self.draining = False  # shutting down: readiness fails, sockets close 1012
        self.by_game: dict[str, set[Connection]] = defaultdict(set)
        self.by_player: dict[str, set[Connection]] = defaultdict(set)
        # a game's metadata changes only when a seat goes to a bot (fanout/handover.py)
        self._meta: LRUCache[str, dict[str, Any]] = LRUCache(maxsize=50_000)
        # chat channels joined here (services/gateway/chat/): room key -> its connections
        self.rooms: dict[str, set[Connection]] = defaultdict(set)
        self._active: dict[str, float] = {}  # game -> last fan-out (monotonic)
        self._rewatching: set[asyncio.Task[None]] = set()  # (fanout/handover.py rewatch)

    async def drain(self, seconds: float) -> int:
        """Close every connection with 1012, spread evenly over ``seconds`` (not all at once:
        the reconnects land on the other replicas as a trickle, not a stampede). Returns how
        many were closed."""
        self.draining = True
        conns = [c for cs in self.by_player.values() for c in cs if not c.closed]
        if not conns:
            return 0
        gap = seconds / len(conns)
        for i, conn in enumerate(conns):
            conn.out.drain()
            if gap > 0 and i < len(conns) - 1:
                await asyncio.sleep(gap)
        return len(conns)

    def sessions(self) -> set[str]:
        """The sessions of this process's open connections."""
        return {c.session for cs in self.by_player.values() for c in cs
                if c.session and not c.closed}

    def end_session(self, session: str, code: int, reason: str) -> int:
        """Close every connection of the session; returns how many."""
        n = 0
        for cs in list(self.by_player.values()):
            for c in list(cs):
                if c.session == session and not c.closed:
                    c.out.end(code, reason)
                    n += 1
        return n

    async def meta(self, game_id: str) -> dict[str, Any] | None:
        hit = self._meta.get(game_id)
        if hit is not None:
            return hit
        raw = await self.redis.get(Keys(game_id).meta)
        if raw is None:
            return None
        meta = loads(raw)
        self._meta[game_id] = meta
        return meta  # type: ignore[no-any-return]

    def forget_meta(self, game_id: str) -> None:  # a seat went to a bot: read it again
        self._meta.pop(game_id, None)

    async def place(self, game_id: str, player_id: str) -> Place:
        meta = await self.meta(game_id)
        if meta is None:
            return NOWHERE
        seat = handover.seat_in(meta, player_id)
        if seat is None and handover.maybe_newly_seated(meta, player_id):
            self.forget_meta(game_id)
            meta = await self.meta(game_id) or meta
            seat = handover.seat_in(meta, player_id)
        return Place(True, seat, handover.may_watch(meta, player_id))

    async def for_command(self, game_id: str, player_id: str) -> Place:
        """Where the player stands; when seated, the game's fan-out shard is read from now on
        (pinned), so the answer to the command about to be published is not missed."""
        place = await self.place(game_id, player_id)
        if place.seat is not None and self.want is not None:
            await self.want(game_id, pin=True)
        return place

    async def seat_of(self, game_id: str, player_id: str) -> tuple[bool, int | None]:
        """(game exists, seat or None for a spectator)."""
        place = await self.place(game_id, player_id)
        return place.exists, place.seat

    async def spectators_allowed(self, game_id: str) -> bool:
        """Whether a player without a seat may watch (the host's table option)."""
        return (await self.place(game_id, "")).spectators

    def add(self, conn: Connection) -> None:
        if conn not in self.by_player[conn.player_id]:
            self.by_player[conn.player_id].add(conn)
            metrics.WS_CONNECTIONS.inc()  # served on the metrics port (shared/runtime/ops.py)

    def remove(self, conn: Connection) -> None:
        conn.out.stop()
        for w in conn.watches.values():
            _cancel(w)
        if conn in self.by_player[conn.player_id]:
            metrics.WS_CONNECTIONS.dec()
        self.by_player[conn.player_id].discard(conn)
        if not self.by_player[conn.player_id]:
            del self.by_player[conn.player_id]
        for gid in conn.watches:
            self.by_game[gid].discard(conn)
            if not self.by_game[gid]:
                del self.by_game[gid]
        for key in conn.rooms:
            self.rooms[key].discard(conn)
            if not self.rooms[key]:
                del self.rooms[key]

    async def watch(self, conn: Connection, game_id: str, seat: int | None, after_seq: int,
                    after_record: str, version: int = 1) -> None:
        """Called from the connection's own task: the resumed views, then the record after
        ``after_record`` page by page, each page once the connection's queue has room."""
        await conn.out.wait_room()
        old = conn.watches.get(game_id)
        if old is not None:
            _cancel(old)
        game, names, gone = "", [], set()
        meta = await self.meta(game_id)
        if meta is not None:
            game = str(meta.get("game", ""))
            players = meta.get("players", [])
            # deleted players' seats are shown anonymized, in the replayed game_created too
            # (services/gateway/fanout/erased.py); looked up once per watch
            gone = await erased.erased(self.redis, erased.row_ids(players))
            names = erased.names(players, gone)
        w = Watch(game_id=game_id, seat=seat, record_id=after_record, catching_up=True,
                  game=game, names=names, erased=gone, version=version)
        if self.want is not None:  # the game's fan-out shard is read from before the first
            await self.want(game_id, pin=True)  # read (pinned: not dropped before w is seen)
        conn.watches[game_id] = w
        self.by_game[game_id].add(conn)
        self._active[game_id] = time.monotonic()
        async with w.lock:  # taken before any pump sees w; at most 64 snapshots queued
            await self._resume_view(conn, w, after_seq)
        await self._catch_up(conn, w)

    def watchers_of(self, player_id: str, game_id: str, besides: Connection) -> int:
        """How many of the player's other connections here watch the game."""
        return sum(1 for c in self.by_player.get(player_id, ())
                   if c is not besides and not c.closed and game_id in c.watches)

    def unwatch(self, conn: Connection, game_id: str) -> None:
        w = conn.watches.pop(game_id, None)
        if w is not None:
            _cancel(w)
        watchers = self.by_game.get(game_id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:  # (its fan-out shard is no longer read for it)
                del self.by_game[game_id]

    async def _catch_up(self, conn: Connection, w: Watch) -> None:
        """Queue the record after ``w.record_id`` a page at a time, each once the queue has
        room; then the fan-out takes over. The lock is held for a read and non-blocking
        queueing only, never across a socket send."""
        key = Keys(w.game_id).record
        page = max(1, min(CATCH_UP_PAGE, conn.out.max_frames // 4))
        while not conn.closed and conn.watches.get(w.game_id) is w:
            await conn.out.wait_room()
            async with w.lock:
                entries = stream_entries(await self.redis.xrange(key, min=f"({w.record_id}",
                                                                 count=page))
                self._queue_records(conn, w, entries)
                if len(entries) < page:
                    w.catching_up = False
                    return

    def _start_catch_up(self, conn: Connection, w: Watch) -> None:
        if w.catch_up is None or w.catch_up.done():
            w.catching_up = True
            w.catch_up = asyncio.create_task(self._catch_up(conn, w))

    async def _resume_view(self, conn: Connection, w: Watch, after_seq: int) -> None:
        key = Keys(w.game_id).view(w.seat)
        entries = stream_entries(await self.redis.xrevrange(key, count=64))
        if not entries:
            return
        entries.reverse()
        payloads = [(text(i), loads(f[b"d"])) for i, f in entries]
        newer = [(i, p) for i, p in payloads if p["seq"] > after_seq]
        if after_seq < 0 or not newer or newer[0][1]["seq"] != after_seq + 1:
            # fresh watch or a gap: the latest snapshot is complete on its own
            last_id, last = payloads[-1]
            if last["seq"] > after_seq:
                conn.push(self._view_msg(w, last, gap=after_seq >= 0))
            w.view_id = last_id
            return
        for i, p in newer:
            conn.push(self._view_msg(w, p))
            w.view_id = i

    def _view_msg(self, w: Watch, p: dict[str, Any], gap: bool = False,
                  records: Sequence[Any] = ()) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "view", "v": 1, "game_id": w.game_id, "seq": p["seq"],
                               "seat": p["seat"], "stage": p.get("stage"), "view": p["view"],
                               "legal": p["legal"], "node": p["node"],
                               "events": [self._narrated(w, e) for e in p["events"]],
                               "cmd_ids": p.get("cmd_ids", []), "gap": gap}
        if w.combined:  # version 3: the record entries up to this state change ride along
            msg["v"] = COMBINED_FRAMES_VERSION
            msg["records"] = [self._record_item(w, i, f) for i, f in records]
        return msg

    @staticmethod
    def _narrated(w: Watch, e: dict[str, Any]) -> dict[str, Any]:
        """The entry with its one-sentence ``text`` (shared/rules/narrate.py): the entry was
        already filtered for this watcher, and the sentence says nothing the entry does not."""
        if not isinstance(e, dict) or not w.game:
            return e
        etype = e.get("event") if e.get("type") == "event" else e.get("type")
        data = e.get("data")
        if not isinstance(etype, str) or not isinstance(data, dict):
            return e
        return {**e, "text": narrate(w.game, etype, data, w.names)}

    def _queue_views(self, conn: Connection, w: Watch, entries: list[Any],
                     memo: Frames | None = None) -> None:
        memo = memo if memo is not None else Frames()
        look = w.look
        for i, f in entries:
            frame = memo.get(("v", w.game_id, w.seat, i, look),
                             partial(self._view_of, w, f))
            if not conn.out.push(*frame):
                return
            w.view_id = text(i)

    def _queue_records(self, conn: Connection, w: Watch, entries: list[Any],
                       memo: Frames | None = None) -> None:
        memo = memo if memo is not None else Frames()
        look = w.look
        if w.combined:  # version 3: several entries per ``records`` frame
            for n in range(0, len(entries), RECORDS_PER_FRAME):
                chunk = entries[n:n + RECORDS_PER_FRAME]
                frame = memo.get(("rs", w.game_id, chunk[0][0], chunk[-1][0], look),
                                 partial(self._records_msg, w, chunk))
                if not conn.out.push(*frame):
                    return
                w.record_id = text(chunk[-1][0])
            return
        for i, f in entries:
            frame = memo.get(("r", w.game_id, i, look),
                             partial(self._record_msg, w, i, f))
            if not conn.out.push(*frame):
                return
            w.record_id = text(i)

    def _queue_combined(self, conn: Connection, w: Watch, views: list[Any],
                        records: list[Any], memo: Frames) -> None:
        """Version 3: each view in one frame with the record entries up to the last one its
        state change wrote (``r`` on the view entry), then the entries left over (written
        after the last view, or by the escrow and the dealer alone) in ``records`` frames.
        A view entry without ``r`` (a move that wrote no record entry) carries none."""
        look = w.look
        j = 0
        for i, f in views:
            start = j
            upto = f.get(b"r")
            if upto is not None:
                last = stream_order(upto)
                while j < len(records) and stream_order(records[j][0]) <= last:
                    j += 1
            mine = records[start:j]
            if len(mine) > RECORDS_PER_FRAME:  # a backlog: the older entries go first
                self._queue_records(conn, w, mine[:-RECORDS_PER_FRAME], memo)
                if conn.closed:
                    return
                mine = mine[-RECORDS_PER_FRAME:]
            key = ("v3", w.game_id, w.seat, i, look,
                   mine[0][0] if mine else None, mine[-1][0] if mine else None)
            frame = memo.get(key, partial(self._view_of, w, f, mine))
            if not conn.out.push(*frame):
                return
            w.view_id = text(i)
            if mine:
                w.record_id = text(mine[-1][0])
        if j < len(records):
            self._queue_records(conn, w, records[j:], memo)

    def _view_of(self, w: Watch, f: Any, records: Sequence[Any] = ()) -> dict[str, Any]:
        return self._view_msg(w, loads(f[b"d"]), records=records)

    def _record_item(self, w: Watch, i: Any, f: Any) -> dict[str, Any]:
        """A record entry as sent: its id, the entry (a deleted player's seat anonymized)
        and, for an ``event`` entry, its sentence."""
        entry = erased.entry(loads(f[b"d"]), w.erased)
        item: dict[str, Any] = {"id": text(i), "entry": entry}
        if isinstance(entry, dict) and entry.get("type") == "event":
            # the sentence beside the entry, never inside it: the entry stays exactly the
            # record that clients verify (and compare with the HTTP record; both show a
            # deleted player's seat anonymized alike)
            sentence = self._narrated(w, entry).get("text")
            if isinstance(sentence, str):
                item["text"] = sentence
        return item

    def _record_msg(self, w: Watch, i: Any, f: Any) -> dict[str, Any]:
        return {"type": "record", "v": 1, "game_id": w.game_id, **self._record_item(w, i, f)}

    def _records_msg(self, w: Watch, entries: list[Any]) -> dict[str, Any]:
        return {"type": "records", "v": COMBINED_FRAMES_VERSION, "game_id": w.game_id,
                "records": [self._record_item(w, i, f) for i, f in entries]}

    async def pump_games(self, game_ids: list[str]) -> None:
        """One pipelined round trip for every watcher of every game named; the frames are
        queued, never sent here. Watchers at the same place of the same stream (a game's
        spectators, most of the time) share one read, and every frame is encoded once for all
        of them: reads and encodings grow with the distinct places watched, not with the
        sockets. The games of one fan-out batch share the round trip too: a pipeline per game
        would cost a Redis write and read per game, the gateway's largest cost."""
        todo = [(conn, w) for game_id in game_ids for conn in list(self.by_game.get(game_id, ()))
                if (w := conn.watches.get(game_id)) is not None and not conn.closed]
        if not todo:
            return
        todo.sort(key=lambda cw: id(cw[1]))  # one lock order for concurrent pumps
        held: list[asyncio.Lock] = []
        try:
            for _, w in todo:
                await w.lock.acquire()
                held.append(w.lock)
            slots: dict[tuple[Any, ...], int] = {}  # distinct read -> its result's index
            plan: list[tuple[Connection, Watch, int, int | None]] = []
            async with self.redis.pipeline(transaction=False) as pipe:
                def read(key: tuple[Any, ...], stream: str, after: str, count: int) -> int:
                    if key not in slots:
                        slots[key] = len(slots)
                        pipe.xrange(stream, min=f"({after}", count=count)
                    return slots[key]

                for conn, w in todo:
                    k = Keys(w.game_id)
                    v = read(("v", w.game_id, w.seat, w.view_id), k.view(w.seat), w.view_id,
                             VIEW_PAGE)
                    r = None  # while catching up, the connection's own task reads the record
                    if not w.catching_up:
                        r = read(("r", w.game_id, w.record_id), k.record, w.record_id,
                                 RECORD_PAGE)
                    plan.append((conn, w, v, r))
                res = await pipe.execute()
            memo = Frames()
            handed: dict[str, list[tuple[int, str]]] = {}
            for conn, w, v, r in plan:
                entries = res[r] if r is not None else []
                if entries and (moved := handover.handed_in(entries)):
                    handed[w.game_id] = moved
                if w.combined:
                    self._queue_combined(conn, w, res[v], entries, memo)
                else:
                    self._queue_views(conn, w, res[v], memo)
                    if r is not None:
                        self._queue_records(conn, w, entries, memo)
                if r is not None and len(entries) >= RECORD_PAGE and not conn.closed:
                    self._start_catch_up(conn, w)
        finally:
            for lock in held:
                lock.release()
        for game_id, moved in handed.items():  # who left a seat watches on as a spectator
            self.forget_meta(game_id)
            self._rewatching |= handover.rewatch(self, game_id, moved)

    async def deliver_batch(self, bodies: list[dict[str, Any]]) -> None:
        """A batch of fan-out entries: every game named in it is pumped once (a reply means
        its game changed too), then the replies go to their players, each after the state it
        refers to. Chat entries (``chat_notify``, ``mutes_changed``) are the chat's
        (services/gateway/chat/), skipped here."""
        dirty: dict[str, None] = {}
        replies: list[im.Reply] = []
        for body in bodies:
            if body.get("type") == "notify" and isinstance(gid := body.get("game_id"), str):
                dirty[gid] = None
                continue
            if body.get("type") in CHAT_ENTRIES or body.get("type") in PLAYER_ENTRIES:
                continue
            try:
                msg = im.GATEWAY_INPUT.validate_python(body)
            except ValidationError as exc:
                log.error("malformed_fan_out_entry", error=str(exc)[:300])
                continue
            if isinstance(msg, im.ChatNotify | im.MutesChanged):
                continue  # (skipped above)
            dirty[msg.game_id] = None
            if isinstance(msg, im.Reply) and msg.player_id in self.by_player:
                replies.append(msg)
        now = time.monotonic()
        games = [g for g in dirty if g in self.by_game]
        for g in games:
            self._active[g] = now
        await self.pump_games(games)
        for msg in replies:
            if msg.ok:
                out: dict[str, Any] = {"type": "committed", "v": 1, "cmd_id": msg.cmd_id,
                                       "game_id": msg.game_id, "round_id": msg.round_id,
                                       "slot": msg.slot, "commitment": msg.commitment}
            else:
                out = {"type": "rejected", "v": 1, "cmd_id": msg.cmd_id,
                       "game_id": msg.game_id, "code": msg.code, "message": msg.message}
            for conn in list(self.by_player.get(msg.player_id, ())):
                conn.awaiting.pop(msg.cmd_id, None)
                conn.push(out)

    def expire_commits(self, now: float, after_s: float = COMMIT_ANSWER_S) -> int:
        """Answer ``message/unavailable`` for every commit published ``after_s`` ago or more
        that the escrow has not answered: it may have been taken, so the client may send it
        again as it is (same cmd_id: applied at most once). Returns how many."""
        n = 0
        for conns in list(self.by_player.values()):
            for conn in list(conns):
                for cmd, (at, game) in list(conn.awaiting.items()):
                    if now - at >= after_s:
                        del conn.awaiting[cmd]
                        conn.push({"type": "rejected", "v": 1, "cmd_id": cmd, "game_id": game,
                                   "code": "message/unavailable",
                                   "message": "the commit was not confirmed in time (it may "
                                              "have been taken); send it again as it is"})
                        n += 1
        return n

    async def answer_loop(self, every_s: float = 1.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            self.expire_commits(time.monotonic())

    async def sweep_loop(self, every_s: float = 2.0, active_s: float = 60.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            with contextlib.suppress(Exception):
                await self.sweep(time.monotonic(), every_s, active_s)

    async def sweep(self, now: float, every_s: float, active_s: float) -> list[str]:
        """Read what a lost fan-out entry missed for the games told of in the last
        ``active_s`` but not the last ``every_s`` (a live game's next fan-out reads from where
        each watcher is, a missed entry included), in one round trip; the games read."""
        cutoff, fresh = now - active_s, now - every_s
        due: list[str] = []
        for gid, seen in list(self._active.items()):
            if seen < cutoff or gid not in self.by_game:
                self._active.pop(gid, None)
            elif seen <= fresh:
                due.append(gid)
        if due:
            await self.pump_games(due)
        return due


def _cancel(w: Watch) -> None:
    if w.catch_up is not None and not w.catch_up.done():
        w.catch_up.cancel()
