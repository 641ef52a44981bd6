"""The escrow's store: every Redis call and Lua script of the escrow (``EscrowStore``, the
adapter of services/escrow/ports.py ``EscrowStorePort``). Every multi-key step is one Lua script
on one game's keys (one hash tag ``esc:{game}``, plus the game's record ``g:{game}:rec``), so
each is atomic, on a cluster too. Openings live only under ``esc:{game}:*`` keys, which only the
escrow's Redis user may read (deploy/valkey/users.acl.template). The shell that calls it is
services/escrow/service.py; tests/support/fakes ``FakeEscrowStore`` answers the same
(tests/integration/test_store_contracts.py).
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import NoScriptError

from services.escrow import core
from services.escrow.ports import CloseInputs, Step
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads, text
from shared.runtime.redis import Client
from shared.runtime.settings import Settings
from shared.runtime.tail import TAIL_LUA, Tail, tail_args
from shared.runtime.timers import Timers

# A game can end with a round still open (its lifetime ran out): after the record's
# game_ended nothing more of the escrow's goes into the record (a commit is refused as
# closed, a close writes nothing public), so the record ends with the game.
ENDED_LUA = """
local function ended(rec)
  for _, e in ipairs(redis.call('XREVRANGE', rec, '+', '-', 'COUNT', 3)) do
    local f = e[2]
    for i = 1, #f, 2 do
      if f[i] == 'd' and string.find(f[i + 1], '"type":"game_ended"', 1, true) then
        return true
      end
    end
  end
  return false
end
"""

# A game's escrow keys expire on their own (no TTL shorter than what a round needs: only
# extended): at an open to the round's deadline + the live TTL, at a close to the live TTL
# (its openings are public in the record by then). The open and close scripts extend them in
# the same step (one command fewer a round trip each); ``ms`` 0 extends nothing; missing keys
# are skipped.
EXTEND_LUA = """
local function extend(keys, ms)
  ms = tonumber(ms)
  if ms <= 0 then return end
  for _, key in ipairs(keys) do
    local t = redis.call('PTTL', key)
    if t == -1 or (t >= 0 and t < ms) then redis.call('PEXPIRE', key, ms) end
  end
end
"""

# A round the adjudicator asked for just before the game ended can arrive after it: it is not
# opened (nothing of it goes into the record after game_ended), like a commit or a close.
# KEYS[4], KEYS[5] the game's openings and the round's commitments, whose lifetime (with the
# status and the round hash) ARGV[6] ms extends.
OPEN_LUA = ENDED_LUA + EXTEND_LUA + TAIL_LUA + """
if ended(KEYS[3]) then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], 'open') == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2], ARGV[1] .. '#salts', ARGV[4],
           ARGV[1] .. '#opened', ARGV[5])
redis.call('XADD', KEYS[3], '*', 'd', ARGV[3])
extend({KEYS[1], KEYS[2], KEYS[4], KEYS[5]}, ARGV[6])
tail(7)
return 1
"""

# A slot is done when it committed (its field in the commitments hash) or, in a fixed-order
# round with a time per slot, timed out (P-S1: the round hash's '<round>#skip/<slot>' field,
# counted in '<round>#skipped'); the next slot of the order may commit once the previous is done.
DONE_LUA = """
local function done(commits, round, rid, slot)
  return redis.call('HEXISTS', commits, slot) == 1
      or redis.call('HEXISTS', round, rid .. '#skip/' .. slot) == 1
end
local function finished(commits, round, rid)
  return redis.call('HLEN', commits) + tonumber(redis.call('HGET', round, rid .. '#skipped') or 0)
