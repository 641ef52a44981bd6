"""The gateway's reads of Redis for the HTTP routes: the public streams of a game (record,
public log, spectator view), its result, leaderboards, histories and the erased players. The
hub, quotas, chat and sessions keep their own keys (services/gateway/fanout/hub.py and friends)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from services.gateway.fanout import erased
from services.gateway.ports import RedisClient, stream_entries
from shared.protocol import keys
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads, text


class GatewayStore:
    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis

    async def close(self) -> None:
        """Close the Redis client (every part of the gateway shares it): at shutdown."""
        await self.redis.aclose()

    async def ping(self) -> None:
        await self.redis.ping()

    async def entries(self, key: str) -> list[dict[str, Any]]:
        """A whole stream (a game's record or public log), 1000 entries a round trip."""
        out = []
        last = "-"
        while True:
            batch = stream_entries(await self.redis.xrange(key, min=last, count=1000))
            for i, f in batch:
                out.append({"id": text(i), **loads(f[b"d"])})
            if len(batch) < 1000:
                return out
            last = "(" + text(batch[-1][0])

    async def stage(self, game_id: str) -> str | None:
        """The game's stage from its last spectator view (None: no view yet, or expired)."""
        last = stream_entries(await self.redis.xrevrange(Keys(game_id).spectator, count=1))
        return loads(last[0][1][b"d"]).get("stage") if last else None

    async def result(self, game_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(Keys(game_id).result)
        return dict(loads(raw)) if raw is not None else None

    async def leaderboard(self, game: str, limit: int) -> list[dict[str, Any]]:
        """The top ``limit`` ratings of ``game``, each with the player's stored info."""
        ranked = cast(list[tuple[bytes, float]],
                      await self.redis.zrevrange(keys.leaderboard(game), 0, max(0, limit - 1),
                                                 withscores=True))
        ids = [pid for pid, _ in ranked]
        rows = await self.redis.hmget(keys.ratings(game), ids) if ids else []
        entries = []
        for (pid, score), raw in zip(ranked, rows, strict=True):
            info = loads(raw) if raw else {}
            entries.append({"player_id": pid.decode(), "rating": round(score, 3),
                            "name": info.get("name"), "games": info.get("games"),
                            "wins": info.get("wins"), "bot": info.get("bot")})
        return entries

    async def history(self, player_id: str, count: int | None = None) -> list[str]:
        """The player's games, newest first (``count``: the most recent only)."""
        end = -1 if count is None else count - 1
        return [text(g) for g in await self.redis.zrevrange(keys.player_history(player_id),
                                                            0, end)]

    async def rating(self, game: str, player_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hmget(keys.ratings(game), [player_id])
        return loads(raw[0]) if raw and raw[0] else None

    async def erased(self, ids: Iterable[Any]) -> set[str]:
        """Which of ``ids`` are deleted players (services/gateway/fanout/erased.py)."""
        return await erased.erased(self.redis, ids)
