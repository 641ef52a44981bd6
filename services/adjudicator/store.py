"""The adjudicator's Redis adapter: the only module here that talks to Redis.

``commit`` is one Lua script: compare-and-set on the game's seq, then in the same atomic step
the new document, the private log entries, the public record entries, every seat's view
snapshot and the spectator's, and the command id (idempotency). All keys share the game's
hash tag, so this also works on a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.adjudicator.core import GameDoc
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads, text

COMMIT_LUA = """
local cur = redis.call('HGET', KEYS[1], 'seq')
local expected = ARGV[1]
if expected == '-1' then
  if cur then return {0, cur} end
elseif cur ~= expected then
  return {0, cur or '-1'}
end
if ARGV[4] ~= '' then
  if redis.call('HSETNX', KEYS[4], ARGV[4], ARGV[5]) == 0 then return {-1, cur} end
end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'doc', ARGV[3])
local n_log = tonumber(ARGV[6])
local n_rec = tonumber(ARGV[7])
local maxlen = ARGV[8]
local i = 9
for _ = 1, n_log do redis.call('XADD', KEYS[2], '*', 'd', ARGV[i]); i = i + 1 end
for _ = 1, n_rec do redis.call('XADD', KEYS[3], '*', 'd', ARGV[i]); i = i + 1 end
for k = 5, #KEYS do
  redis.call('XADD', KEYS[k], 'MAXLEN', '~', maxlen, '*', 'd', ARGV[i]); i = i + 1
end
return {1, ARGV[2]}
"""


@dataclass
class CommitResult:
    ok: bool
    duplicate: bool = False
    current_seq: int = -1


class Store:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._commit = redis.register_script(COMMIT_LUA)
        # the last document this process committed or loaded per game: a decision taken on
        # it is only committed if the stored seq still matches (the CAS), so it saves the
        # read and the validation, never correctness
        self._docs: dict[str, GameDoc] = {}

    def cached(self, game_id: str) -> GameDoc | None:
        return self._docs.get(game_id)

    def _remember(self, doc: GameDoc) -> None:
        if doc.stage == "ended":
            self._docs.pop(doc.game_id, None)
            return
        if len(self._docs) > 20_000:
            self._docs.clear()
        self._docs[doc.game_id] = doc

    async def load(self, game_id: str) -> GameDoc | None:
        raw = await self.redis.hget(Keys(game_id).state, "doc")
        if raw is None:
            return None
        doc = GameDoc.model_validate(loads(raw))
        self._remember(doc)
        return doc

    async def command_result(self, game_id: str, cmd_id: str) -> Any:
        raw = await self.redis.hget(Keys(game_id).cmds, cmd_id)
        return None if raw is None else loads(raw)

    async def remember_rejection(self, game_id: str, cmd_id: str, code: str) -> bool:
        """Record a rejected command id; False if the id was already known (a replay)."""
        return bool(await self.redis.hsetnx(Keys(game_id).cmds, cmd_id,
                                            dumps({"rejected": code})))

    async def commit(self, expected_seq: int, doc: GameDoc, log: list[dict[str, Any]],
                     records: list[dict[str, Any]], views: dict[int | None, dict[str, Any]],
                     cmd_id: str = "") -> CommitResult:
        k = Keys(doc.game_id)
        seats = sorted(s for s in views if s is not None)
        keys = [k.state, k.log, k.record, k.cmds, k.spectator, *[k.view(s) for s in seats]]
        argv: list[Any] = [str(expected_seq), str(doc.seq), doc.model_dump_json(), cmd_id,
                           dumps({"seq": doc.seq}), len(log), len(records),
                           streams.MAXLEN_VIEW]
        argv += [dumps(e) for e in log]
        argv += [dumps(e) for e in records]
        argv += [dumps(views[None]), *[dumps(views[s]) for s in seats]]
        res = await self._commit(keys=keys, args=argv)
        status = int(res[0])
        cur = int(res[1]) if res[1] is not None else -1
        if status == 1:
            self._remember(doc)
        else:
            self._docs.pop(doc.game_id, None)
        return CommitResult(ok=status == 1, duplicate=status == -1, current_seq=cur)

    async def arm_timer(self, game_id: str, seq: int, due_ms: int) -> None:
        await self.redis.zadd(streams.TIMERS_ADJ, {f"{game_id}|{seq}": due_ms})

    async def due_timers(self, now_ms: int, limit: int = 100) -> list[str]:
        raw = await self.redis.zrangebyscore(streams.TIMERS_ADJ, "-inf", now_ms, start=0,
                                             num=limit)
        return [text(m) for m in raw]

    async def lease(self, name: str, ms: int) -> bool:
        return bool(await self.redis.set(f"lease:{name}", "1", nx=True, px=ms))

    async def drop_timer(self, member: str) -> None:
        await self.redis.zrem(streams.TIMERS_ADJ, member)
