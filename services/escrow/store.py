"""The escrow's Redis scripts: every multi-key step is one Lua script on one game's keys
(one hash tag ``esc:{game}``, plus the game's record ``g:{game}:rec``), so each is atomic, on a
cluster too. Openings live only under ``esc:{game}:*`` keys, which only the escrow's Redis user
may read (deploy/valkey/users.acl.template). The shell that runs them is
services/escrow/service.py.
"""

from __future__ import annotations

OPEN_LUA = """
if redis.call('HSETNX', KEYS[1], ARGV[1], 'open') == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2], ARGV[1] .. '#salts', ARGV[4],
           ARGV[1] .. '#opened', ARGV[5])
redis.call('XADD', KEYS[3], '*', 'd', ARGV[3])
return 1
"""

# A game can end with a round still open (its lifetime, issue 28): after the record's
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
-- what the close needs is read in the same step: the openings (slot keys in ARGV[first..]),
-- the commitments and the salts
local function closing(n, first)
  redis.call('HSET', KEYS[1], ARGV[1], 'closing')
  local fields = {}
  for i = first, #ARGV do fields[#fields + 1] = ARGV[1] .. '/' .. ARGV[i] end
  return {'ok', n, 'closing', redis.call('HMGET', KEYS[3], unpack(fields)),
          redis.call('HGETALL', KEYS[2]), redis.call('HGET', KEYS[5], ARGV[1] .. '#salts')}
end
"""

COMMIT_LUA = ENDED_LUA + DONE_LUA + """
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
if ARGV[7] and n >= tonumber(ARGV[7]) then return closing(n, 8) end
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
if n >= tonumber(ARGV[5]) then return closing(n, 6) end
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

# KEYS[4] (the deadline timers of the game's partition, shared/runtime/timers.py) only on a
# single server: in a cluster it lives in another slot and is removed by a separate command
CLOSE_LUA = ENDED_LUA + """
if KEYS[4] then redis.call('ZREM', KEYS[4], ARGV[5]) end
local opened = redis.call('HGET', KEYS[2], ARGV[1] .. '#opened')
if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'closing' then return {0, opened} end
redis.call('HSET', KEYS[1], ARGV[1], 'closed')
redis.call('HSET', KEYS[2], ARGV[1] .. '#reveal', ARGV[4])
if ended(KEYS[3]) then return {1, opened} end
redis.call('XADD', KEYS[3], '*', 'd', ARGV[2])
redis.call('XADD', KEYS[3], '*', 'd', ARGV[3])
return {1, opened}
"""


# A game's escrow keys expire on their own (no TTL shorter than what a round needs: only
# extended): at an open to the round's deadline + the live TTL, at a close to the live TTL
# (its openings are public in the record by then). ARGV[1] ms; missing keys are skipped.
EXTEND_TTL_LUA = """
for _, key in ipairs(KEYS) do
  local t = redis.call('PTTL', key)
  if t == -1 or (t >= 0 and t < tonumber(ARGV[1])) then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 1
"""
