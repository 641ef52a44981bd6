"""The lobby's Redis adapter: tables, the listing indexes, players and the per-player quota
reservations (one Lua step each, so every lobby replica counts the same).

Keys (ACL user ``lobby``: ``lobby:*``):
- ``lobby:table:<id>`` a table (JSON); an open one has no TTL (the idle sweep closes it),
  a started or closed one expires (``expire_s``).
- ``lobby:invite:<code>`` -> table id, with the same lifetime as its table.
- ``lobby:open`` ZSET of public open tables with a free seat, score = created ms (the listing).
- ``lobby:idle`` ZSET of every open table, score = its last change ms (the idle sweep).
- ``lobby:live`` ZSET of started games, score = start ms (the live listing).
- ``lobby:audit`` the admin actions (a stream, newest last, bounded).
- ``lobby:player:<id>`` who signed in (expires with the token).
- ``lobby:handle:<sha256 of the handle's key>`` -> the player holding that display name
  (case- and confusable-insensitive, shared/identity/handles.py; expires with the token).
- ``lobby:q:{<player>}:tables`` / ``lobby:q:{<player>}:games`` HASH of the player's open
  tables / running games -> "<bot seats>:<since ms>" (one hash tag: one slot, one script).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, cast

from redis.exceptions import WatchError

from services.lobby import tables
from services.lobby.tables import NO_TABLE, LobbyError
from shared.protocol import keys
from shared.protocol import lobby as lm
from shared.protocol.streams import Keys
from shared.runtime.archive import archive_key as _archive_key
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.redis import Client

OPEN_TABLES = keys.LOBBY_OPEN_TABLES
IDLE_TABLES = keys.LOBBY_IDLE_TABLES
LIVE_GAMES = keys.LOBBY_LIVE_GAMES
AUDIT = keys.LOBBY_AUDIT  # admin actions, newest last, bounded (EMPIRE_AUDIT_MAXLEN)


def table_key(table_id: str) -> str:
    return keys.lobby_table(table_id)


def invite_key(code: str) -> str:
    return keys.lobby_invite(code)


def quota_keys(player_id: str) -> list[str]:
    return keys.lobby_quota("{" + player_id + "}")


def archive_key(game_id: str) -> str:
    return _archive_key(game_id)  # shared.runtime.archive (only EXISTS here)


# ARGV: op, id, since_ms, max_tables, max_games, max_bots, [game id, bots, pace]
# returns '' (reserved / already held) or the quota that refused: open_tables, running_games,
# turn_based_games, bot_seats. Reservation values are "<bots>:<since_ms>", a turn-based
# game's "<bots>:<since_ms>:t" (``max_games`` is then the turn-based limit).
QUOTA_LUA = """
local function bots_of(v) return tonumber(string.match(v, '^(%d+)')) or 0 end
local function total()
  local n = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[1])) do n = n + bots_of(v) end
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do n = n + bots_of(v) end
  return n
end
local op, id = ARGV[1], ARGV[2]
if op == 'table' then
  if redis.call('HEXISTS', KEYS[1], id) == 1 then return '' end
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 'open_tables' end
  redis.call('HSET', KEYS[1], id, '0:' .. ARGV[3])
  return ''
elseif op == 'bot' then
  if total() + 1 > tonumber(ARGV[6]) then return 'bot_seats' end
  local v = redis.call('HGET', KEYS[1], id)
  local since = v and string.match(v, ':(%d+)$') or ARGV[3]
  redis.call('HSET', KEYS[1], id, tostring((v and bots_of(v) or 0) + 1) .. ':' .. since)
  return ''
elseif op == 'unbot' then
  local v = redis.call('HGET', KEYS[1], id)
  if v and bots_of(v) > 0 then
    redis.call('HSET', KEYS[1], id, tostring(bots_of(v) - 1) .. ':' .. string.match(v, ':(%d+)$'))
  end
  return ''
elseif op == 'start' then
  local gid, n = ARGV[7], ARGV[8]
  if redis.call('HEXISTS', KEYS[2], gid) == 1 then return '' end
  -- a game's pace is its value's suffix (':t' turn-based); each pace has its own limit
  local tb, held = ARGV[9] == 't', 0
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
    if (string.sub(v, -2) == ':t') == tb then held = held + 1 end
  end
  if held >= tonumber(ARGV[5]) then return tb and 'turn_based_games' or 'running_games' end
  redis.call('HDEL', KEYS[1], id)
  redis.call('HSET', KEYS[2], gid, n .. ':' .. ARGV[3] .. (tb and ':t' or ''))
  return ''
