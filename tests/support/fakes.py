"""In-memory adapters for the ports of shared/runtime/ports.py: the same answers as the Redis
stores (services/*/store.py) for what the services ask, held in dicts. The store contract
tests (tests/integration/test_store_contracts.py) run the same checks against both, so a fake
that drifts from its store fails there."""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from services.adjudicator.core import GameDoc
from services.adjudicator.store import CommitResult
from services.escrow.store import CloseInputs, Step
from services.lobby import tables
from services.lobby.store import IDLE_TABLES, LIVE_GAMES, OPEN_TABLES
from services.lobby.tables import LobbyError
from shared.protocol import internal as im
from shared.protocol import lobby as lm
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.ports import Decide


class FakeKeyRegistry:
    """The lobby's session-key registry (shared/runtime/ports.KeyRegistry): the keys
    ``register``ed for a player, unexpiring."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, str]] = set()

    def register(self, player_id: str, key: str) -> None:
        self.keys.add((player_id, key))

    async def __call__(self, player_id: str, key: str, now_ms: int) -> bool:
        return (player_id, key) in self.keys


class FakePublisher:
    """Records what a service publishes: (stream, body) in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def publish(self, body: Any, /, *, stream: str, maxlen: int | None = None) -> Any:
        self.sent.append((stream, body))
        return None

    def bodies(self, type_: str) -> list[dict[str, Any]]:
        return [b for _, b in self.sent if isinstance(b, dict) and b.get("type") == type_]


