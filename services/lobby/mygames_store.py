""""My games" in Valkey (the lobby's; ACL user ``lobby``: ``lobby:*``).

- ``lobby:mg:game:<game id>`` the game's latest ``TurnsChanged`` (JSON, with a TTL), replaced
  only by a higher ``seq`` (RECORD_LUA: one step, so two lobby replicas never put an older
  entry back);
- ``lobby:mg:player:<player id>`` the player's games, score = the game's last change (ms),
  at most ``my_games_max`` (the oldest changes go first);
- ``lobby:mg:sealed:<game id>:<round id>`` the seats that committed in a sealed round (a hash
  with a TTL: seat -> 1).
"""

from __future__ import annotations

from typing import Any, cast

from shared.protocol import keys
from shared.protocol.turns import TurnsChanged
from shared.runtime.jsonutil import loads, text
from shared.runtime.redis import Client

# KEYS[1] the game's entry; ARGV: entry JSON, seq, ended (1/0), keep (ms).
# 1 = stored (newer), 0 = an older or the same entry (nothing changes)
RECORD_LUA = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local d = cjson.decode(cur)
  local s, seq = tonumber(d['seq']), tonumber(ARGV[2])
  if s > seq then return 0 end
  if s == seq and (d['ended'] == true or ARGV[3] == '0') then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
return 1
"""


# KEYS[1] the game's entry; ARGV: the entry as read, the entry to write. 1 = replaced (the
# stored one was still the one read; its TTL kept), 0 = it changed in between
REPLACE_LUA = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""


class MyGamesStore:
    def __init__(self, redis: Client) -> None:
        self.redis = redis
        self._record = redis.register_script(RECORD_LUA)
        self._replace = redis.register_script(REPLACE_LUA)

    async def record(self, turns: TurnsChanged, keep_ms: int) -> bool:
        """Store the game's entry if it is newer than the stored one; True when it was."""
        return bool(await self._record(
            keys=[keys.lobby_my_game(turns.game_id)],
            args=[turns.model_dump_json(), turns.seq, "1" if turns.ended else "0", keep_ms]))

    async def add(self, players: list[str], game_id: str, at_ms: int, most: int,
                  keep_ms: int) -> None:
        """The game in each player's list (its score its last change: never moved back by an
        older entry), each list cut to ``most`` games and kept ``keep_ms`` past its last
        change. Idempotent: a redelivered entry adds nothing."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for p in players:
                k = keys.lobby_my_games(p)
                pipe.zadd(k, {game_id: at_ms}, gt=True)
                pipe.zremrangebyrank(k, 0, -(most + 1))
                pipe.pexpire(k, keep_ms)
            await pipe.execute()

    async def not_erased(self, players: list[str]) -> list[str]:
        """The players of ``players`` whose account was not deleted (``lobby:erased``)."""
        if not players:
            return []
        gone = await self.redis.smismember(keys.LOBBY_ERASED, players)
        return [p for p, g in zip(players, gone, strict=True) if not g]

    async def games_of(self, player_id: str, most: int) -> list[dict[str, Any]]:
        """The player's games' stored entries, latest change first; ids whose entry expired
        leave the list."""
        k = keys.lobby_my_games(player_id)
        ids = [text(m) for m in cast(list[bytes], await self.redis.zrevrange(k, 0, most - 1))]
        if not ids:
            return []
        mget = getattr(self.redis, "mget_nonatomic", None) or self.redis.mget
        raws = await mget([keys.lobby_my_game(g) for g in ids])
        gone = [g for g, raw in zip(ids, raws, strict=True) if raw is None]
        if gone:
            await self.redis.zrem(k, *gone)
        return [loads(raw) for raw in raws if raw is not None]

    async def entry(self, game_id: str) -> str | None:
        """The game's stored entry as stored (JSON), or None."""
        raw = await self.redis.get(keys.lobby_my_game(game_id))
        return None if raw is None else text(raw)

    async def replace(self, game_id: str, read: str, new: str) -> bool:
        """Write ``new`` as the game's entry if the stored one is still ``read``."""
        return bool(await self._replace(keys=[keys.lobby_my_game(game_id)], args=[read, new]))

    async def mark_committed(self, game_id: str, round_id: str, seat: int,
                             keep_ms: int) -> None:
        k = keys.lobby_my_game_committed(game_id, round_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(k, str(seat), "1")
            pipe.pexpire(k, keep_ms)
            await pipe.execute()

    async def committed(self, game_id: str, round_id: str) -> set[int]:
        """The seats that committed in the game's sealed round."""
        raw = await self.redis.hgetall(keys.lobby_my_game_committed(game_id, round_id))
        return {int(text(s)) for s in raw}
