"""The gateway's composition root, the one place its parts are built, each given its
collaborators as it is built: settings, the Redis client and the broker, the stores, the
fan-out and the hub, the chat, the WebSocket edge (``build``), the routes and their guards
(``create_app``, ``app_for``) and the server (``serve``, what ``python -m services.gateway``
runs). Nothing runs at import. The gateway serves HTTP (lobby, matches, results, replays,
leaderboards) and one WebSocket per player; it holds no game state: it relays the watcher's
own streams, from the game fan-out shards it watches and the ``gw:updates`` channel."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from faststream.redis import StreamSub

from services.gateway.auth.sessions import Revocations
from services.gateway.chat.table_talk import Chat
from services.gateway.edge.http_errors import add_handlers
from services.gateway.edge.http_guard import HttpGuard
from services.gateway.edge.http_metrics import HttpMetrics
from services.gateway.edge.limits import get_limits
from services.gateway.edge.memory_guard import MemoryGuard
from services.gateway.edge.micro_cache import MicroCache
from services.gateway.edge.quotas import Quotas
from services.gateway.edge.security_headers import SecurityHeaders
from services.gateway.edge.server import DrainingServer, config, listening_socket, raise_nofile
from services.gateway.edge.websocket import Edge
from services.gateway.fanout.hub import Hub
from services.gateway.fanout.shards import ShardReader, Shards
from services.gateway.lobby.rpc import LobbyRpc
from services.gateway.replays.boards import ReplayBoards
from services.gateway.routes import (
    accounts,
    admin,
    games,
    health,
    matches,
    notifications,
    play,
    tables,
    web,
)
from services.gateway.service import Gateway
from services.gateway.store import GatewayStore
from shared.protocol import streams
from shared.runtime import bus, tracing
from shared.runtime.archive import ValkeyArchive
from shared.runtime.logging import configure_logging
from shared.runtime.outbox import Outbox
from shared.runtime.redis import client
from shared.runtime.settings import Settings, get_settings


def build(settings: Settings) -> Gateway:
    """The gateway's parts on one Redis client and one broker, each given its collaborators
    as it is built; ``gw:updates`` subscribed."""
    logger = configure_logging("gateway", settings.log_level, settings.log_json)
    tracing.configure_tracing("gateway", settings.otlp_endpoint)
    broker = bus.make_broker(settings, logger=logger)
    redis = client(settings)
    limits = get_limits()
    outbox = Outbox(redis)  # stream publishes, pipelined
    # the game fan-out: only the shards of the games watched here
    shards = Shards(redis, settings.gw_shards)
    hub = Hub(redis, want=shards.want)
    fanout = ShardReader(redis, shards, hub.by_game.keys, hub.deliver_batch)
    quotas = Quotas(redis, limits, settings.instance)
    revocations = Revocations(settings, redis, hub)
    chat = Chat(redis, settings, hub, quotas, outbox)
    edge = Edge(settings, limits, hub, chat, outbox, quotas, revocations)
    gw = Gateway(settings=settings, logger=logger, broker=broker, store=GatewayStore(redis),
                 hub=hub, limits=limits, quotas=quotas,
                 memory=MemoryGuard(redis, limits.memory_soft_limit), revocations=revocations,
                 edge=edge, chat=chat, boards=ReplayBoards(), archive=ValkeyArchive(redis),
                 lobby_rpc=LobbyRpc(broker, settings.instance),
                 listings=MicroCache(limits.listing_cache_ms / 1000, "/api/tables"),
                 fanout=fanout)

    @broker.subscriber(stream=StreamSub(streams.GW_UPDATES, last_id="$",
                                        max_records=settings.max_records, batch=True),
                       title="gw:updates",
                       description="to every gateway replica: chat_notify, mutes_changed (a "
                       "game's notify / reply: its shard gw:updates:{u}:<k>, read only by the "
                       "gateways watching it)")
    async def on_update(bodies: list[dict[str, Any]]) -> None:
        await gw.on_update(bodies)

    return gw


def create_app(settings: Settings | None = None) -> FastAPI:
    """The gateway's ASGI app (the schema generator and the tests take it from here)."""
    settings = settings or get_settings()
    return app_for(settings, build(settings))


def app_for(settings: Settings, gw: Gateway) -> FastAPI:
    """The HTTP and WebSocket app over the built gateway: its guards, then its routers."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with gw.running(ready=lambda: health.ready(gw)):
            yield

    docs = settings.public_docs
    app = FastAPI(title="Empire Hall", version="1", lifespan=lifespan,
                  description="HTTP API of the Empire Hall gateway. Play happens on /ws.",
                  docs_url="/docs" if docs else None, redoc_url="/redoc" if docs else None,
                  openapi_url="/openapi.json" if docs else None,
                  generate_unique_id_function=lambda route: route.name)  # operationId: the name
    app.state.gateway = gw
    app.mount("/static", web.static_files(), name="static")
    # rate limits per IP / player / sign-up and the body bound (edge/http_guard.py)
    app.add_middleware(HttpGuard, limits=gw.limits, quotas=gw.quotas,
                       secrets=lambda: settings.verify_secrets)
    app.add_middleware(HttpMetrics)  # by route template, refusals of the guard included
    app.add_middleware(SecurityHeaders)  # outermost: CSP and friends on every response
    add_handlers(app, gw.logger)
    app.include_router(web.router)
    app.include_router(health.router)
    if settings.public_metrics:  # off the public port unless the operator enables it
        app.include_router(health.metrics_router)
    for module in (games, accounts, admin, tables, matches, notifications):
        app.include_router(module.router)
    app.include_router(play.router)
    return app


def serve(settings: Settings | None = None) -> None:
    """Run the gateway (``python -m services.gateway``): uvicorn with the guards against slow
    and hostile clients (edge/server.py), drained gradually on SIGTERM."""
    settings = settings or get_settings()
    raise_nofile()  # the soft descriptor limit up to the hard one: the connection cap follows it
    gw = build(settings)
    app = app_for(settings, gw)
    # a connection from an address already over its HTTP rate is answered 429 before any parsing
    cfg = config(settings, gw.limits, app, early=gw.quotas.http_refused_now)
    sock = listening_socket(settings.host, settings.port)
    DrainingServer(cfg, settings.drain_s, gw.hub).run(sockets=[sock])