class FakeDealerStore:
    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}
        self.orders: dict[str, list[str]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.ttl_ms: dict[str, int] = {}

    async def commit_seed(self, game_id: str, seed_hex: str, rules_version: str,
                          commitment: str, entry: str) -> bool:
        h = self.hashes.setdefault(game_id, {})
        if "seed" in h:
            return False
        h.update(seed=seed_hex, rules_version=rules_version, commitment=commitment)
        self.records.setdefault(game_id, []).append(loads(entry))
        return True

    async def commitment(self, game_id: str) -> str:
        return self.hashes[game_id]["commitment"]

    async def fields(self, game_id: str) -> dict[str, str]:
        return dict(self.hashes.get(game_id, {}))

    async def fix_client_seeds(self, game_id: str, seeds: str) -> bool:
        return self.hashes.setdefault(game_id, {}).setdefault("client_seeds", seeds) == seeds

    async def store_draw(self, game_id: str, label: str, record: str) -> str | None:
        h = self.hashes.setdefault(game_id, {})
        prior = h.get("draw:" + label)
        if prior is not None:
            return prior
        h["draw:" + label] = record
        self.orders.setdefault(game_id, []).append(label)
        return None

    async def order(self, game_id: str) -> list[str]:
        return list(self.orders.get(game_id, []))

    async def reveal(self, game_id: str, entry: str, ttl_ms: int) -> bool:
        h = self.hashes.setdefault(game_id, {})
        if "revealed" in h:
            return False
        h["revealed"] = "1"
        self.records.setdefault(game_id, []).append(loads(entry))
        self.ttl_ms[game_id] = ttl_ms
        return True


class FakeScoringStore:
    def __init__(self) -> None:
        self.ratings: dict[str, dict[str, dict[str, Any]]] = {}  # game -> player -> row
        self.scored: dict[str, dict[str, Any]] = {}  # game id -> record
        self.results: dict[str, dict[str, Any]] = {}
        self.leaderboards: dict[str, dict[str, float]] = {}
        self.histories: dict[str, dict[str, int]] = {}  # hist:<player> / history:<game>

    async def rate_once(self, game: str, game_id: str, ids: list[str], decide: Decide
                        ) -> tuple[dict[str, Any], bool]:
        if game_id in self.scored:
            return copy.deepcopy(self.scored[game_id]), False
        table = self.ratings.setdefault(game, {})
        rows, record = decide([copy.deepcopy(table.get(pid)) for pid in ids])
        table.update(loads(dumps(rows)))
        self.scored[game_id] = loads(dumps(record))
        return record, True

    async def publish(self, record: dict[str, Any], leaderboard: dict[str, float],
                      keep: int) -> None:
        self.results[record["game_id"]] = loads(dumps(record))
        self.leaderboards.setdefault(record["game"], {}).update(leaderboard)
        for key in [f"hist:{p['player_id']}" for p in record["players"]] + [
                f"history:{record['game']}"]:
            h = self.histories.setdefault(key, {})
            h[record["game_id"]] = record["ended_ms"]
            for gid, _ in sorted(h.items(), key=lambda kv: kv[1])[:max(0, len(h) - keep)]:
                del h[gid]


class FakeTimers:
    """shared/runtime/timers.py in a dict: member -> due ms; ``poll_once`` runs the due ones."""

    def __init__(self) -> None:
        self.due: dict[str, int] = {}

    async def arm(self, member: str, due_ms: int, keep: bool = False) -> None:
        if not (keep and member in self.due):
            self.due[member] = due_ms

    async def drop(self, member: str) -> None:
        self.due.pop(member, None)

    async def poll_once(self, handle: Callable[[str], Awaitable[bool]], now_ms: int) -> int:
        """Each member due by ``now_ms`` claimed for a lease and run through ``handle``;
        dropped when it answers True unless it re-armed itself meanwhile; one that raises
        stays claimed (due again when the lease ends)."""
        fired = 0
        for member, due in sorted(self.due.items(), key=lambda kv: kv[1]):
            if due <= now_ms:
                self.due[member] = lease = now_ms + 10_000
                fired += 1
                try:
                    finished = await handle(member)
                except Exception:
                    continue
                if finished and self.due.get(member) == lease:
                    del self.due[member]
        return fired

    async def run(self, handle: Callable[[str], Awaitable[bool]], poll_s: float,
                  now: Callable[[], int]) -> None:
        while True:
            await self.poll_once(handle, now())
            await asyncio.sleep(poll_s)


class FakeAdjudicatorStore:
    """services/adjudicator/store.py: one document per game under a compare-and-set on its
    seq, the command ids applied per (game, seat) and the refused ones per seat, the streams
    (log, record, views) as lists."""

    def __init__(self, refusals_kept: int = 256) -> None:
        self.docs: dict[str, str] = {}  # game id -> the document's JSON
        self.logs: dict[str, list[dict[str, Any]]] = {}
        self.publogs: dict[str, list[dict[str, Any]]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.views: dict[str, dict[int | None, list[dict[str, Any]]]] = {}
        self.cmds: dict[str, set[str]] = {}
        self.refusals: dict[tuple[str, int], dict[str, int]] = {}
        self.metas: dict[str, dict[str, Any]] = {}  # the lobby's g:{id}:meta
        self.results: dict[str, dict[str, Any]] = {}  # scoring's g:{id}:result
        self.expiring: dict[str, int] = {}  # game id -> ttl ms of its live keys
        self.refusals_kept = refusals_kept
        self._clock = itertools.count()  # the order refusals came in (the Lua's "now")
        self._timers = FakeTimers()
        self._cache: dict[str, GameDoc] = {}

    @property
    def timers(self) -> FakeTimers:
        return self._timers

    def cached(self, game_id: str) -> GameDoc | None:
        return self._cache.get(game_id)

    def _remember(self, doc: GameDoc) -> None:
        if doc.stage == "ended":
            self._cache.pop(doc.game_id, None)
        else:
            self._cache[doc.game_id] = doc

    async def load(self, game_id: str) -> GameDoc | None:
        raw = self.docs.get(game_id)
        if raw is None:
            return None
        doc = GameDoc.model_validate(loads(raw))
        self._remember(doc)
        return doc

    async def command_known(self, game_id: str, seat: int, cmd_id: str) -> bool:
        applied = self.cmds.get(game_id, set())
        return (f"{seat}|{cmd_id}" in applied or cmd_id in applied
                or cmd_id in self.refusals.get((game_id, seat), {}))

    async def remember_rejection(self, game_id: str, seat: int, cmd_id: str) -> bool:
        seen = self.refusals.setdefault((game_id, seat), {})
        if cmd_id in seen:
            return False
        seen[cmd_id] = next(self._clock)
        while len(seen) > self.refusals_kept:  # the oldest out
            del seen[min(seen, key=seen.__getitem__)]
        return True

    async def commit(self, expected_seq: int, doc: GameDoc, log: list[dict[str, Any]],
                     records: list[dict[str, Any]], views: dict[int | None, dict[str, Any]],
                     cmd_id: str = "", seat: int | None = None) -> CommitResult:
        gid = doc.game_id
        raw = self.docs.get(gid)
        cur = GameDoc.model_validate(loads(raw)).seq if raw is not None else -1
        if (raw is not None and expected_seq == -1) or (expected_seq != -1
                                                       and cur != expected_seq):
            self._cache.pop(gid, None)
            return CommitResult(ok=False, current_seq=cur)
        if cmd_id:
            field = f"{seat if seat is not None else -1}|{cmd_id}"
            if field in self.cmds.setdefault(gid, set()):
                self._cache.pop(gid, None)
                return CommitResult(ok=False, duplicate=True, current_seq=cur)
            self.cmds[gid].add(field)
        self.docs[gid] = doc.model_dump_json()
        self.logs.setdefault(gid, []).extend(loads(dumps(e)) for e in log)
        self.records.setdefault(gid, []).extend(loads(dumps(e)) for e in records)
        for s, payload in views.items():
            self.views.setdefault(gid, {}).setdefault(s, []).append(loads(dumps(payload)))
        if doc.stage == "ended":
            self.publogs[gid] = copy.deepcopy(self.logs[gid])
        self._remember(doc)
        return CommitResult(ok=True, current_seq=doc.seq)

    async def arm_timer(self, game_id: str, seq: int | str, due_ms: int,
                        keep: bool = False) -> None:
        await self._timers.arm(f"{game_id}|{seq}", due_ms, keep)

    async def drop_timer(self, member: str) -> None:
        await self._timers.drop(member)

    async def game_for_archive(self, game_id: str, seats: int
                               ) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]],
                                          Any, Any]:
        record = [{"id": f"{i + 1}-0", **e} for i, e in enumerate(self.records.get(game_id, []))]
        spectator = self.views.get(game_id, {}).get(None) or [None]
        return (copy.deepcopy(self.metas.get(game_id)), record,
                copy.deepcopy(self.logs.get(game_id, [])),
                copy.deepcopy(self.results.get(game_id)), copy.deepcopy(spectator[-1]))

    async def chat_for_archive(self, game_id: str, table_id: str | None
                               ) -> dict[str, list[dict[str, Any]]]:
        channels = ["seats", "spectators", *(["table"] if table_id else [])]
        return {c: [] for c in channels}

    async def expire_live(self, game_id: str, seats: int, ttl_ms: int) -> None:
        self.expiring[game_id] = ttl_ms
        self._cache.pop(game_id, None)


