"""services/adjudicator/ports.py ``AdjudicatorStorePort`` in memory."""

from __future__ import annotations

import copy
import itertools
from typing import Any

from services.adjudicator.core import GameDoc
from services.adjudicator.ports import CommitResult
from shared.protocol.turns import TurnsChanged
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.tail import Tail
from tests.support.fakes.common import FakeTimers


class FakeAdjudicatorStore:
    """services/adjudicator/store.py: one document per game under a compare-and-set on its
    seq, the command ids applied per (game, seat) and the refused ones per seat, the streams
    (log, record, views) as lists."""

    inline = False  # no tail applied: the shell publishes, the bus acknowledges

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
        self.turns: list[dict[str, Any]] = []  # the turns stream's entries, in order
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
                     cmd_id: str = "", seat: int | None = None,
                     turns: TurnsChanged | None = None, tail: Tail | None = None
                     ) -> CommitResult:
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
        if turns is not None:  # the turns stream, in the commit's step
            self.turns.append(turns.model_dump(mode="json"))
        self._remember(doc)
        return CommitResult(ok=True, current_seq=doc.seq)

    async def resend_turns(self, turns: TurnsChanged) -> None:
        """One server: the commit appended it already (the Redis store's non-cluster case)."""

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
