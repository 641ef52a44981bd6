"""In-memory adapters for the ports of shared/runtime/ports.py: the same answers as the Redis
stores (services/*/store.py) for what the services ask, held in dicts. The store contract
tests (tests/integration/test_store_contracts.py) run the same checks against both, so a fake
that drifts from its store fails there."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

from services.adjudicator.core import GameDoc
from services.adjudicator.store import CommitResult
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.ports import Decide


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
        seen[cmd_id] = len(seen)
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