class FakeLobbyStore:
    """services/lobby/store.py: tables as JSON, the listing indexes as dicts (member ->
    score), the per-player quota reservations with QUOTA_LUA's rules."""

    def __init__(self) -> None:
        self.players: dict[str, dict[str, Any]] = {}
        self.handles: dict[str, str] = {}
        self.tables: dict[str, str] = {}
        self.invites: dict[str, str] = {}
        self.indexes: dict[str, dict[str, int]] = {OPEN_TABLES: {}, IDLE_TABLES: {},
                                                   LIVE_GAMES: {}}
        self.metas: dict[str, dict[str, Any]] = {}
        self.over: set[str] = set()  # games scored or archived
        self.audit_log: list[dict[str, Any]] = []
        self.quota_tables: dict[str, dict[str, str]] = {}
        self.quota_games: dict[str, dict[str, str]] = {}

    async def put_player(self, player: dict[str, Any], ttl_s: int) -> None:
        self.players[player["player_id"]] = copy.deepcopy(player)

    async def claim_handle(self, handle_key: str, player_id: str, ttl_s: int) -> bool:
        if handle_key in self.handles:  # SET NX: held, even by the same player
            return False
        self.handles[handle_key] = player_id
        return True

    async def load(self, table_id: str) -> lm.Table:
        raw = self.tables.get(table_id)
        if raw is None:
            raise LobbyError("lobby/not_found", "no such table")
        return lm.Table.model_validate_json(raw)

    async def load_many(self, table_ids: list[str]) -> dict[str, lm.Table | None]:
        return {tid: lm.Table.model_validate_json(self.tables[tid]) if tid in self.tables
                else None for tid in table_ids}

    async def table_of_invite(self, code: str) -> str | None:
        return self.invites.get(code)

    async def create(self, t: lm.Table) -> None:
        self.tables[t.table_id] = t.model_dump_json()
        self.invites[t.invite] = t.table_id
        self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)
        if tables.listed(t):
            self.indexes[OPEN_TABLES][t.table_id] = t.created_ms

    async def update(self, table_id: str, change: Callable[[lm.Table], lm.Table],
                     expire_s: int) -> lm.Table:
        before = await self.load(table_id)
        t = change(before)
        if t is before:
            return t
        self.tables[table_id] = t.model_dump_json()
        if tables.listed(t):
            self.indexes[OPEN_TABLES][t.table_id] = t.created_ms
        else:
            self.indexes[OPEN_TABLES].pop(t.table_id, None)
        if t.status == "open":
            self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)
        else:
            self.indexes[IDLE_TABLES].pop(t.table_id, None)
        return t

    async def idle(self, before_ms: int, count: int = 100) -> list[str]:
        rows = sorted((s, m) for m, s in self.indexes[IDLE_TABLES].items() if s <= before_ms)
        return [m for _, m in rows[:count]]

    async def forget_idle(self, table_id: str) -> None:
        self.indexes[IDLE_TABLES].pop(table_id, None)
        self.indexes[OPEN_TABLES].pop(table_id, None)

    async def reindex_idle(self, t: lm.Table) -> None:
        self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)

    async def newest(self, index: str, cursor: tuple[int, str] | None,
                     count: int) -> list[tuple[str, int]]:
        top = float("inf") if cursor is None else cursor[0]
        rows = sorted(((s, m) for m, s in self.indexes[index].items() if s <= top),
                      reverse=True)
        return [(m, s) for s, m in rows[:count]]

    async def unlist(self, index: str, members: list[str]) -> None:
        for m in members:
            self.indexes[index].pop(m, None)

    async def add_live(self, game_id: str, now_ms: int) -> None:
        self.indexes[LIVE_GAMES].setdefault(game_id, now_ms)

    async def drop_live_before(self, before_ms: int) -> None:
        live = self.indexes[LIVE_GAMES]
        for gid in [g for g, s in live.items() if s <= before_ms]:
            del live[gid]

    async def games_over(self, game_ids: list[str]) -> dict[str, bool | None]:
        return {gid: True if gid in self.over else (False if gid in self.metas else None)
                for gid in game_ids}

    async def put_meta(self, game_id: str, meta: dict[str, Any]) -> None:
        self.metas.setdefault(game_id, loads(dumps(meta)))

    async def audit(self, entry: dict[str, Any], maxlen: int) -> None:
        self.audit_log.append({"id": f"{len(self.audit_log) + 1}-0", **loads(dumps(entry))})
        del self.audit_log[:max(0, len(self.audit_log) - maxlen)]

    async def audit_entries(self, limit: int) -> list[dict[str, Any]]:
        return copy.deepcopy(self.audit_log[::-1][:limit])

    async def reserve(self, player_id: str, op: str, table_id: str, now_ms: int,
                      limits: tuple[int, int, int], game_id: str = "", bots: int = 0
                      ) -> str:
        held_t = self.quota_tables.setdefault(player_id, {})
        held_g = self.quota_games.setdefault(player_id, {})

        def bots_of(v: str) -> int:
            return int(v.split(":", 1)[0] or 0)

        max_tables, max_games, max_bots = limits
        if op == "table":
            if table_id in held_t:
                return ""
            if len(held_t) >= max_tables:
                return "open_tables"
            held_t[table_id] = f"0:{now_ms}"
        elif op == "bot":
            if sum(map(bots_of, [*held_t.values(), *held_g.values()])) + 1 > max_bots:
                return "bot_seats"
            v = held_t.get(table_id)
            since = v.split(":", 1)[1] if v else str(now_ms)
            held_t[table_id] = f"{(bots_of(v) if v else 0) + 1}:{since}"
        elif op == "unbot":
            v = held_t.get(table_id)
            if v and bots_of(v) > 0:
                held_t[table_id] = f"{bots_of(v) - 1}:{v.split(':', 1)[1]}"
        elif op == "start":
            if game_id in held_g:
                return ""
            if len(held_g) >= max_games:
                return "running_games"
            held_t.pop(table_id, None)
            held_g[game_id] = f"{bots}:{now_ms}"
        elif op == "unstart":
            v = held_g.pop(game_id, None)
            if v is not None:
                held_t[table_id] = v
        elif op == "drop_table":
            held_t.pop(table_id, None)
        else:
            raise ValueError("unknown quota op")
        return ""

    async def reservations(self, player_id: str) -> tuple[dict[str, str], dict[str, str]]:
        return (dict(self.quota_tables.get(player_id, {})),
                dict(self.quota_games.get(player_id, {})))

    async def apply(self, player_id: str, fix: tables.Reconcile) -> None:
        held_t = self.quota_tables.setdefault(player_id, {})
        held_g = self.quota_games.setdefault(player_id, {})
        for tid in fix.drop_tables:
            held_t.pop(tid, None)
        for gid in fix.drop_games:
            held_g.pop(gid, None)
        held_t.update(fix.set_tables)


