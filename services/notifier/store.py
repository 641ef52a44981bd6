"""The notifier's keys in Valkey, all under ``notify:`` (its ACL user may touch nothing else but
the TURNS stream it reads):

* ``notify:{<player>}:prefs`` hash: ``email``, ``verified`` (the address confirmed, if any),
  ``email_turns`` (1/0), ``hook_url``, ``hook_secret``, ``name``.
* ``notify:{<player>}:sent:<game>:<since>:<kind>:<channel>`` the sent-marker of one message:
  ``sending:<tries>:<lease end ms>`` while being sent, then ``sent``, ``capped`` or ``failed``.
* ``notify:{<player>}:cap:<day>`` the player's mails counted that UTC day.
* ``notify:verify:<token>`` JSON ``{player, email}`` of a verification link, until used.
* ``notify:game:<game>`` JSON ``{seq, game, round_id, waits}``: the waits the latest
  TurnsChanged named, less the seats its sealed round's SeatCommitted entries took off.
* ``notify:sealed:<game>:<round>`` hash: the seats that committed in that sealed round.
* ``notify:due:{due/<p>}`` the due-queue (shared/runtime/timers.py), one per partition.
* ``notify:key`` the key that signs unsubscribe links (made once, by whichever replica is first).
* ``notify:rpc`` the gateway's requests (services/notifier/service.py answers them).

A player's keys share one hash tag, so the claim (marker and daily count together) is one Lua
step on a cluster too.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from shared.protocol import streams
from shared.runtime.jsonutil import text
from shared.runtime.redis import Client
from shared.runtime.timers import Timers, game_of

PREFIX = "notify:"
DUE = "notify:due"
KEY = "notify:key"
RPC = streams.NOTIFY_RPC
MARKER_TTL_S = 40 * 86400  # longer than any wait (14 days a move, plus a reminder)
GAME_TTL_S = 30 * 86400  # an abandoned game's record goes; its timers find no wait
ENDED_TTL_S = 86400  # an ended game's tombstone: late, older entries stay ignored


def prefs_key(player: str) -> str:
    return f"notify:{{{player}}}:prefs"


def marker_key(player: str, marker: str) -> str:
    return f"notify:{{{player}}}:sent:{marker}"


def cap_key(player: str, day: str) -> str:
    return f"notify:{{{player}}}:cap:{day}"


def verify_key(token: str) -> str:
    return f"notify:verify:{token}"


def game_key(game_id: str) -> str:
    return f"notify:game:{game_id}"


# KEYS[1] the marker, KEYS[2] the day's count; ARGV cap, marker ttl, now ms, lease ms.
# 1..n: send now, this is try n (the marker now says so, leased until now + lease);
# 0: already settled (sent, capped or failed); -1: over the daily cap (settled as capped);
# -2: another sender holds it until its lease ends.
CLAIM_LUA = """
local v = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[3])
local tries = 0
if v then
  local n, untl = string.match(v, '^sending:(%d+):(%d+)$')
  if not n then return 0 end
  if tonumber(untl) > now then return -2 end
  tries = tonumber(n)
else
  local cap = tonumber(ARGV[1])
  if cap > 0 then
    local c = redis.call('INCR', KEYS[2])
    if c == 1 then redis.call('EXPIRE', KEYS[2], 172800) end
    if c > cap then
      redis.call('DECR', KEYS[2])
      redis.call('SET', KEYS[1], 'capped', 'EX', ARGV[2])
      return -1
    end
  end
end
tries = tries + 1
redis.call('SET', KEYS[1], 'sending:' .. tries .. ':' .. (now + tonumber(ARGV[4])), 'EX', ARGV[2])
return tries
"""

# KEYS[1] the game's record; ARGV seq, the new record, ttl. Writes it unless the stored one is
# newer (a higher seq); returns {1 written | 0 not, the previous record or ''}.
SWAP_LUA = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local seq = tonumber(cjson.decode(cur)['seq'])
  if seq > tonumber(ARGV[1]) then return {0, cur} end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return {1, cur or ''}
"""


# KEYS[1] the game's record; ARGV the record as read, the record to write. 1 = replaced (its
# TTL kept), 0 = it changed in between
REPLACE_LUA = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""


def sealed_key(game_id: str, round_id: str) -> str:
    return f"notify:sealed:{game_id}:{round_id}"


