"""The gateway's shell: what its routes and its stream side share — the fan-out to this
replica's sockets (the game shards it watches, fanout/shards.py, and the shared
``gw:updates`` channel), the token check, the lobby round trip, the background loops — built
once by the composition root (services/gateway/app.py) and reached by the routes through
``app.state`` (routes/deps.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from faststream.redis import RedisBroker, RedisClusterBroker

from services.gateway.auth.sessions import Revocations
from services.gateway.chat.table_talk import Chat
from services.gateway.edge.http_errors import HttpError
from services.gateway.edge.limits import GatewayLimits
from services.gateway.edge.memory_guard import MemoryGuard
from services.gateway.edge.micro_cache import MicroCache
from services.gateway.edge.quotas import Quotas
from services.gateway.edge.websocket import Edge
from services.gateway.fanout import erased, my_games
from services.gateway.fanout.hub import Hub
from services.gateway.fanout.shards import ShardReader
from services.gateway.ports import Archive, GameReads, LobbyRequests
from services.gateway.replays.boards import ReplayBoards
from shared.protocol import lobby as lm
from shared.protocol import streams
from shared.runtime import ops, tokens, tracing
from shared.runtime.settings import Settings

# the lobby's refusal codes that are not a plain 400
STATUS = {"lobby/not_found": 404, "auth/bad_credentials": 401, "auth/refresh_invalid": 401,
          "auth/refresh_reused": 401, "auth/revoked_session": 401, "auth/suspended": 403,
          "auth/forbidden": 403, "auth/rate_limited": 429, "game/over": 409}


def stamp(who: tokens.Identity, **fields: Any) -> dict[str, Any]:
    """The fields the gateway sets on a lobby request: the token's identity (and path ids)."""
    return {"player_id": who.player_id, "name": who.name, "session": who.session, **fields}


@dataclass
class Gateway:
    settings: Settings
    logger: Any
    broker: RedisBroker | RedisClusterBroker
    store: GameReads
    hub: Hub
    limits: GatewayLimits
    quotas: Quotas
    memory: MemoryGuard
    revocations: Revocations
    edge: Edge
    chat: Chat
    boards: ReplayBoards
    archive: Archive  # finished games once their live keys expire
    lobby_rpc: LobbyRequests
    listings: MicroCache[bytes]  # GET /api/tables, per replica (edge/micro_cache.py)
    fanout: ShardReader  # the game fan-out shards of the games watched here

    # -- the stream side ---------------------------------------------------------------------

    async def on_update(self, bodies: list[dict[str, Any]]) -> None:
        """gw:updates: the shared channel (chat; notify / reply written by a release that
        used this one stream): the games first, each pumped once, then the chat."""
        tracing.received(streams.GW_UPDATES, tracing.batch_headers(self.broker))  # traces end
        await self.hub.deliver_batch(bodies)
        await self.chat.on_fanout(bodies)
        my_games.deliver(self.hub.by_player, bodies)  # "My games" to its player's sockets

    @contextlib.asynccontextmanager
    async def running(self, ready: Callable[[], Awaitable[bool]]) -> AsyncIterator[None]:
        """The broker and the background loops, for the app's lifespan; ``ready``: the
        readiness probe the ops port serves (services/gateway/routes/health.py)."""
        s = self.settings
        await self.broker.start()
        self.fanout.start()
        tasks = [asyncio.create_task(loop()) for loop in (
            self.hub.sweep_loop, self.hub.answer_loop, self.chat.sweep_loop,
            self.quotas.refresh_loop, self.memory.loop, self.revocations.listen,
            self.revocations.sweep_loop)]
        ops_server = None
        if s.metrics_port:  # /metrics and the probes off the public port
            ops_server = await ops.serve(s.metrics_port, ready)
        self.logger.info("service_started", instance=s.instance, port=s.port,
                         metrics_port=s.metrics_port, public_metrics=s.public_metrics)
        yield
        if ops_server is not None:
            await ops_server.wait_closed()
        for task in tasks:
            task.cancel()
        await self.fanout.stop()
        await self.broker.stop()
        await self.store.close()

    # -- what the routes share ---------------------------------------------------------------

    async def identity(self, authorization: str | None) -> tokens.Identity:
        """The access token's identity: signature (current or previous key), expiry, and its
        session not revoked (auth/sessions.py)."""
        token = (authorization or "").removeprefix("Bearer ").strip()
        try:
            who = tokens.verify(self.settings.token_verify_keys, token, int(time.time() * 1000))
            await self.revocations.check(who)
        except tokens.TokenError as exc:
            raise HttpError(401, exc.code, str(exc)) from exc
        return who

    async def lobby(self, req: lm.LobbyRequest) -> dict[str, Any]:
        """Send the validated request (its model's dump, never a client's raw body)."""
        if self.memory.refuses(req.op):
            raise HttpError(503, "storage/full", "The server is near its storage limit: "
                            "running games go on, but new tables and games wait; try again "
                            "in a minute.", headers={"Retry-After": "30"})
        try:
            data = await self.lobby_rpc.request(req.model_dump(mode="json"), timeout=10.0)
        except TimeoutError as exc:
            raise HttpError(503, "lobby/bad_request", "The lobby did not answer in time: try "
                            "again in a moment.") from exc
        if not data.get("ok"):
            code = data.get("code", "lobby/bad_request")
            message = data.get("message", "")
            headers = None
            if code == "auth/rate_limited":
                digits = "".join(c for c in message.rsplit("retry in", 1)[-1] if c.isdigit())
                headers = {"Retry-After": digits or "60"}
            raise HttpError(STATUS.get(code, 400), code, message, headers=headers)
        return data

    async def anonymized(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows naming players (``player_id``, ``name``) with deleted players' seats shown as
        "deleted player": the stored records stay as they were, so verification holds
        (fanout/erased.py)."""
        return erased.seats(rows, await self.store.erased(erased.row_ids(rows)))

    async def anonymized_record(self, rec: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The public record with deleted players' seats anonymized in ``game_created`` (the
        seats, not the players, are what commitments and draws bind: verification holds)."""
        return erased.record(rec, await self.store.erased(erased.record_ids(rec)))

    async def anonymized_meta(self, doc: dict[str, Any]) -> dict[str, Any]:
        players = doc.get("players")
        if isinstance(players, list):
            return {**doc, "players": await self.anonymized(players)}
        return doc

    async def game(self, game_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """(meta, archived document or None). A finished game is served from its archive once
        archived (whole and immutable: its live keys expire soon after); others from the live
        keys. 404 when neither knows the game."""
        archived = await self.archive.get(game_id)
        if archived is not None:
            return archived.get("meta") or {"game_id": game_id, "game": archived["game"],
                                            "options": archived.get("options", {}),
                                            "players": archived["players"],
                                            "table_id": archived.get("table_id")}, archived
        meta = await self.hub.meta(game_id)
        if meta is None:
            raise HttpError(404, "game/not_found", "no such game")
        return meta, None