class FakeBotsStore:
    """services/bots/store.py: ``bots:in`` as a list of entries (id, fields), each delivered
    to the group once; ``bots:active`` and the leases (SET NX) as dicts. ``orphans``: entries
    a dead runner read and never stored (what ``reclaim`` hands over)."""

    def __init__(self, instance: str = "runner-1") -> None:
        self.instance = instance
        self.stream: list[tuple[bytes, dict[bytes, bytes]]] = []
        self.delivered: set[bytes] = set()
        self.orphans: list[tuple[bytes, dict[bytes, bytes]]] = []
        self.active: dict[str, str] = {}
        self.leases: dict[str, str] = {}  # seat key -> the runner holding it
        self.dead: list[tuple[Any, str]] = []
        self.reads: list[int] = []  # the count asked by every read: the back-pressure's trace
        self._added = 0

    def add(self, body: dict[str, Any]) -> bytes:
        """XADD to ``bots:in`` (the lobby's SeatBot)."""
        self._added += 1
        msg_id = f"{self._added}-0".encode()
        self.stream.append((msg_id, {b"d": dumps(body).encode()}))
        return msg_id

    def waiting(self) -> int:
        """Entries of ``bots:in`` no runner has read yet."""
        return sum(1 for msg_id, _ in self.stream if msg_id not in self.delivered)

    async def keep(self, seat_key: str, seat: str) -> None:
        self.active[seat_key] = seat

    async def forget(self, seat_key: str) -> None:
        self.active.pop(seat_key, None)

    async def active_page(self, cursor: int, count: int = 200) -> tuple[int, list[Any]]:
        return 0, list(self.active.values())

    async def lease(self, seat_key: str) -> bool:
        if seat_key in self.leases:
            return False
        self.leases[seat_key] = self.instance
        return True

    async def renew(self, seat_key: str) -> None:
        self.leases[seat_key] = self.instance

    async def release(self, seat_key: str) -> None:
        self.leases.pop(seat_key, None)

    async def read(self, count: int, retry_s: float) -> list[Any]:
        self.reads.append(count)
        batch = [e for e in self.stream if e[0] not in self.delivered][:count]
        self.delivered.update(msg_id for msg_id, _ in batch)
        if not batch:
            await asyncio.sleep(0.001)  # XREADGROUP BLOCK: the reader waits a moment
        return batch

    async def reclaim(self, count: int) -> list[Any]:
        taken, self.orphans = self.orphans[:count], self.orphans[count:]
        return taken

    async def done(self, ids: list[bytes]) -> None:
        gone = set(ids)
        self.stream = [e for e in self.stream if e[0] not in gone]

    async def dead_letter(self, body: Any, exc: Exception) -> None:
        self.dead.append((body, repr(exc)))