end
-- the last slot is done (KEYS and ARGV[1] as COMMIT_LUA's): the round moves to 'closing' and
-- what the close needs is read in the same step: the openings (the ``count`` slot keys from
-- ARGV[first]), the commitments and the salts
local function closing(n, first, count)
  redis.call('HSET', KEYS[1], ARGV[1], 'closing')
  local fields = {}
  for i = first, first + count - 1 do fields[#fields + 1] = ARGV[1] .. '/' .. ARGV[i] end
  return {'ok', n, 'closing', redis.call('HMGET', KEYS[3], unpack(fields)),
          redis.call('HGETALL', KEYS[2]), redis.call('HGET', KEYS[5], ARGV[1] .. '#salts')}
end
"""

# ARGV[8 + slots..]: the shell's tail (shared/runtime/tail.py) when the commit is not the
# last slot's.
COMMIT_LUA = ENDED_LUA + DONE_LUA + TAIL_LUA + """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'open' then return {'closed', 0} end
if ended(KEYS[4]) then return {'closed', 0} end
if ARGV[5] ~= '' and not done(KEYS[2], KEYS[5], ARGV[1], ARGV[5]) then return {'order', 0} end
if redis.call('HEXISTS', KEYS[5], ARGV[1] .. '#skip/' .. ARGV[2]) == 1 then
  return {'timed_out', 0}
end
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 0 then return {'dup', 0} end
redis.call('HSET', KEYS[3], ARGV[1] .. '/' .. ARGV[2], ARGV[4])
redis.call('XADD', KEYS[4], '*', 'd', ARGV[6])
local n = finished(KEYS[2], KEYS[5], ARGV[1])
if ARGV[7] then
  local slots = tonumber(ARGV[7])
  if n >= slots then return closing(n, 8, slots) end
  tail(8 + slots)
end
return {'ok', n}
"""

# P-S1: a fixed-order round's slot whose own time passed. KEYS as COMMIT_LUA's; ARGV[1] round,
# ARGV[2] slot, ARGV[3] the previous slot ('' for the first), ARGV[4] the public entry,
# ARGV[5] the number of slots, ARGV[6..] the slot keys. The same 'closing' step as a commit's
# when it was the last slot.
SKIP_LUA = ENDED_LUA + DONE_LUA + """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'open' then return {'closed', 0} end
if ended(KEYS[4]) then return {'closed', 0} end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return {'committed', 0} end
if ARGV[3] ~= '' and not done(KEYS[2], KEYS[5], ARGV[1], ARGV[3]) then return {'order', 0} end
if redis.call('HSETNX', KEYS[5], ARGV[1] .. '#skip/' .. ARGV[2], '1') == 0 then
  return {'dup', 0}
end
redis.call('HINCRBY', KEYS[5], ARGV[1] .. '#skipped', 1)
redis.call('XADD', KEYS[4], '*', 'd', ARGV[4])
local n = finished(KEYS[2], KEYS[5], ARGV[1])
if n >= tonumber(ARGV[5]) then return closing(n, 6, tonumber(ARGV[5])) end
return {'ok', n}
"""

# two-phase close: 'open' -> 'closing' stops commits; the reveal is built from the now-stable
# openings; 'closing' -> 'closed' writes both records atomically. A crash in between resumes.
# The commit script takes the first step itself when the last slot commits (ARGV[7] = slots).
CLOSING_LUA = """
local st = redis.call('HGET', KEYS[1], ARGV[1])
if st == 'open' then redis.call('HSET', KEYS[1], ARGV[1], 'closing'); return 'closing' end
return st or ''
"""

# KEYS[4], KEYS[5] the game's openings and the round's commitments, whose lifetime (with the
# status and the round hash) ARGV[6] ms extends. KEYS[6] (the deadline timers of the game's
# partition, shared/runtime/timers.py) only on a single server: in a cluster it lives in
# another slot and is removed by a separate command
# ARGV[7..]: the shell's tail (shared/runtime/tail.py), whether this step closed the round or
# it was closed already (the reveal is sent again).
CLOSE_LUA = ENDED_LUA + EXTEND_LUA + TAIL_LUA + """
if KEYS[6] then redis.call('ZREM', KEYS[6], ARGV[5]) end
local opened = redis.call('HGET', KEYS[2], ARGV[1] .. '#opened')
if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'closing' then
  tail(7)
  return {0, opened}
end
redis.call('HSET', KEYS[1], ARGV[1], 'closed')
redis.call('HSET', KEYS[2], ARGV[1] .. '#reveal', ARGV[4])
extend({KEYS[1], KEYS[2], KEYS[4], KEYS[5]}, ARGV[6])
if not ended(KEYS[3]) then
  redis.call('XADD', KEYS[3], '*', 'd', ARGV[2])
  redis.call('XADD', KEYS[3], '*', 'd', ARGV[3])
end
tail(7)
return {1, opened}
"""



def _close_inputs(slot_keys: list[str], raw_o: list[Any], raw_c: list[Any],
                  raw_s: Any) -> CloseInputs:
    openings = {key: loads(raw) for key, raw in zip(slot_keys, raw_o, strict=True)
                if raw is not None}
    commits = {text(raw_c[i]): text(raw_c[i + 1]) for i in range(0, len(raw_c), 2)}
    return CloseInputs(openings, commits, loads(raw_s or "{}"))


def _step(res: list[Any], slot_keys: list[str]) -> Step:
    status, done = text(res[0]), int(res[1])
    if len(res) > 3:
        return Step(status, done, _close_inputs(slot_keys, res[3], res[4], res[5]))
    return Step(status, done)


class EscrowStore:
    """The escrow's keys on one Redis client (``for_settings`` applies the settings)."""

    def __init__(self, redis: Client, partitions: int = 1, cluster: bool = False) -> None:
        self.redis = redis
        self.cluster = cluster  # a cluster pipeline refuses EVALSHA; the timer key elsewhere
        # a tail's streams live in other slots than the game's keys: only a single server lets
        # a script write them
        self.inline = not cluster
        self.timers = Timers(redis, streams.TIMERS_ESC, partitions)
        self._open = redis.register_script(OPEN_LUA)
        self._commit = redis.register_script(COMMIT_LUA)
        self._skip = redis.register_script(SKIP_LUA)
        self._closing = redis.register_script(CLOSING_LUA)
        self._close = redis.register_script(CLOSE_LUA)

    @classmethod
    def for_settings(cls, redis: Client, settings: Settings) -> EscrowStore:
        return cls(redis, partitions=settings.partitions, cluster=settings.cluster)

    async def seal_key(self, candidate: str) -> str:
        """The escrow's one X25519 private key (esc:keys): ``candidate`` if none is kept yet,
        else the kept one (the first replica to start makes it, every replica shares it)."""
        await self.redis.hsetnx(streams.ESC_KEYS, "x25519", candidate)
        return text(await self.redis.hget(streams.ESC_KEYS, "x25519"))

    async def round_spec(self, game_id: str, round_id: str) -> im.OpenRound | None:
        """The round's spec, with any seat handed over while it was open (one read)."""
        fields = [round_id, *(core.handed_field(round_id, i) for i in range(core.MAX_SEATS))]
        raw, *handed = await self.redis.hmget(Keys(game_id).esc_round, fields)
        if raw is None:
            return None
        # the JSON read once by the model's own parser: the same checks without a dict between
        spec = im.OpenRound.model_validate_json(raw)
        return core.with_handed(spec, {i: text(p) for i, p in enumerate(handed) if p})

    async def hand_over_slot(self, game_id: str, round_id: str, seat: int,
                             player_id: str) -> None:
        """The seat's slots of an open round are ``player_id``'s from now on (one field per
        seat: two hand-overs in one round never overwrite each other)."""
        await self.redis.hset(Keys(game_id).esc_round, core.handed_field(round_id, seat),
                              player_id)

    async def open_round(self, spec: im.OpenRound, timers: dict[str, int], entry: str,
                         salts: str, now_ms: int, ttl_ms: int = 0,
                         tail: Tail | None = None) -> bool:
        """Arm the round's timers (``member -> due ms``), then open it: its spec, salts and
        open time kept, its ``round_opened`` ``entry`` recorded and the game's escrow keys
        kept at least ``ttl_ms`` from now, unless it was opened already or the game has ended
        (False). The timers first: a timer without its round is dropped by the loop."""
        k = Keys(spec.game_id)
        keys = [k.esc_status, k.esc_round, k.record, k.esc_open, k.esc_commits(spec.round_id)]
        args: list[Any] = [spec.round_id, spec.model_dump_json(), entry, salts, now_ms,
                           ttl_ms, *tail_args(tail if self.inline else None)]
        if self.cluster:
            await self.timers.arm_many(spec.game_id, timers)
            return bool(await self._open(keys=keys, args=args))
        async with self.redis.pipeline(transaction=False) as pipe:  # one round trip
            pipe.zadd(self.timers.key(spec.game_id), timers)
            pipe.evalsha(self._open.sha, len(keys), *keys, *args)
            _, created = await pipe.execute(raise_on_error=False)
        if isinstance(created, NoScriptError):  # Valkey restarted: load it and run
            return bool(await self._open(keys=keys, args=args))
        if isinstance(created, Exception):
            raise created
        return bool(created)

    def _round_keys(self, game_id: str, round_id: str) -> list[str]:
        k = Keys(game_id)
        return [k.esc_status, k.esc_commits(round_id), k.esc_open, k.record, k.esc_round]

    async def record_commit(self, game_id: str, round_id: str, slot: str, commitment: str,
                            opening: str, previous: str, entry: str,
                            slot_keys: list[str], tail: Tail | None = None) -> Step:
        """Keep a slot's commitment and its (secret) ``opening``, record its ``committed``
        entry; refused when the round is not open or the game ended (closed), ``previous``
        (the slot before it in a fixed order, '' if none) is not done (order), the slot timed
        out (timed_out) or committed already (dup)."""
        res = await self._commit(
            keys=self._round_keys(game_id, round_id),
            args=[round_id, slot, commitment, opening, previous, entry, len(slot_keys),
                  *slot_keys, *tail_args(tail if self.inline else None)])
        return _step(res, slot_keys)

    async def time_out_slot(self, game_id: str, round_id: str, slot: str, previous: str,
                            entry: str, slot_keys: list[str]) -> Step:
        """P-S1: the slot's own time ran out: its ``slot_timed_out`` entry recorded; refused
        when closed, committed, not its turn (order) or timed out already (dup)."""
        res = await self._skip(
            keys=self._round_keys(game_id, round_id),
            args=[round_id, slot, previous, entry, len(slot_keys), *slot_keys])
        return _step(res, slot_keys)

    async def commitment(self, game_id: str, round_id: str, slot: str) -> str | None:
        raw = await self.redis.hget(Keys(game_id).esc_commits(round_id), slot)
        return None if raw is None else text(raw)

    async def slot_done(self, game_id: str, round_id: str, slot: str) -> bool:
        """The slot is committed or (P-S1) its own time ran out."""
        k = Keys(game_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hexists(k.esc_commits(round_id), slot)
            pipe.hexists(k.esc_round, f"{round_id}#skip/{slot}")
            committed, skipped = await pipe.execute()
        return bool(committed) or bool(skipped)

    async def commit_count(self, game_id: str, round_id: str) -> int:
        return int(await self.redis.hlen(Keys(game_id).esc_commits(round_id)))

    async def begin_close(self, game_id: str, round_id: str) -> str:
        """'open' -> 'closing' (commits stop); the status after ('' for no such round)."""
        return text(await self._closing(keys=[Keys(game_id).esc_status], args=[round_id]))

    async def close_inputs(self, game_id: str, round_id: str,
                           slot_keys: list[str]) -> CloseInputs:
        """What a close resumed outside the commit script reads (the same as the script's)."""
        k = Keys(game_id)
        prefix = round_id + "/"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(k.esc_open, [prefix + s for s in slot_keys])
            pipe.hgetall(k.esc_commits(round_id))
            pipe.hget(k.esc_round, round_id + "#salts")
            raw_o, raw_c, raw_s = await pipe.execute()
        flat = [x for kv in raw_c.items() for x in kv]
        return _close_inputs(slot_keys, raw_o, flat, raw_s)

    async def close_round(self, game_id: str, round_id: str, closed: str, revealed: str,
                          reveal: str, ttl_ms: int = 0,
                          tail: Tail | None = None) -> tuple[bool, int | None]:
        """'closing' -> 'closed': the reveal kept, the ``closed`` and ``revealed`` entries
        recorded (none once the game ended), the game's escrow keys kept at least ``ttl_ms``
        from now and the round's deadline timer dropped. (True if this call closed it, the
        round's open time in ms)."""
        k = Keys(game_id)
        member = f"{game_id}|{round_id}"
        keys = [k.esc_status, k.esc_round, k.record, k.esc_open, k.esc_commits(round_id)]
        if not self.cluster:  # in a cluster the timer key lives in another slot
            keys.append(self.timers.key(game_id))
        res = await self._close(keys=keys,
                                args=[round_id, closed, revealed, reveal, member, ttl_ms,
                                      *tail_args(tail if self.inline else None)])
        if self.cluster:
            await self.timers.drop(member)
        opened = res[1] if len(res) > 1 else None  # (a nil ends a Lua reply's array)
        return bool(res[0]), None if opened is None else int(opened)

    async def reveal_of(self, game_id: str, round_id: str) -> im.RoundRevealed | None:
        raw = await self.redis.hget(Keys(game_id).esc_round, round_id + "#reveal")
        return None if raw is None else im.RoundRevealed.model_validate_json(raw)

    async def arm_timer(self, member: str, due_ms: int, keep: bool = False) -> None:
        await self.timers.arm(member, due_ms, keep=keep)