elseif op == 'unstart' then
  local gid = ARGV[7]
  local v = redis.call('HGET', KEYS[2], gid)
  redis.call('HDEL', KEYS[2], gid)
  if v then redis.call('HSET', KEYS[1], id, (string.gsub(v, ':t$', ''))) end
  return ''
elseif op == 'drop_table' then
  redis.call('HDEL', KEYS[1], id)
  return ''
end
return redis.error_reply('unknown quota op')
"""


class LobbyStore:
    def __init__(self, redis: Client) -> None:
        self.redis = redis
        self._quota = redis.register_script(QUOTA_LUA)

    # -- players ------------------------------------------------------------------------

    async def put_player(self, player: dict[str, Any], ttl_s: int) -> None:
        await self.redis.set(keys.lobby_player(player["player_id"]), dumps(player), ex=ttl_s)

    async def claim_handle(self, handle_key: str, player_id: str, ttl_s: int) -> bool:
        """Hold a handle for the player (SET NX); False when another holds it."""
        digest = hashlib.sha256(handle_key.encode()).hexdigest()
        return bool(await self.redis.set(keys.lobby_handle(digest), player_id, nx=True,
                                         ex=ttl_s))

    # -- tables -------------------------------------------------------------------------

    async def load(self, table_id: str) -> lm.Table:
        raw = await self.redis.get(table_key(table_id))
        if raw is None:
            raise LobbyError("lobby/not_found", NO_TABLE)
        return lm.Table.model_validate(loads(raw))

    async def load_many(self, table_ids: list[str]) -> dict[str, lm.Table | None]:
        if not table_ids:
            return {}
        keys = [table_key(t) for t in table_ids]
        # a cluster's MGET needs one slot: redis-py splits it per node (not atomic: fine)
        mget = getattr(self.redis, "mget_nonatomic", None) or self.redis.mget
        raws = await mget(keys)
        return {tid: lm.Table.model_validate(loads(raw)) if raw is not None else None
                for tid, raw in zip(table_ids, raws, strict=True)}

    async def table_of_invite(self, code: str) -> str | None:
        raw = await self.redis.get(invite_key(code))
        return text(raw) if raw else None

    async def create(self, t: lm.Table) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(table_key(t.table_id), t.model_dump_json())
            pipe.set(invite_key(t.invite), t.table_id)
            pipe.zadd(IDLE_TABLES, {t.table_id: tables.last_change(t)})
            if tables.listed(t):
                pipe.zadd(OPEN_TABLES, {t.table_id: t.created_ms})
            await pipe.execute()

    async def update(self, table_id: str, change: Callable[[lm.Table], lm.Table],
                     expire_s: int | Callable[[lm.Table], int]) -> lm.Table:
        """Read-modify-write one table with WATCH/MULTI (one key: also atomic on a cluster),
        then bring the indexes in line (idempotent, re-derived on every update).
        ``expire_s``: how long a started or closed table stays (or a function of the table)."""
        key = table_key(table_id)
        for _ in range(50):
            try:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        raise LobbyError("lobby/not_found", NO_TABLE)
                    before = lm.Table.model_validate(loads(raw))
                    t: lm.Table = change(before)
                    ttl = expire_s(t) if callable(expire_s) else expire_s
                    if t is before:
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return t
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if t.status == "open":
                        pipe.set(key, t.model_dump_json())
                    else:  # started or closed: kept a while for those who look it up
                        pipe.set(key, t.model_dump_json(), ex=ttl)
                    await pipe.execute()
            except WatchError:
                continue
            await self._index(t, ttl)
            return t
        raise LobbyError("lobby/bad_request", "Many changes reached this table at once: try "
                         "again in a moment.")

    async def _index(self, t: lm.Table, expire_s: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            if tables.listed(t):
                pipe.zadd(OPEN_TABLES, {t.table_id: t.created_ms})
            else:
                pipe.zrem(OPEN_TABLES, t.table_id)
            if t.status == "open":
                pipe.zadd(IDLE_TABLES, {t.table_id: tables.last_change(t)})
            else:
                pipe.zrem(IDLE_TABLES, t.table_id)
                pipe.expire(invite_key(t.invite), expire_s)
            await pipe.execute()

    async def idle(self, before_ms: int, count: int = 100) -> list[str]:
        return [text(m) for m in await self.redis.zrangebyscore(
            IDLE_TABLES, "-inf", before_ms, start=0, num=count)]

    async def forget_idle(self, table_id: str) -> None:
        await self.redis.zrem(IDLE_TABLES, table_id)
        await self.redis.zrem(OPEN_TABLES, table_id)

    async def reindex_idle(self, t: lm.Table) -> None:
        await self.redis.zadd(IDLE_TABLES, {t.table_id: tables.last_change(t)})

    # -- the listing --------------------------------------------------------------------

    async def newest(self, index: str, cursor: tuple[int, str] | None,
                     count: int) -> list[tuple[str, int]]:
        """Up to ``count`` index entries (member, score) newest first, from the cursor's score
        on (members at the cursor's own score are filtered by ``tables.after_cursor``)."""
        top = "+inf" if cursor is None else cursor[0]
        rows = cast(list[tuple[bytes, float]],
                    await self.redis.zrevrangebyscore(index, top, "-inf", start=0, num=count,
                                                      withscores=True))
        return [(text(m), int(s)) for m, s in rows]

    async def unlist(self, index: str, members: list[str]) -> None:
        if members:
            await self.redis.zrem(index, *members)

    async def add_live(self, game_id: str, now_ms: int) -> None:
        await self.redis.zadd(LIVE_GAMES, {game_id: now_ms}, nx=True)  # a retry keeps the first

    async def drop_live_before(self, before_ms: int) -> None:
        await self.redis.zremrangebyscore(LIVE_GAMES, "-inf", before_ms)

    async def games_over(self, game_ids: list[str]) -> dict[str, bool | None]:
        """True: over (scored or archived); False: running; None: no such game (metadata
        gone or not written yet)."""
        if not game_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for gid in game_ids:
                k = Keys(gid)
                pipe.exists(k.result)
                pipe.exists(archive_key(gid))
                pipe.exists(k.meta)
            res = await pipe.execute()
        out: dict[str, bool | None] = {}
        for i, gid in enumerate(game_ids):
            scored, archived, meta = res[3 * i:3 * i + 3]
            out[gid] = True if (scored or archived) else (False if meta else None)
        return out

    async def put_meta(self, game_id: str, meta: dict[str, Any]) -> None:
        await self.redis.set(Keys(game_id).meta, dumps(meta), nx=True)

    async def get_meta(self, game_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(Keys(game_id).meta)
        return None if raw is None else cast(dict[str, Any], loads(raw))

    async def change_meta(self, game_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any] | None]
                          ) -> dict[str, Any] | None:
        """Read-modify-write the game's metadata with WATCH/MULTI (its TTL kept); None when
        it is missing or ``change`` answers None (nothing to change)."""
        key = Keys(game_id).meta
        for _ in range(50):
            try:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    after = None if raw is None else change(loads(raw))
                    if after is None:
                        await pipe.unwatch()  # type: ignore[no-untyped-call]
                        return None
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(key, dumps(after), keepttl=True)
                    await pipe.execute()
                    return after
            except WatchError:
                continue
        raise LobbyError("lobby/bad_request", "game busy, try again")

    # -- the admin audit ----------------------------------------------------------------

    async def audit(self, entry: dict[str, Any], maxlen: int) -> None:
        await self.redis.xadd(AUDIT, {"d": dumps(entry)}, maxlen=maxlen, approximate=True)

    async def audit_entries(self, limit: int) -> list[dict[str, Any]]:
        """The latest ``limit`` admin actions, newest first, each with its stream id."""
        rows = cast(list[tuple[bytes, dict[bytes, bytes]]],
                    await self.redis.xrevrange(AUDIT, count=limit))
        return [{"id": text(i), **loads(f[b"d"])} for i, f in rows]

    # -- quotas -------------------------------------------------------------------------

    async def reserve(self, player_id: str, op: str, table_id: str, now_ms: int,
                      limits: tuple[int, int, int], game_id: str = "", bots: int = 0,
                      turn_based: bool = False) -> str:
        """One quota step (QUOTA_LUA); '' = done, else the quota that refused.
        ``turn_based``: a start counts against the turn-based games (limits[1] is theirs)."""
        res = await self._quota(keys=quota_keys(player_id),
                                args=[op, table_id, now_ms, *limits, game_id, bots,
                                      "t" if turn_based else ""])
        return text(res) if res else ""

    async def reservations(self, player_id: str) -> tuple[dict[str, str], dict[str, str]]:
        kt, kg = quota_keys(player_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(kt)
            pipe.hgetall(kg)
            rt, rg = await pipe.execute()
        return ({text(k): text(v) for k, v in rt.items()},
                {text(k): text(v) for k, v in rg.items()})

    async def apply(self, player_id: str, fix: tables.Reconcile) -> None:
        kt, kg = quota_keys(player_id)
        if not (fix.drop_tables or fix.drop_games or fix.set_tables):
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            if fix.drop_tables:
                pipe.hdel(kt, *fix.drop_tables)
            if fix.drop_games:
                pipe.hdel(kg, *fix.drop_games)
            if fix.set_tables:
                pipe.hset(kt, mapping=cast(dict[Any, Any], fix.set_tables))
            await pipe.execute()
