"""The bot runner: plays bot seats through the gateway's WebSocket with the SDK.

Each seat is held under a lease (``bots:lease:<game>:<seat>``) renewed while it plays; the
seats to play live in ``bots:active``. If a runner dies its leases lapse and another replica
(or the restarted one) resumes those seats from their last view.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from clients.sdk.bot_player import play_seat
from clients.sdk.client import Client
from shared.protocol import internal as im
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.settings import Settings

log = structlog.get_logger("bots")
ACTIVE = "bots:active"
LEASE_MS = 10_000


class BotRunner:
    def __init__(self, settings: Settings, redis: Any) -> None:
        self.settings = settings
        self.redis = redis
        self.tasks: dict[str, asyncio.Task[None]] = {}

    @staticmethod
    def _key(seat: im.SeatBot) -> str:
        return f"{seat.game_id}:{seat.seat}"

    async def on_seat(self, body: dict[str, Any]) -> None:
        seat = im.SeatBot.model_validate(body)
        await self.redis.hset(ACTIVE, self._key(seat), dumps(seat.model_dump()))
        await self._maybe_start(seat)

    async def _maybe_start(self, seat: im.SeatBot) -> None:
        key = self._key(seat)
        if key in self.tasks:
            return
        if not await self.redis.set(f"bots:lease:{key}", self.settings.instance, nx=True,
                                    px=LEASE_MS):
            return
        self.tasks[key] = asyncio.create_task(self._play(seat))

    async def _play(self, seat: im.SeatBot) -> None:
        key = self._key(seat)
        renew = asyncio.create_task(self._renew(key))
        try:
            async with Client(self.settings.gateway_url, token=seat.token) as c:
                await play_seat(c, seat.game_id, kind=seat.kind)
            await self.redis.hdel(ACTIVE, key)
            log.info("bot_done", game_id=seat.game_id, seat=seat.seat)
        except Exception as exc:
            log.warning("bot_error", game_id=seat.game_id, seat=seat.seat, error=repr(exc))
        finally:
            renew.cancel()
            await self.redis.delete(f"bots:lease:{key}")
            self.tasks.pop(key, None)

    async def _renew(self, key: str) -> None:
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            await self.redis.set(f"bots:lease:{key}", self.settings.instance, px=LEASE_MS)

    async def resume_loop(self) -> None:
        """Adopt seats whose runner died (lease lapsed) or that ended with an error."""
        while True:
            with contextlib.suppress(Exception):
                for raw in (await self.redis.hgetall(ACTIVE)).values():
                    await self._maybe_start(im.SeatBot.model_validate(loads(raw)))
            await asyncio.sleep(3.0)
