"""The scoring service's Redis adapter: the only module of scoring that talks to Redis.

Keys (ACL user ``scoring``): ``rating:<game>`` a hash of player -> rating row, plus a
``scored:<game_id>`` marker holding each rated game's record (the only read-modify-write,
WATCH/MULTI on that single key: cluster-safe); ``lb:<game>`` the leaderboard (sorted set of
ordinals); ``hist:<player>`` and ``history:<game>`` the latest games (sorted sets by end time);
``g:{game}:result`` the game's record. The gateway reads ratings, leaderboards and histories
and the lobby deletes a player's rows with the same key functions.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import WatchError

from services.scoring.ports import Decide
from shared.protocol import keys
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.redis import Client


def leaderboard_key(game: str) -> str:
    return keys.leaderboard(game)


def ratings_key(game: str) -> str:
    return keys.ratings(game)


def history_key(player_id: str) -> str:
    return keys.player_history(player_id)


def game_history_key(game: str) -> str:
    return keys.game_history(game)


def marker(game_id: str) -> str:
    return f"scored:{game_id}"


class ScoringStore:
    def __init__(self, redis: Client) -> None:
        self.redis = redis

    async def rate_once(self, game: str, game_id: str, ids: list[str], decide: Decide
                        ) -> tuple[dict[str, Any], bool]:
        """Rate a game exactly once: ``decide`` gets the prior rows of ``ids`` and returns
        the new rows and the record, written with the game's marker in one MULTI under WATCH.
        Returns (the record, whether this call rated it); a game rated already returns the
        record stored under its marker."""
        key = ratings_key(game)
        for _ in range(50):
            try:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key)
                    done = await pipe.hget(key, marker(game_id))
                    if done is not None:
                        return dict(loads(done)), False
                    raw = await pipe.hmget(key, ids) if ids else []
                    rows, record = decide([loads(x) if x else None for x in raw])
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for pid, row in rows.items():
                        pipe.hset(key, pid, dumps(row))
                    pipe.hset(key, marker(game_id), dumps(record))
                    await pipe.execute()
                    return record, True
            except WatchError:
                continue
        raise RuntimeError(f"could not rate {game_id}: too much contention")

    async def publish(self, record: dict[str, Any], leaderboard: dict[str, float],
                      keep: int) -> None:
        """The result, the leaderboard's scores and the histories (each keeping ``keep``):
        idempotent writes, each on one key, in one round trip (no MULTI; a redelivery repeats
        them harmlessly)."""
        game_id, game = record["game_id"], record["game"]
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(Keys(game_id).result, dumps(record))
            if leaderboard:
                pipe.zadd(leaderboard_key(game), leaderboard)
            for hk in [history_key(p["player_id"]) for p in record["players"]] + [
                    game_history_key(game)]:
                pipe.zadd(hk, {game_id: record["ended_ms"]})
                pipe.zremrangebyrank(hk, 0, -keep - 1)
            await pipe.execute()
