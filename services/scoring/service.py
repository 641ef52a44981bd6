"""scoring shell: on game over, once per game, update ratings, then the result, leaderboard
and history.

Cluster-safe: the only read-modify-write is on one key per game kind (``rating:<game>``, a
hash of player -> rating plus a ``scored:<game_id>`` marker holding the game's record), done
with WATCH/MULTI on that single key. The follow-ups (result, leaderboard scores, history
sorted sets) are idempotent writes derived from the stored record, so a redelivered message
repeats them harmlessly and never rates a game twice.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from typing import Any

import structlog
from pydantic import ValidationError
from redis.exceptions import WatchError

from services.scoring.ratings import rate
from shared.protocol import internal as im
from shared.protocol import keys
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads

log = structlog.get_logger("scoring")
HISTORY_KEEP = 200


def leaderboard_key(game: str) -> str:
    return keys.leaderboard(game)


def ratings_key(game: str) -> str:
    return keys.ratings(game)


def history_key(player_id: str) -> str:
    return keys.player_history(player_id)


def game_history_key(game: str) -> str:
    return keys.game_history(game)


def _marker(game_id: str) -> str:
    return f"scored:{game_id}"


class Scoring:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        # one rating update per game kind at a time in this process: the games of one
        # consumed batch are handled concurrently and would only fight over the WATCH
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def _rate_once(self, msg: im.GameEnded) -> dict[str, Any]:
        async with self._locks[msg.game]:
            return await self._rate_watched(msg)

    async def _rate_watched(self, msg: im.GameEnded) -> dict[str, Any]:
        """Rate the game exactly once; returns its record (stored under the marker)."""
        key = ratings_key(msg.game)
        for _ in range(50):
            try:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key)
                    done = await pipe.hget(key, _marker(msg.game_id))
                    if done is not None:
                        return dict(loads(done))
                    results: list[Any] = msg.outcome.get("results", [])  # type: ignore[assignment]
                    rated = msg.outcome.get("status", "finished") == "finished"
                    places = [int(r["place"]) for r in results] if rated else []
                    ids = [p.player_id for p in msg.players] if rated else []
                    raw = await pipe.hmget(key, ids) if ids else []
                    prior = [loads(x) if x else None for x in raw]
                    new = rate(places, prior) if rated else []
                    record = {"game_id": msg.game_id, "game": msg.game,
                              "ended_ms": int(time.time() * 1000),
                              "players": [p.model_dump() for p in msg.players],
                              "outcome": msg.outcome, "ratings": new}
                    pipe.multi()
                    # a game ended by its lifetime ("expired") rates nobody
                    for i, (pid, p, old, r) in enumerate(
                            zip(ids, msg.players if rated else [], prior, new, strict=True)):
                        pipe.hset(key, pid, dumps({
                            **r, "name": p.name, "bot": p.bot,
                            "games": (old or {}).get("games", 0) + 1,
                            "wins": (old or {}).get("wins", 0) + (1 if places[i] == 1 else 0)}))
                    pipe.hset(key, _marker(msg.game_id), dumps(record))
                    await pipe.execute()
                    log.info("rated", game=msg.game, places=places)
                    return record
            except WatchError:
                continue
        raise RuntimeError(f"could not rate {msg.game_id}: too much contention")

    async def on_ended(self, msg: im.GameEnded) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id):
            record = await self._rate_once(msg)
            # idempotent follow-ups, each on one key: one round trip (no MULTI, each command
            # stands alone, as when sent one by one; a redelivery repeats them harmlessly)
            lb = {r["player_id"]: rating["ordinal"]  # (no ratings: an expired game)
                  for r, rating in zip(record["players"], record["ratings"], strict=False)}
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(Keys(msg.game_id).result, dumps(record))
                if lb:
                    pipe.zadd(leaderboard_key(msg.game), lb)
                for hk in [history_key(p["player_id"]) for p in record["players"]] + [
                        game_history_key(msg.game)]:
                    pipe.zadd(hk, {msg.game_id: record["ended_ms"]})
                    pipe.zremrangebyrank(hk, 0, -HISTORY_KEEP - 1)
                await pipe.execute()

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = im.GameEnded.model_validate(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        await self.on_ended(msg)