class FakeEscrowStore:
    """services/escrow/store.py: its Lua scripts' rules over dicts. Per (game, round): the
    status (open | closing | closed), the round hash (spec, '#salts', '#opened', '#reveal',
    '#skip/<slot>', '#skipped'), the commitments and the openings; per game the record (a
    list of entries: the escrow's and, to end a game, the adjudicator's game_ended)."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}  # esc:keys
        self.status: dict[tuple[str, str], str] = {}
        self.rounds: dict[str, dict[str, str]] = {}  # game id -> its round hash
        self.commits: dict[tuple[str, str], dict[str, str]] = {}
        self.openings: dict[str, dict[str, str]] = {}  # game id -> '<round>/<slot>' -> JSON
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.ttl_ms: dict[str, int] = {}  # game id -> the longest TTL asked for its keys
        self._timers = FakeTimers()

    @property
    def timers(self) -> FakeTimers:
        return self._timers

    async def seal_key(self, candidate: str) -> str:
        return self.keys.setdefault("x25519", candidate)

    async def round_spec(self, game_id: str, round_id: str) -> im.OpenRound | None:
        raw = self.rounds.get(game_id, {}).get(round_id)
        return None if raw is None else im.OpenRound.model_validate(loads(raw))

    async def open_round(self, spec: im.OpenRound, timers: dict[str, int], entry: str,
                         salts: str, now_ms: int) -> bool:
        for member, due in timers.items():
            await self._timers.arm(member, due)
        key = (spec.game_id, spec.round_id)
        if key in self.status:
            return False
        self.status[key] = "open"
        rid = spec.round_id
        self.rounds.setdefault(spec.game_id, {}).update({
            rid: spec.model_dump_json(), rid + "#salts": salts, rid + "#opened": str(now_ms)})
        self.records.setdefault(spec.game_id, []).append(loads(entry))
        return True

    def _ended(self, game_id: str) -> bool:
        return any(e.get("type") == "game_ended" for e in self.records.get(game_id, [])[-3:])

    def _done(self, game_id: str, round_id: str, slot: str) -> bool:
        return (slot in self.commits.get((game_id, round_id), {})
                or f"{round_id}#skip/{slot}" in self.rounds.get(game_id, {}))

    def _step(self, game_id: str, round_id: str, slot_keys: list[str]) -> Step:
        h = self.rounds.setdefault(game_id, {})
        n = len(self.commits.get((game_id, round_id), {})) + int(h.get(round_id + "#skipped", 0))
        if n < len(slot_keys):
            return Step("ok", n)
        self.status[(game_id, round_id)] = "closing"
        return Step("ok", n, self._inputs(game_id, round_id, slot_keys))

    def _inputs(self, game_id: str, round_id: str, slot_keys: list[str]) -> CloseInputs:
        opened = self.openings.get(game_id, {})
        return CloseInputs(
            {k: loads(opened[f"{round_id}/{k}"]) for k in slot_keys
             if f"{round_id}/{k}" in opened},
            dict(self.commits.get((game_id, round_id), {})),
            loads(self.rounds.get(game_id, {}).get(round_id + "#salts") or "{}"))

    async def record_commit(self, game_id: str, round_id: str, slot: str, commitment: str,
                            opening: str, previous: str, entry: str,
                            slot_keys: list[str]) -> Step:
        if self.status.get((game_id, round_id)) != "open" or self._ended(game_id):
            return Step("closed")
        if previous and not self._done(game_id, round_id, previous):
            return Step("order")
        if f"{round_id}#skip/{slot}" in self.rounds.get(game_id, {}):
            return Step("timed_out")
        commits = self.commits.setdefault((game_id, round_id), {})
        if slot in commits:
            return Step("dup")
        commits[slot] = commitment
        self.openings.setdefault(game_id, {})[f"{round_id}/{slot}"] = opening
        self.records.setdefault(game_id, []).append(loads(entry))
        return self._step(game_id, round_id, slot_keys)

    async def time_out_slot(self, game_id: str, round_id: str, slot: str, previous: str,
                            entry: str, slot_keys: list[str]) -> Step:
        if self.status.get((game_id, round_id)) != "open" or self._ended(game_id):
            return Step("closed")
        if slot in self.commits.get((game_id, round_id), {}):
            return Step("committed")
        if previous and not self._done(game_id, round_id, previous):
            return Step("order")
        h = self.rounds.setdefault(game_id, {})
        if f"{round_id}#skip/{slot}" in h:
            return Step("dup")
        h[f"{round_id}#skip/{slot}"] = "1"
        h[round_id + "#skipped"] = str(int(h.get(round_id + "#skipped", 0)) + 1)
        self.records.setdefault(game_id, []).append(loads(entry))
        return self._step(game_id, round_id, slot_keys)

    async def commitment(self, game_id: str, round_id: str, slot: str) -> str | None:
        return self.commits.get((game_id, round_id), {}).get(slot)

    async def commit_count(self, game_id: str, round_id: str) -> int:
        return len(self.commits.get((game_id, round_id), {}))

    async def begin_close(self, game_id: str, round_id: str) -> str:
        st = self.status.get((game_id, round_id), "")
        if st == "open":
            self.status[(game_id, round_id)] = st = "closing"
        return st

    async def close_inputs(self, game_id: str, round_id: str,
                           slot_keys: list[str]) -> CloseInputs:
        return self._inputs(game_id, round_id, slot_keys)

    async def close_round(self, game_id: str, round_id: str, closed: str, revealed: str,
                          reveal: str) -> tuple[bool, int | None]:
        await self._timers.drop(f"{game_id}|{round_id}")
        h = self.rounds.setdefault(game_id, {})
        raw = h.get(round_id + "#opened")
        opened = None if raw is None else int(raw)
        if self.status.get((game_id, round_id)) != "closing":
            return False, opened
        self.status[(game_id, round_id)] = "closed"
        h[round_id + "#reveal"] = reveal
        if not self._ended(game_id):
            self.records.setdefault(game_id, []).extend([loads(closed), loads(revealed)])
        return True, opened

    async def reveal_of(self, game_id: str, round_id: str) -> im.RoundRevealed | None:
        raw = self.rounds.get(game_id, {}).get(round_id + "#reveal")
        return None if raw is None else im.RoundRevealed.model_validate(loads(raw))

    async def arm_timer(self, member: str, due_ms: int, keep: bool = False) -> None:
        await self._timers.arm(member, due_ms, keep)

    async def extend_ttl(self, game_id: str, round_id: str, ttl_ms: int) -> None:
        self.ttl_ms[game_id] = max(self.ttl_ms.get(game_id, 0), ttl_ms)
