"""scoring shell: on game over, once per game, update ratings, then the result, leaderboard
and history.

Cluster-safe: the only read-modify-write is on one key per game kind (services/scoring/
store.py), so a redelivered message never rates a game twice; the follow-ups (result,
leaderboard scores, history sorted sets) are idempotent writes derived from the stored
record. What the ratings and the record are is services/scoring/core.py.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from typing import Any

import structlog
from pydantic import ValidationError

from services.scoring import core
from services.scoring.ports import ScoringStorePort
from shared.protocol import internal as im

log = structlog.get_logger("scoring")


class Scoring:
    def __init__(self, store: ScoringStorePort) -> None:
        self.store = store
        # one rating update per game kind at a time in this process: the games of one
        # consumed batch are handled concurrently and would only fight over the WATCH
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def _rate_once(self, msg: im.GameEnded) -> dict[str, Any]:
        """Rate the game exactly once; returns its record (stored under the marker)."""
        async with self._locks[msg.game]:
            now = int(time.time() * 1000)
            record, rated_now = await self.store.rate_once(
                msg.game, msg.game_id, core.players_to_rate(msg),
                lambda prior: core.score(msg, prior, now))
        if rated_now:
            log.info("rated", game=msg.game, places=core.places_of(record))
        return record

    async def on_ended(self, msg: im.GameEnded) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id):
            record = await self._rate_once(msg)
            await self.store.publish(record, core.leaderboard(record), core.HISTORY_KEEP)

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = im.GameEnded.model_validate(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        await self.on_ended(msg)