class NotifyStore:
    def __init__(self, redis: Client, partitions: int = 1) -> None:
        self.redis = redis
        # a claimed due message is this replica's for a minute: the send's own lease
        # (CLAIM_LUA) keeps a second replica off it beyond that
        self.timers = Timers(redis, DUE, partitions, lease_ms=60_000)
        self._claim = redis.register_script(CLAIM_LUA)
        self._swap = redis.register_script(SWAP_LUA)
        self._replace = redis.register_script(REPLACE_LUA)
        self._key: bytes | None = None

    async def signing_key(self) -> bytes:
        if self._key is None:
            await self.redis.set(KEY, secrets.token_hex(32), nx=True)
            self._key = bytes.fromhex(text(await self.redis.get(KEY)))
        return self._key

    async def prefs(self, player: str) -> dict[str, str]:
        raw: dict[Any, Any] = await self.redis.hgetall(prefs_key(player))
        return {text(k): text(v) for k, v in raw.items()}

    async def set_prefs(self, player: str, values: dict[str, str], drop: list[str]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            if values:
                pipe.hset(prefs_key(player), mapping=dict[Any, Any](values))
            if drop:
                pipe.hdel(prefs_key(player), *drop)
            await pipe.execute()

    async def forget(self, player: str) -> None:
        """A deleted player's settings go (its address and webhook); its sent-markers and
        day counts hold no personal data and expire on their own."""
        await self.redis.delete(prefs_key(player))

    async def put_verify(self, token: str, player: str, email: str, ttl_s: int) -> None:
        await self.redis.set(verify_key(token), orjson.dumps({"player": player, "email": email}),
                             ex=ttl_s)

    async def verify_record(self, token: str) -> dict[str, str] | None:
        raw = await self.redis.get(verify_key(token))
        return None if raw is None else dict(orjson.loads(raw))

    async def take_verify(self, token: str) -> dict[str, str] | None:
        raw = await self.redis.getdel(verify_key(token))
        return None if raw is None else dict(orjson.loads(raw))

    async def mails_today(self, player: str, day: str) -> int:
        raw = await self.redis.get(cap_key(player, day))
        return int(raw or 0)

    async def swap_waits(self, game_id: str, seq: int, record: str,
                         ended: bool) -> tuple[bool, str | None]:
        ttl = ENDED_TTL_S if ended else GAME_TTL_S
        written, prev = await self._swap(keys=[game_key(game_id)], args=[seq, record, ttl])
        prev_s = text(prev)
        return bool(int(written)), prev_s or None

    async def waits(self, game_id: str) -> str | None:
        raw = await self.redis.get(game_key(game_id))
        return None if raw is None else text(raw)

    async def replace_waits(self, game_id: str, read: str, record: str) -> bool:
        """Write ``record`` if the game's record is still ``read``."""
        return bool(await self._replace(keys=[game_key(game_id)], args=[read, record]))

    async def mark_committed(self, game_id: str, round_id: str, seat: int,
                             keep_ms: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(sealed_key(game_id, round_id), str(seat), "1")
            pipe.expire(sealed_key(game_id, round_id), max(1, keep_ms // 1000))
            await pipe.execute()

    async def committed(self, game_id: str, round_id: str) -> set[int]:
        raw: dict[Any, Any] = await self.redis.hgetall(sealed_key(game_id, round_id))
        return {int(text(s)) for s in raw}

    async def claim(self, player: str, marker: str, day: str, cap: int, now_ms: int,
                    lease_ms: int) -> int:
        return int(await self._claim(keys=[marker_key(player, marker), cap_key(player, day)],
                                     args=[cap, MARKER_TTL_S, now_ms, lease_ms]))

    async def settle(self, player: str, marker: str, state: str) -> None:
        await self.redis.set(marker_key(player, marker), state, ex=MARKER_TTL_S)

    async def arm(self, due: dict[str, int], keep: bool) -> None:
        by_key: dict[str, dict[str, int]] = defaultdict(dict)
        for member, at in due.items():
            by_key[game_of(member)][member] = at
        for key, members in by_key.items():
            await self.timers.arm_many(key, members, keep=keep)

    async def drop(self, members: list[str]) -> None:
        for member in members:
            await self.timers.drop(member)

    async def poll_due(self, handle: Callable[[str], Awaitable[bool]], now_ms: int) -> int:
        return await self.timers.poll_once(handle, now_ms)

    async def run_due(self, handle: Callable[[str], Awaitable[bool]], poll_s: float,
                      now: Callable[[], int]) -> None:
        await self.timers.run(handle, poll_s, now)
