"""scoring shell: on game over store the result, update ratings, leaderboard and history, once
per game (WATCH/MULTI on the game's done marker)."""

from __future__ import annotations

import time
from typing import Any

import structlog
from pydantic import ValidationError
from redis.exceptions import WatchError

from services.scoring.ratings import rate
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads

log = structlog.get_logger("scoring")
HISTORY_KEEP = 200


def leaderboard_key(game: str) -> str:
    return f"lb:{game}"


def ratings_key(game: str) -> str:
    return f"rating:{game}"


def history_key(player_id: str) -> str:
    return f"hist:{player_id}"


class Scoring:
    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def on_ended(self, msg: im.GameEnded) -> None:
        k = Keys(msg.game_id)
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id):
            for _ in range(20):
                try:
                    async with self.redis.pipeline(transaction=True) as pipe:
                        await pipe.watch(k.scored, ratings_key(msg.game))
                        if await pipe.exists(k.scored):
                            return  # already scored: idempotent per game
                        results: list[Any] = msg.outcome.get("results", [])  # type: ignore[assignment]
                        places = [int(r["place"]) for r in results]
                        ids = [p.player_id for p in msg.players]
                        raw = await pipe.hmget(ratings_key(msg.game), ids) if ids else []
                        prior = [loads(x) if x else None for x in raw]
                        new = rate(places, prior)
                        record = {"game_id": msg.game_id, "game": msg.game,
                                  "ended_ms": int(time.time() * 1000),
                                  "players": [p.model_dump() for p in msg.players],
                                  "outcome": msg.outcome, "ratings": new}
                        pipe.multi()
                        pipe.set(k.result, dumps(record))
                        for pid, p, old, r in zip(ids, msg.players, prior, new, strict=True):
                            games = (old or {}).get("games", 0) + 1
                            wins = (old or {}).get("wins", 0) + (
                                1 if places[ids.index(pid)] == 1 else 0)
                            pipe.hset(ratings_key(msg.game), pid, dumps(
                                {**r, "name": p.name, "games": games, "wins": wins,
                                 "bot": p.bot}))
                            pipe.zadd(leaderboard_key(msg.game), {pid: r["ordinal"]})
                            pipe.lpush(history_key(pid), msg.game_id)
                            pipe.ltrim(history_key(pid), 0, HISTORY_KEEP - 1)
                        pipe.lpush(f"history:{msg.game}", msg.game_id)
                        pipe.ltrim(f"history:{msg.game}", 0, HISTORY_KEEP - 1)
                        pipe.set(k.scored, "1")
                        await pipe.execute()
                        log.info("scored", game=msg.game, places=places)
                        return
                except WatchError:
                    continue

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = im.GameEnded.model_validate(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        await self.on_ended(msg)
