"""The adjudicator's Redis adapter: the only module here that talks to Redis.

``commit`` is one Lua script: compare-and-set on the game's seq, then in the same atomic step
the new document, the private log entries, the public record entries, every seat's view
snapshot and the spectator's, and the command id (idempotency). A view entry written with
record entries carries, beside its ``d``, the id of the last of them (``r``): the gateway
sends a protocol version 3 watch that view and the record entries up to ``r`` in one frame
(services/gateway/fanout/hub.py). All keys share the game's hash tag, so this also works on a
cluster. When the new document's stage is ``ended`` the same
step copies the private log ``g:{id}:log`` to its public copy ``g:{id}:publog``: the only copy
of the log the gateway's Redis user can read (deploy/valkey/users.acl.template), so the log
becomes public exactly when the spectator view first says "ended".

The same step appends the game's ``TurnsChanged`` (who it waits for, services/adjudicator/
turns.py) to the ``turns`` stream, in faststream's wire format, so a reader never sees a turn
the state does not hold nor misses one it does. On a cluster that stream lives in another slot
than the game: there it is appended right after the commit, and a redelivered input that
finds nothing to do appends it again (``resend_turns``; readers keep the highest seq).

Command ids belong to one (game, seat): an applied one is the field ``<seat>|<cmd_id>`` of
``g:{id}:cmds`` (kept while the game's keys live), a refused one a member of the seat's
``g:{id}:rej:<seat>`` (a sorted set by time: at most ``refusals_kept`` of the latest, each for
``refusals_ttl_s``). So a seat cannot burn another seat's ids, and a flood of refused
commands leaves a bounded trace.
"""

from __future__ import annotations

import time
from typing import Any, cast

from cachetools import LRUCache
from redis.asyncio.cluster import RedisCluster

from services.adjudicator.core import GameDoc
from services.adjudicator.ports import CommitResult
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.protocol.turns import TURNS, TurnsChanged
from shared.runtime import outbox
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.redis import Client
from shared.runtime.tail import TAIL_LUA, Tail, tail_args
from shared.runtime.timers import Timers

COMMIT_LUA = TAIL_LUA + """
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
local i = 12
for _ = 1, n_log do redis.call('XADD', KEYS[2], '*', 'd', ARGV[i]); i = i + 1 end
local rec = nil
for _ = 1, n_rec do rec = redis.call('XADD', KEYS[3], '*', 'd', ARGV[i]); i = i + 1 end
local n_views = #KEYS - tonumber(ARGV[10])
for k = 6, n_views do
  if rec then
    redis.call('XADD', KEYS[k], 'MAXLEN', '~', maxlen, '*', 'd', ARGV[i], 'r', rec)
  else
    redis.call('XADD', KEYS[k], 'MAXLEN', '~', maxlen, '*', 'd', ARGV[i])
  end
  i = i + 1
end
if ARGV[9] == '1' then redis.call('COPY', KEYS[2], KEYS[5], 'REPLACE') end
if ARGV[10] == '1' then  -- who the game waits for: the turns stream (last key)
  redis.call('XADD', KEYS[#KEYS], 'MAXLEN', '~', ARGV[11], '*', '__data__', ARGV[i])
  i = i + 1
end
tail(i)  -- the shell's publishes and the consumed entry's XACK (shared/runtime/tail.py)
return {1, ARGV[2]}
"""


# KEYS[1] the seat's refusals; ARGV: cmd id, now ms, how many to keep, ttl ms.
# 1 = remembered now, 0 = already known (a replay)
REJECT_LUA = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[4]))
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


def turns_entry(turns: TurnsChanged) -> bytes:
    """A ``TurnsChanged`` as a faststream subscriber reads it (shared/runtime/outbox.py)."""
    return outbox.encode(turns.model_dump(mode="json"), f"turns-{turns.game_id}-{turns.seq}")


