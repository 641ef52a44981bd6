"""gateway composition root: HTTP (lobby, matches, results, replays, leaderboards) + one
WebSocket per player. It holds no game state: it relays the watcher's own streams."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from faststream.redis import StreamSub
from redis.exceptions import RedisError

from services.gateway.hub import Hub
from services.gateway.lobby_rpc import LobbyRpc
from services.gateway.replays import ReplayBoards
from services.gateway.ws import Edge
from services.scoring.service import history_key, leaderboard_key, ratings_key
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.rules import registry
from shared.runtime import bus, metrics, tokens
from shared.runtime.jsonutil import loads, text
from shared.runtime.logging import configure_logging
from shared.runtime.outbox import Outbox
from shared.runtime.redis import client
from shared.runtime.settings import get_settings

settings = get_settings()
logger = configure_logging("gateway", settings.log_level, settings.log_json)
broker = bus.make_broker(settings, logger=logger)
redis = client(settings)
hub = Hub(redis)
edge = Edge(settings, hub, broker, Outbox(redis))
boards = ReplayBoards()
lobby_rpc = LobbyRpc(broker, settings.instance)
STATIC = Path(__file__).parent / "static"


@broker.subscriber(stream=StreamSub(streams.GW_UPDATES, last_id="$",
                                    max_records=settings.max_records, batch=True),
                   title="gw:updates", description="fan-out to every gateway replica")
async def on_update(bodies: list[dict[str, Any]]) -> None:
    await hub.deliver_batch(bodies)  # each game of the batch pumped once


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    await broker.start()
    sweep = asyncio.create_task(hub.sweep_loop())
    logger.info("service_started", instance=settings.instance, port=settings.port)
    yield
    sweep.cancel()
    await broker.stop()
    await redis.aclose()


app = FastAPI(title="Empire Hall", version="1", lifespan=lifespan,
              description="HTTP API of the Empire Hall gateway. Play happens on /ws.")
app.mount("/static", StaticFiles(directory=STATIC), name="static")


class HttpError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        self.status, self.code, self.message = status, code, message


@app.exception_handler(HttpError)
async def _http_error(request: Request, exc: HttpError) -> JSONResponse:
    return JSONResponse({"ok": False, "code": exc.code, "message": exc.message},
                        status_code=exc.status)


@app.exception_handler(RedisError)
async def _storage_error(request: Request, exc: RedisError) -> JSONResponse:
    """Storage unreachable (a Valkey restart, a failover): a typed, retryable 503."""
    logger.warning("storage_unavailable", path=request.url.path, error=repr(exc)[:200])
    return JSONResponse({"ok": False, "code": "message/unavailable",
                         "message": "storage is unavailable; retry"}, status_code=503,
                        headers={"Retry-After": "1"})


def identity(authorization: str | None) -> tokens.Identity:
    token = (authorization or "").removeprefix("Bearer ").strip()
    try:
        return tokens.verify(settings.verify_secrets, token, int(time.time() * 1000))
    except tokens.TokenError as exc:
        raise HttpError(401, exc.code, str(exc)) from exc


async def lobby(op: str, body: dict[str, Any], who: tokens.Identity | None) -> dict[str, Any]:
    req = {**body, "op": op}
    if who is not None:
        req.update(player_id=who.player_id, name=who.name)
    try:
        data = await lobby_rpc.request(req, timeout=10.0)
    except TimeoutError as exc:
        raise HttpError(503, "lobby/bad_request", "the lobby did not answer") from exc
    if not data.get("ok"):
        status = 404 if data.get("code") == "lobby/not_found" else 400
        raise HttpError(status, data.get("code", "lobby/bad_request"), data.get("message", ""))
    return data


Auth = Annotated[str | None, Header()]


@app.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@app.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"ok": True, "instance": settings.instance}


@app.get("/readyz")
async def readyz() -> JSONResponse:
    """Readiness: Redis answers and the fan-out subscriber is running."""
    try:
        await redis.ping()
    except Exception:
        return JSONResponse({"ok": False, "reason": "redis"}, status_code=503)
    return JSONResponse({"ok": True, "instance": settings.instance})


@app.get("/metrics", include_in_schema=False)
async def prometheus_metrics() -> Response:
    metrics.WS_CONNECTIONS.set(sum(len(c) for c in hub.by_player.values()))
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")


@app.get("/api/games")
async def games() -> dict[str, Any]:
    out = []
    for name in registry.names():
        g = registry.get(name)
        out.append({"name": name, "title": g.title, "min_seats": g.min_seats,
                    "max_seats": g.max_seats, "rules_version": g.rules_version,
                    "options": g.options_schema()})
    return {"games": out}


@app.post("/api/players")
async def create_player(body: dict[str, Any]) -> dict[str, Any]:
    return await lobby("create_player", {"name": body.get("name", "")}, None)


@app.get("/api/tables")
async def list_tables(authorization: Auth = None) -> dict[str, Any]:
    return await lobby("list_tables", {}, identity(authorization))


@app.post("/api/tables")
async def create_table(body: dict[str, Any], authorization: Auth = None) -> dict[str, Any]:
    return await lobby("create_table", body, identity(authorization))


@app.get("/api/tables/{table_id}")
async def get_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    return await lobby("get_table", {"table_id": table_id}, identity(authorization))


@app.post("/api/tables/{table_id}/join")
async def join_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    return await lobby("join_table", {"table_id": table_id}, identity(authorization))


@app.post("/api/invites/{code}/join")
async def join_invite(code: str, authorization: Auth = None) -> dict[str, Any]:
    return await lobby("join_table", {"invite": code}, identity(authorization))


@app.post("/api/tables/{table_id}/leave")
async def leave_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    return await lobby("leave_table", {"table_id": table_id}, identity(authorization))


@app.post("/api/tables/{table_id}/bots")
async def add_bot(table_id: str, body: dict[str, Any] | None = None,
                  authorization: Auth = None) -> dict[str, Any]:
    return await lobby("add_bot", {"table_id": table_id, **(body or {})},
                       identity(authorization))


@app.post("/api/tables/{table_id}/start")
async def start_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    return await lobby("start_table", {"table_id": table_id}, identity(authorization))


async def _entries(key: str) -> list[dict[str, Any]]:
    out = []
    last = "-"
    while True:
        batch = await redis.xrange(key, min=last, count=1000)
        for i, f in batch:
            out.append({"id": text(i), **loads(f[b"d"])})
        if len(batch) < 1000:
            return out
        last = "(" + text(batch[-1][0])


async def _stage(game_id: str) -> str | None:
    last = await redis.xrevrange(Keys(game_id).spectator, count=1)
    return loads(last[0][1][b"d"]).get("stage") if last else None


@app.get("/api/matches/{game_id}")
async def match(game_id: str) -> dict[str, Any]:
    meta = await hub.meta(game_id)
    if meta is None:
        raise HttpError(404, "game/not_found", "no such game")
    return {**meta, "stage": await _stage(game_id)}


@app.get("/api/matches/{game_id}/record")
async def record(game_id: str) -> dict[str, Any]:
    """The public record; once the game has ended also the full move log (the replay)."""
    meta = await hub.meta(game_id)
    if meta is None:
        raise HttpError(404, "game/not_found", "no such game")
    k = Keys(game_id)
    ended = await _stage(game_id) == "ended"
    return {"game_id": game_id, "game": meta["game"], "players": meta["players"],
            "ended": ended, "record": await _entries(k.record),
            "log": await _entries(k.log) if ended else None}


@app.get("/api/matches/{game_id}/replay")
async def replay_step(game_id: str, step: int = 0, seat: int | None = None) -> dict[str, Any]:
    """A finished game's board after ``step`` moves of its log (0 = the setup), as ``seat``
    saw it (omitted: the spectator's view). Only once the game has ended: then the whole log
    is public, so no step's view carries anything the rules still hide."""
    meta = await hub.meta(game_id)
    if meta is None:
        raise HttpError(404, "game/not_found", "no such game")
    if await _stage(game_id) != "ended":
        raise HttpError(409, "replay/not_ended",
                        "boards of past steps are served once the game has ended")
    if seat is not None and not 0 <= seat < len(meta["players"]):
        raise HttpError(400, "replay/bad_request", f"seat must be 0-{len(meta['players']) - 1}")
    states = await boards.states(game_id, meta, lambda: _entries(Keys(game_id).log))
    if not 0 <= step < len(states):
        raise HttpError(400, "replay/bad_request", f"step must be 0-{len(states) - 1}")
    return {"ok": True, "game_id": game_id, "game": meta["game"], "step": step,
            "steps": len(states) - 1, "seat": seat,
            "view": boards.view(meta["game"], states[step], seat)}


@app.get("/api/matches/{game_id}/result")
async def result(game_id: str) -> dict[str, Any]:
    raw = await redis.get(Keys(game_id).result)
    if raw is None:
        raise HttpError(404, "game/not_found", "no result (yet) for this game")
    return dict(loads(raw))


@app.get("/api/leaderboard/{game}")
async def leaderboard(game: str, limit: int = 50) -> dict[str, Any]:
    ranked = await redis.zrevrange(leaderboard_key(game), 0, max(0, min(limit, 500) - 1),
                                   withscores=True)
    ids = [pid for pid, _ in ranked]
    rows = await redis.hmget(ratings_key(game), ids) if ids else []
    entries = []
    for (pid, score), raw in zip(ranked, rows, strict=True):
        info = loads(raw) if raw else {}
        entries.append({"player_id": pid.decode(), "rating": round(score, 3),
                        "name": info.get("name"), "games": info.get("games"),
                        "wins": info.get("wins"), "bot": info.get("bot")})
    return {"game": game, "entries": entries}


@app.get("/api/players/{player_id}/history")
async def history(player_id: str) -> dict[str, Any]:
    ids = [x.decode() for x in await redis.zrevrange(history_key(player_id), 0, 99)]
    return {"player_id": player_id, "games": ids}


@app.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    await edge.serve(ws)