def cmd_field(seat: int, cmd_id: str) -> str:
    """The field of an applied command id in ``g:{id}:cmds``: ids are per (game, seat)."""
    return f"{seat}|{cmd_id}"


class Store:
    def __init__(self, redis: Client, refusals_kept: int = 256,
                 refusals_ttl_ms: int = 24 * 3600 * 1000, partitions: int = 1) -> None:
        self.redis = redis
        # a cluster keeps the turns stream in another slot than the game's keys
        self.cluster = isinstance(redis, RedisCluster)
        self.inline = not self.cluster  # a tail's streams: another slot (tail.py)
        self.timers = Timers(redis, streams.TIMERS_ADJ, partitions)
        self.refusals_kept = refusals_kept
        self.refusals_ttl_ms = refusals_ttl_ms
        self._commit = redis.register_script(COMMIT_LUA)
        self._reject = redis.register_script(REJECT_LUA)
        # the last document this process committed or loaded per game: a decision taken on
        # it is only committed if the stored seq still matches (the CAS), so it saves the
        # read and the validation, never correctness
        self._docs: LRUCache[str, GameDoc] = LRUCache(maxsize=20_000)  # least recent out

    def cached(self, game_id: str) -> GameDoc | None:
        return self._docs.get(game_id)

    def _remember(self, doc: GameDoc) -> None:
        if doc.stage == "ended":
            self._docs.pop(doc.game_id, None)
            return
        self._docs[doc.game_id] = doc

    async def load(self, game_id: str) -> GameDoc | None:
        raw = await self.redis.hget(Keys(game_id).state, "doc")
        if raw is None:
            return None
        doc = GameDoc.model_validate_json(raw)  # one parse and check, no dict between
        self._remember(doc)
        return doc

    async def command_known(self, game_id: str, seat: int, cmd_id: str) -> bool:
        """Whether this seat's command id was applied or refused already (a field without a
        seat is from before ids were per seat: it counts for every seat)."""
        k = Keys(game_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hexists(k.cmds, cmd_field(seat, cmd_id))
            pipe.zscore(k.refusals(seat), cmd_id)
            pipe.hexists(k.cmds, cmd_id)
            applied, refused, legacy = await pipe.execute()
        return bool(applied) or refused is not None or bool(legacy)

    async def remember_rejection(self, game_id: str, seat: int, cmd_id: str) -> bool:
        """Record a refused command id of a seat; False if the id was already known (a
        replay). The seat keeps its latest ``refusals_kept`` for ``refusals_ttl_ms``."""
        return bool(await self._reject(keys=[Keys(game_id).refusals(seat)],
                                       args=[cmd_id, int(time.time() * 1000),
                                             self.refusals_kept, self.refusals_ttl_ms]))

    async def commit(self, expected_seq: int, doc: GameDoc, log: list[dict[str, Any]],
                     records: list[dict[str, Any]], views: dict[int | None, dict[str, Any]],
                     cmd_id: str = "", seat: int | None = None,
                     turns: TurnsChanged | None = None, tail: Tail | None = None
                     ) -> CommitResult:
        """``cmd_id`` (with the acting ``seat``): applied at most once per (game, seat).
        ``turns``: appended to the turns stream in the same step (on a cluster: right after).
        ``tail``: applied in the same step when ``inline`` (a single server), else ignored."""
        k = Keys(doc.game_id)
        if cmd_id:
            cmd_id = cmd_field(seat if seat is not None else -1, cmd_id)
        seats = sorted(s for s in views if s is not None)
        inline = turns is not None and not self.cluster
        keys = [k.state, k.log, k.record, k.cmds, k.publog, k.spectator,
                *[k.view(s) for s in seats], *([TURNS] if inline else [])]
        argv: list[Any] = [str(expected_seq), str(doc.seq), doc.model_dump_json(), cmd_id,
                           dumps({"seq": doc.seq}), len(log), len(records),
                           streams.MAXLEN_VIEW, "1" if doc.stage == "ended" else "0",
                           "1" if inline else "0", streams.maxlen(TURNS)]
        argv += [dumps(e) for e in log]
        argv += [dumps(e) for e in records]
        argv += [dumps(views[None]), *[dumps(views[s]) for s in seats]]
        if inline and turns is not None:
            argv.append(turns_entry(turns))
        if self.inline:
            argv += tail_args(tail)
        res = await self._commit(keys=keys, args=argv)
        status = int(res[0])
        cur = int(res[1]) if res[1] is not None else -1
        if status == 1 and turns is not None and self.cluster:
            await self._append_turns(turns)
        if status == 1:
            self._remember(doc)
        else:
            self._docs.pop(doc.game_id, None)
        return CommitResult(ok=status == 1, duplicate=status == -1, current_seq=cur)

    async def _append_turns(self, turns: TurnsChanged) -> None:
        await self.redis.xadd(TURNS, {"__data__": turns_entry(turns)},
                              maxlen=streams.maxlen(TURNS), approximate=True)

    async def resend_turns(self, turns: TurnsChanged) -> None:
        """Append the game's current ``TurnsChanged`` again where the commit could not (a
        cluster); on one server the commit appended it in its own step: nothing to do."""
        if self.cluster:
            await self._append_turns(turns)

    async def arm_timer(self, game_id: str, seq: int | str, due_ms: int,
                        keep: bool = False) -> None:
        """A durable timer: ``seq`` a turn's seq, or ``expire`` / ``archive``. ``keep``: an
        armed timer keeps its due time (re-arming after a crash never postpones it)."""
        await self.timers.arm(f"{game_id}|{seq}", due_ms, keep)

    async def game_for_archive(self, game_id: str, seats: int
                               ) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]],
                                          Any, Any]:
        """(meta, record entries with their ids, log entries, result, the spectator's last
        view payload) of a game, for its archive."""
        k = Keys(game_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(k.meta)
            pipe.get(k.result)
            pipe.xrevrange(k.spectator, count=1)
            meta, result, last = await pipe.execute()
        record = [{"id": text(i), **loads(f[b"d"])} for i, f in await self._all(k.record)]
        log = [loads(f[b"d"]) for _, f in await self._all(k.log)]
        view = loads(last[0][1][b"d"]) if last else None
        return (loads(meta) if meta else None, record, log,
                loads(result) if result else None, view)

    async def _all(self, key: str) -> list[Any]:
        out: list[Any] = []
        last = "-"
        while True:
            batch = cast(list[Any], await self.redis.xrange(key, min=last, count=1000))
            out += batch
            if len(batch) < 1000:
                return out
            last = "(" + text(batch[-1][0])

    async def chat_for_archive(self, game_id: str, table_id: str | None
                               ) -> dict[str, list[dict[str, Any]]]:
        """The game's chat channels (and its table's), each message ``{id, player_id, name,
        text, ts}``, for the archive: never part of the record or the audit bundle."""
        k = Keys(game_id)
        keys = {"seats": k.chat("seats"), "spectators": k.chat("spectators")}
        if table_id:
            keys["table"] = streams.table_chat(table_id)
        out: dict[str, list[dict[str, Any]]] = {}
        for channel, key in keys.items():
            out[channel] = [{"id": text(i), **loads(f[b"d"])} for i, f in await self._all(key)]
        return out

    async def expire_live(self, game_id: str, seats: int, ttl_ms: int) -> None:
        """Every live key of the game expires in ``ttl_ms`` (its archive serves it then)."""
        k = Keys(game_id)
        keys = [k.state, k.log, k.publog, k.record, k.cmds, k.spectator, k.meta, k.result,
                k.chat("seats"), k.chat("spectators"), k.chat_ids,
                *(k.view(s) for s in range(seats)), *(k.refusals(s) for s in range(seats))]
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.pexpire(key, ttl_ms)
            await pipe.execute()
        self._docs.pop(game_id, None)

    async def drop_timer(self, member: str) -> None:
        await self.timers.drop(member)
