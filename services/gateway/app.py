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
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from faststream.redis import StreamSub
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.gateway import erased
from services.gateway.chat import Chat, archive_room, readable_channels
from services.gateway.http_errors import HttpError
from services.gateway.http_guard import HttpGuard
from services.gateway.http_metrics import HttpMetrics
from services.gateway.hub import Hub
from services.gateway.limits import get_limits
from services.gateway.lobby_requests import body_schema, json_object, lobby_request, path_id
from services.gateway.lobby_rpc import LobbyRpc
from services.gateway.memory_guard import MemoryGuard
from services.gateway.quotas import Quotas
from services.gateway.replays import ReplayBoards
from services.gateway.security_headers import SecurityHeaders
from services.gateway.sessions import Revocations, agent
from services.gateway.ws import Edge
from shared.fairness import signing
from shared.protocol import http as hm
from shared.protocol import keys, streams
from shared.protocol import lobby as lm
from shared.protocol.http import typed
from shared.protocol.streams import Keys
from shared.rules import components, registry
from shared.runtime import bus, liveness, metrics, ops, tokens, tracing
from shared.runtime.archive import ValkeyArchive
from shared.runtime.jsonutil import loads, text
from shared.runtime.logging import configure_logging
from shared.runtime.outbox import Outbox
from shared.runtime.redis import client
from shared.runtime.settings import get_settings

settings = get_settings()
logger = configure_logging("gateway", settings.log_level, settings.log_json)
tracing.configure_tracing("gateway", settings.otlp_endpoint)
broker = bus.make_broker(settings, logger=logger)
redis = client(settings)
hub = Hub(redis)
limits = get_limits()
quotas = Quotas(redis, limits, settings.instance)
memory = MemoryGuard(redis, limits.memory_soft_limit)
revocations = Revocations(settings, redis, hub)
edge = Edge(settings, hub, broker, Outbox(redis), limits, quotas, revocations)
chat = Chat(redis, settings, hub, quotas, edge.out.publish)  # table talk (issue 21)
edge.chat = chat
boards = ReplayBoards()
archive = ValkeyArchive(redis)  # finished games once their live keys expire
lobby_rpc = LobbyRpc(broker, settings.instance)
STATIC = Path(__file__).parent / "static"


@broker.subscriber(stream=StreamSub(streams.GW_UPDATES, last_id="$",
                                    max_records=settings.max_records, batch=True),
                   title="gw:updates", description="fan-out to every gateway replica")
async def on_update(bodies: list[dict[str, Any]]) -> None:
    tracing.received(streams.GW_UPDATES, tracing.batch_headers(broker))  # traces end here
    await hub.deliver_batch(bodies)  # each game of the batch pumped once


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    await broker.start()
    sweep = asyncio.create_task(hub.sweep_loop())
    answers = asyncio.create_task(hub.answer_loop())
    chat_sweep = asyncio.create_task(chat.sweep_loop())
    slots = asyncio.create_task(quotas.refresh_loop())
    watch_memory = asyncio.create_task(memory.loop())
    revoked = [asyncio.create_task(revocations.listen()),
               asyncio.create_task(revocations.sweep_loop())]
    ops_server = None
    if settings.metrics_port:  # /metrics and the probes off the public port
        ops_server = await ops.serve(settings.metrics_port, _ready)
    logger.info("service_started", instance=settings.instance, port=settings.port,
                metrics_port=settings.metrics_port, public_metrics=settings.public_metrics)
    yield
    if ops_server is not None:
        await ops_server.wait_closed()
    sweep.cancel()
    answers.cancel()
    chat_sweep.cancel()
    slots.cancel()
    watch_memory.cancel()
    for task in revoked:
        task.cancel()
    await broker.stop()
    await redis.aclose()


_docs = settings.public_docs
app = FastAPI(title="Empire Hall", version="1", lifespan=lifespan,
              description="HTTP API of the Empire Hall gateway. Play happens on /ws.",
              docs_url="/docs" if _docs else None, redoc_url="/redoc" if _docs else None,
              openapi_url="/openapi.json" if _docs else None,
              generate_unique_id_function=lambda route: route.name)  # operationId: the name
app.mount("/static", StaticFiles(directory=STATIC), name="static")
# rate limits per IP / player / sign-up and the body bound (services/gateway/http_guard.py)
app.add_middleware(HttpGuard, limits=limits, quotas=quotas,
                   secrets=lambda: settings.verify_secrets)
app.add_middleware(HttpMetrics)  # by route template, refusals of the guard included
app.add_middleware(SecurityHeaders)  # outermost: CSP and friends on every response


@app.exception_handler(HttpError)
async def _http_error(request: Request, exc: HttpError) -> JSONResponse:
    return JSONResponse({"ok": False, "code": exc.code, "message": exc.message},
                        status_code=exc.status, headers=exc.headers)


@app.exception_handler(StarletteHTTPException)
async def _no_route(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """No such route (404) or method (405): typed like every other refusal."""
    return JSONResponse({"ok": False, "code": "message/malformed",
                         "message": "no such route" if exc.status_code == 404
                         else str(exc.detail)[:200]},
                        status_code=exc.status_code, headers=exc.headers)


@app.exception_handler(RequestValidationError)
async def _bad_parameter(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A path or query parameter of the wrong shape (``limit=1e400``): typed 400."""
    where = ", ".join(".".join(str(x) for x in e.get("loc", ())) for e in exc.errors()[:3])
    return JSONResponse({"ok": False, "code": "message/malformed",
                         "message": f"bad parameter: {where}"[:200]}, status_code=400)


@app.exception_handler(RedisError)
async def _storage_error(request: Request, exc: RedisError) -> JSONResponse:
    """Storage unreachable (a Valkey restart, a failover): a typed, retryable 503."""
    logger.warning("storage_unavailable", path=request.url.path, error=repr(exc)[:200])
    return JSONResponse({"ok": False, "code": "message/unavailable",
                         "message": "storage is unavailable; retry"}, status_code=503,
                        headers={"Retry-After": "1"})


async def identity(authorization: str | None) -> tokens.Identity:
    """The access token's identity: signature (current or previous key), expiry, and its
    session not revoked (services/gateway/sessions.py)."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    try:
        who = tokens.verify(settings.verify_secrets, token, int(time.time() * 1000))
        await revocations.check(who)
    except tokens.TokenError as exc:
        raise HttpError(401, exc.code, str(exc)) from exc
    return who


def stamp(who: tokens.Identity, **fields: Any) -> dict[str, Any]:
    """The fields the gateway sets on a lobby request: the token's identity (and path ids)."""
    return {"player_id": who.player_id, "name": who.name, "session": who.session, **fields}


STATUS = {"lobby/not_found": 404, "auth/bad_credentials": 401, "auth/refresh_invalid": 401,
          "auth/refresh_reused": 401, "auth/revoked_session": 401, "auth/suspended": 403,
          "auth/forbidden": 403, "auth/rate_limited": 429}


async def lobby(req: lm.LobbyRequest) -> dict[str, Any]:
    """Send the validated request (its model's dump, never a client's raw body)."""
    if memory.refuses(req.op):
        raise HttpError(503, "storage/full", "the server is near its storage limit: running "
                        "games go on, new ones wait", headers={"Retry-After": "30"})
    try:
        data = await lobby_rpc.request(req.model_dump(mode="json"), timeout=10.0)
    except TimeoutError as exc:
        raise HttpError(503, "lobby/bad_request", "the lobby did not answer") from exc
    if not data.get("ok"):
        code = data.get("code", "lobby/bad_request")
        message = data.get("message", "")
        headers = None
        if code == "auth/rate_limited":
            digits = "".join(c for c in message.rsplit("retry in", 1)[-1] if c.isdigit())
            headers = {"Retry-After": digits or "60"}
        raise HttpError(STATUS.get(code, 400), code, message, headers=headers)
    return data


Auth = Annotated[str | None, Header()]


@app.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@app.get("/healthz", **typed(hm.Health))
async def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"ok": True, "instance": settings.instance}


async def _not_ready() -> str | None:
    """Why the gateway is not ready (None: ready): Redis answers and the fan-out subscriber
    (gw:updates) and the lobby reply channel are consuming: a gateway whose fan-out died
    would accept sockets and send them nothing."""
    try:
        await redis.ping()
    except Exception:
        return "redis"
    if not liveness.subscribers_running(broker):
        return "fan-out"
    if hub.draining:  # shutting down: the load balancer stops routing new sockets here
        return "draining"
    return None


async def _ready() -> bool:
    return await _not_ready() is None


@app.get("/readyz", **typed(hm.Health))
async def readyz() -> JSONResponse:
    """Readiness (see ``_not_ready``)."""
    reason = await _not_ready()
    if reason is not None:
        return JSONResponse({"ok": False, "reason": reason}, status_code=503)
    return JSONResponse({"ok": True, "instance": settings.instance})


if settings.public_metrics:  # off the public port unless the operator enables it

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics() -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")


@app.get("/api/games", **typed(hm.Games))
async def games() -> dict[str, Any]:
    out = []
    for name in registry.names():
        g = registry.get(name)
        out.append({"name": name, "title": g.title, "min_seats": g.min_seats,
                    "max_seats": g.max_seats, "rules_version": g.rules_version,
                    "options": g.options_schema()})
    return {"games": out}


def _known_game(game: str) -> str:
    if game not in registry.names():
        raise HttpError(404, "game/not_found", "no such game")
    return game


@app.get("/api/games/{game}/components", **typed(hm.Components))
async def game_components(game: str) -> dict[str, Any]:
    """The game's public component data (maps, cards, their text) from its data modules;
    ``reconstructed`` names what is the server's reconstruction (shared/rules/components.py)."""
    return components.components(_known_game(game))


@app.get("/api/games/{game}/rules", **typed(hm.Rules))
async def game_rules(game: str) -> dict[str, Any]:
    """The rulings this server follows for the game (``shared/rules/<game>/rulings.md``,
    markdown) and what of its data is reconstructed."""
    name = _known_game(game)
    markdown = components.rulings(name)
    return {"game": name, "title": registry.get(name).title, "markdown": markdown,
            "reconstructed": components.components(name).get("reconstructed", [])}


@app.post("/api/players", **typed(hm.Session), openapi_extra=body_schema(lm.CreatePlayer, "agent"))
async def create_player(request: Request) -> dict[str, Any]:
    """A guest, signed in at once: ``token`` (access, minutes), ``refresh_token``,
    ``session_id``, ``access_expires_ms``."""
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.CreatePlayer, body, {"agent": agent(request.headers)}))


# -- sessions and accounts (issue #19; docs/protocol.md "Accounts and sessions") ---------


@app.post("/api/session/refresh", **typed(hm.Session),
          openapi_extra=body_schema(lm.Refresh, "agent"))
async def refresh_session(request: Request) -> dict[str, Any]:
    """A new access token and refresh token for a refresh token (which is spent)."""
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.Refresh, body, {"agent": agent(request.headers)}))


@app.post("/api/session/password", **typed(hm.Session),
          openapi_extra=body_schema(lm.PasswordSignIn, "agent"))
async def password_sign_in(request: Request) -> dict[str, Any]:
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.PasswordSignIn, body,
                                     {"agent": agent(request.headers)}))


@app.post("/api/session/passkey/begin", **typed(hm.PasskeyOptions), openapi_extra=body_schema(
    lm.PasskeySignInBegin, required=False))
async def passkey_sign_in_begin(request: Request) -> dict[str, Any]:
    body = await json_object(request, limits, required=False)
    return await lobby(lobby_request(lm.PasskeySignInBegin, body, {}))


@app.post("/api/session/passkey/finish", **typed(hm.Session),
          openapi_extra=body_schema(lm.PasskeySignInFinish, "agent"))
async def passkey_sign_in_finish(request: Request) -> dict[str, Any]:
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.PasskeySignInFinish, body,
                                     {"agent": agent(request.headers)}))


@app.post("/api/session/sign-out", **typed(hm.SignedOut))
async def sign_out(authorization: Auth = None) -> dict[str, Any]:
    """End this session: its refresh token, access tokens and sockets stop."""
    who = await identity(authorization)
    return await lobby(lobby_request(lm.SignOut, {}, stamp(who)))


@app.post("/api/session-keys", **typed(hm.SessionKeyRegistered),
          openapi_extra=body_schema(lm.RegisterSessionKey, "token"))
async def register_session_key(request: Request, authorization: Auth = None
                               ) -> dict[str, Any]:
    """Register this session's Ed25519 public key (body ``{"key": "<64 hex>"}``) for signed
    acts and commits (issue 20 item 4). The bearer token is handed to the lobby as it is: the
    lobby verifies it itself and binds the key to its player (docs/protocol.md "Signed
    commands")."""
    await identity(authorization)
    body = await json_object(request, limits)
    token = (authorization or "").removeprefix("Bearer ").strip()
    return await lobby(lobby_request(lm.RegisterSessionKey, body, {"token": token}))


@app.get("/api/sessions", **typed(hm.Sessions))
async def list_sessions(authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    return await lobby(lobby_request(lm.ListSessions, {}, stamp(who)))


@app.delete("/api/sessions/{session_id}", **typed(hm.Revoked))
async def revoke_session(session_id: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    sid = path_id(session_id, "session")
    return await lobby(lobby_request(lm.RevokeSession, {}, stamp(who, session_id=sid)))


@app.get("/api/me", **typed(hm.Me))
async def me(authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    return await lobby(lobby_request(lm.Me, {}, stamp(who)))


@app.post("/api/account/password", **typed(hm.AccountSet),
          openapi_extra=body_schema(lm.SetPassword, "name", "session"))
async def set_password(request: Request, authorization: Auth = None) -> dict[str, Any]:
    """Upgrade this guest to an account (same player), or change the password."""
    who = await identity(authorization)
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.SetPassword, body, stamp(who)))


@app.post("/api/account/passkeys/begin", **typed(hm.PasskeyOptions))
async def passkey_register_begin(authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    return await lobby(lobby_request(lm.PasskeyRegisterBegin, {}, stamp(who)))


@app.post("/api/account/passkeys/finish", **typed(hm.AccountSet),
          openapi_extra=body_schema(lm.PasskeyRegisterFinish, "name", "session"))
async def passkey_register_finish(request: Request,
                                  authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.PasskeyRegisterFinish, body, stamp(who)))


@app.get("/api/account/export", **typed(hm.Export))
async def export_data(authorization: Auth = None) -> dict[str, Any]:
    """Everything held about the player: profile, credentials (no secrets), sessions,
    ratings and game history."""
    who = await identity(authorization)
    out = await lobby(lobby_request(lm.ExportData, {}, stamp(who)))
    ratings = {}
    for game in registry.names():
        raw = await redis.hmget(keys.ratings(game), [who.player_id])
        if raw and raw[0]:
            ratings[game] = loads(raw[0])
    games = [text(g) for g in await redis.zrevrange(keys.player_history(who.player_id), 0, -1)]
    return {**out, "ratings": ratings, "history": games}


@app.delete("/api/account", **typed(hm.Deleted),
            openapi_extra=body_schema(lm.DeleteAccount, "name", "session"))
async def delete_account(request: Request, authorization: Auth = None) -> dict[str, Any]:
    """Delete the player (body ``{"confirm": "<name>"}``): sessions revoked, credentials
    removed, the name freed; finished games show the seat as "deleted player"."""
    who = await identity(authorization)
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.DeleteAccount, body, stamp(who)))


# -- admin (EMPIRE_ADMINS; every action in the audit log) --------------------------------


@app.post("/api/admin/players/{player_id}/suspend", **typed(hm.Suspended),
          openapi_extra=body_schema(lm.AdminSuspend, "name", "session", "target"))
async def admin_suspend(player_id: str, request: Request,
                        authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    body = await json_object(request, limits)
    pid = path_id(player_id, "player")
    return await lobby(lobby_request(lm.AdminSuspend, body, stamp(who, target=pid)))


@app.post("/api/admin/tables/{table_id}/close", **typed(hm.TableAnswer),
          openapi_extra=body_schema(lm.AdminCloseTable, "name", "session", "table_id"))
async def admin_close_table(table_id: str, request: Request,
                            authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    body = await json_object(request, limits)
    tid = path_id(table_id, "table")
    return await lobby(lobby_request(lm.AdminCloseTable, body, stamp(who, table_id=tid)))


@app.post("/api/admin/games/{game_id}/end", **typed(hm.GameEnding),
          openapi_extra=body_schema(lm.AdminEndGame, "name", "session", "game_id"))
async def admin_end_game(game_id: str, request: Request,
                         authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    body = await json_object(request, limits)
    gid = path_id(game_id, "game")
    return await lobby(lobby_request(lm.AdminEndGame, body, stamp(who, game_id=gid)))


@app.get("/api/admin/audit", **typed(hm.AuditEntries))
async def admin_audit(limit: int = 100, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    return await lobby(lobby_request(lm.AdminAudit, {}, stamp(who, limit=max(1, min(limit,
                                                                                      500)))))


@app.get("/api/tables", **typed(hm.Tables))
async def list_tables(request: Request, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    query = {k: v for k, v in request.query_params.items()
             if k in lm.ListTables.model_fields and k not in ("v", "op", "player_id", "name")}
    out = await lobby(lobby_request(lm.ListTables, query, stamp(who)))
    rows = out.get("tables")
    if isinstance(rows, list):  # a deleted player still seated: one lookup for the page
        gone = await erased.erased(redis, [i for t in rows for i in erased.table_ids(t)])
        out["tables"] = [erased.table(t, gone) for t in rows]
    return out


@app.post("/api/tables", **typed(hm.TableAnswer), openapi_extra=body_schema(lm.CreateTable, "name"))
async def create_table(request: Request, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.CreateTable, body, stamp(who)))


@app.get("/api/tables/{table_id}", **typed(hm.TableAnswer))
async def get_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    out = await lobby(lobby_request(lm.GetTable, {}, stamp(who, table_id=tid)))
    if isinstance(t := out.get("table"), dict):  # a deleted player's seat (a started table)
        out["table"] = erased.table(t, await erased.erased(redis, erased.table_ids(t)))
    return out


@app.post("/api/tables/{table_id}/join", **typed(hm.TableAnswer))
async def join_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    return await lobby(lobby_request(lm.JoinTable, {}, stamp(who, table_id=tid)))


@app.post("/api/invites/{code}/join", **typed(hm.TableAnswer))
async def join_invite(code: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    invite = path_id(code, "invite")
    return await lobby(lobby_request(lm.JoinTable, {}, stamp(who, invite=invite)))


@app.post("/api/tables/{table_id}/leave", **typed(hm.TableAnswer))
async def leave_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    return await lobby(lobby_request(lm.LeaveTable, {}, stamp(who, table_id=tid)))


@app.post("/api/tables/{table_id}/bots", **typed(hm.TableAnswer),
          openapi_extra=body_schema(lm.AddBot, "name", "table_id", required=False))
async def add_bot(table_id: str, request: Request, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    body = await json_object(request, limits, required=False)
    return await lobby(lobby_request(lm.AddBot, body, stamp(who, table_id=tid)))


@app.post("/api/tables/{table_id}/kick", **typed(hm.TableAnswer),
          openapi_extra=body_schema(lm.KickPlayer, "name", "table_id"))
async def kick_player(table_id: str, request: Request,
                      authorization: Auth = None) -> dict[str, Any]:
    """The host removes a seated player (body ``{"target": "<player id>"}``) before the
    start; a removed player may not join again."""
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    body = await json_object(request, limits)
    return await lobby(lobby_request(lm.KickPlayer, body, stamp(who, table_id=tid)))


@app.post("/api/tables/{table_id}/start", **typed(hm.TableAnswer))
async def start_table(table_id: str, authorization: Auth = None) -> dict[str, Any]:
    who = await identity(authorization)
    tid = path_id(table_id, "table")
    return await lobby(lobby_request(lm.StartTable, {}, stamp(who, table_id=tid)))


async def anonymized(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows naming players (``player_id``, ``name``) with deleted players' seats shown as
    "deleted player": the stored records stay as they were, so verification holds
    (services/gateway/erased.py)."""
    return erased.seats(rows, await erased.erased(redis, erased.row_ids(rows)))


async def anonymized_record(rec: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public record with deleted players' seats anonymized in ``game_created`` (the
    seats, not the players, are what commitments and draws bind: verification holds)."""
    return erased.record(rec, await erased.erased(redis, erased.record_ids(rec)))


async def _anon_meta(doc: dict[str, Any]) -> dict[str, Any]:
    players = doc.get("players")
    if isinstance(players, list):
        return {**doc, "players": await anonymized(players)}
    return doc


async def anonymized_chat(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages (``player_id``, ``name``, ``text``…) with a deleted author anonymized."""
    return await anonymized(lines)


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


async def _game(game_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(meta, archived document or None). A finished game is served from its archive once
    archived (whole and immutable: its live keys expire soon after); others from the live
    keys. 404 when neither knows the game."""
    archived = await archive.get(game_id)
    if archived is not None:
        return archived.get("meta") or {"game_id": game_id, "game": archived["game"],
                                        "options": archived.get("options", {}),
                                        "players": archived["players"],
                                        "table_id": archived.get("table_id")}, archived
    meta = await hub.meta(game_id)
    if meta is None:
        raise HttpError(404, "game/not_found", "no such game")
    return meta, None


@app.get("/api/matches/{game_id}", **typed(hm.Match))
async def match(game_id: str) -> dict[str, Any]:
    meta = await hub.meta(game_id)
    if meta is not None and (stage := await _stage(game_id)) is not None:
        return await _anon_meta({**meta, "stage": stage})
    meta, archived = await _game(game_id)  # archived, or live keys half gone
    return await _anon_meta({**meta, "stage": "ended" if archived is not None
                             else await _stage(game_id)})


@app.get("/api/matches/{game_id}/record", **typed(hm.Record))
async def record(game_id: str) -> dict[str, Any]:
    """The public record; once the game has ended also the full move log (the replay): its
    public copy ``g:{id}:publog``, which the adjudicator writes in the step that ends the game
    (the private ``g:{id}:log`` is out of the gateway's reach: deploy/valkey/users.acl.template)."""
    meta, archived = await _game(game_id)
    if archived is not None:
        return {"game_id": game_id, "game": meta["game"],
                "players": await anonymized(meta["players"]),
                "ended": True, "record": await anonymized_record(archived["record"]),
                "log": archived["log"]}
    k = Keys(game_id)
    ended = await _stage(game_id) == "ended"
    return {"game_id": game_id, "game": meta["game"],
            "players": await anonymized(meta["players"]),
            "ended": ended, "record": await anonymized_record(await _entries(k.record)),
            "log": await _entries(k.publog) if ended else None}


@app.get("/api/matches/{game_id}/audit", **typed(hm.Audit))
async def audit(game_id: str) -> dict[str, Any]:
    """A finished game's audit bundle: the record document (record and move log) plus the
    game's options, rules version and reveal entries, the escrow key its rounds' openings were
    sealed to (``escrow_key``, from the record's round_opened entries; null if none) and
    ``signatures``, the session keys each seat's signed commands use (seat -> keys).
    ``python -m shared.fairness.verify bundle.json`` and the replay viewer take it as it is
    (docs/fairness.md)."""
    meta, archived = await _game(game_id)
    if archived is not None:
        rec, log = archived["record"], archived["log"]
    elif await _stage(game_id) == "ended":
        k = Keys(game_id)
        rec, log = await _entries(k.record), await _entries(k.publog)
    else:
        raise HttpError(409, "replay/not_ended", "the audit bundle is served once the game "
                        "has ended")
    rec = await anonymized_record(rec)
    created: dict[str, Any] = next((e for e in rec if e.get("type") == "game_created"), {})
    return {"audit": 1, "game_id": game_id, "game": meta["game"],
            "players": await anonymized(meta["players"]),
            "ended": True, "options": created.get("options", meta.get("options", {})),
            "rules_version": created.get("rules_version"), "record": rec, "log": log,
            "reveals": [e for e in rec if e.get("type") in ("round_revealed", "seed_revealed")],
            "escrow_key": next((e["escrow_key"] for e in rec if e.get("type") == "round_opened"
                                and e.get("escrow_key") is not None), None),
            "signatures": signing.keys_by_seat(rec, log)}


@app.get("/api/matches/{game_id}/replay", **typed(hm.ReplayStep))
async def replay_step(game_id: str, step: int = 0, seat: int | None = None) -> dict[str, Any]:
    """A finished game's board after ``step`` moves of its log (0 = the setup), as ``seat``
    saw it (omitted: the spectator's view). Only once the game has ended: then the whole log
    is public, so no step's view carries anything the rules still hide."""
    meta, archived = await _game(game_id)
    if archived is None and await _stage(game_id) != "ended":
        raise HttpError(409, "replay/not_ended",
                        "boards of past steps are served once the game has ended")
    if seat is not None and not 0 <= seat < len(meta["players"]):
        raise HttpError(400, "replay/bad_request", f"seat must be 0-{len(meta['players']) - 1}")

    async def load_log() -> list[dict[str, Any]]:
        if archived is not None:
            return list(archived["log"])
        return await _entries(Keys(game_id).publog)

    states = await boards.states(game_id, meta, load_log)
    if not 0 <= step < len(states):
        raise HttpError(400, "replay/bad_request", f"step must be 0-{len(states) - 1}")
    return {"ok": True, "game_id": game_id, "game": meta["game"], "step": step,
            "steps": len(states) - 1, "seat": seat,
            "view": boards.view(meta["game"], states[step], seat)}


@app.get("/api/matches/{game_id}/chat", **typed(hm.MatchChat))
async def match_chat(game_id: str, authorization: Auth = None) -> dict[str, Any]:
    """The game's chat channels the caller may read: a player the table's (before the start)
    and the seats'; anyone else, where spectators are allowed, the spectators'. From the live
    channels, or the game's archive once archived. Chat is never part of the record, the audit
    bundle or what ``shared.fairness.verify`` checks."""
    who = await identity(authorization)
    meta, archived = await _game(game_id)
    channels = readable_channels(meta, who.player_id)
    if not channels:
        raise HttpError(403, "chat/not_member", "only this game's players may read its chat")
    if archived is not None:
        kept = archived.get("chat") or {}
        out = {c: list(kept.get(c, [])) for c in channels}
    else:
        out = {c: await chat.lines(archive_room(meta, c).key) for c in channels}
    return {"ok": True, "game_id": game_id,
            "chat": {c: await anonymized_chat(lines) for c, lines in out.items()}}


@app.get("/api/matches/{game_id}/result", **typed(hm.Result))
async def result(game_id: str) -> dict[str, Any]:
    raw = await redis.get(Keys(game_id).result)
    if raw is not None:
        return await _anon_meta(dict(loads(raw)))
    archived = await archive.get(game_id)
    if archived is None or archived.get("result") is None:
        raise HttpError(404, "game/not_found", "no result (yet) for this game")
    return await _anon_meta(dict(archived["result"]))


@app.get("/api/leaderboard/{game}", **typed(hm.Leaderboard))
async def leaderboard(game: str, limit: int = 50) -> dict[str, Any]:
    ranked = await redis.zrevrange(keys.leaderboard(game), 0, max(0, min(limit, 500) - 1),
                                   withscores=True)
    ids = [pid for pid, _ in ranked]
    rows = await redis.hmget(keys.ratings(game), ids) if ids else []
    entries = []
    for (pid, score), raw in zip(ranked, rows, strict=True):
        info = loads(raw) if raw else {}
        entries.append({"player_id": pid.decode(), "rating": round(score, 3),
                        "name": info.get("name"), "games": info.get("games"),
                        "wins": info.get("wins"), "bot": info.get("bot")})
    # a deleted player's rows are removed at deletion (services/lobby/accounts.py); one
    # rated meanwhile (a game that ended after the deletion) is left out here
    gone = await erased.erased(redis, erased.row_ids(entries))
    return {"game": game, "entries": [e for e in entries if e["player_id"] not in gone]}


@app.get("/api/players/{player_id}/history", **typed(hm.History))
async def history(player_id: str) -> dict[str, Any]:
    """The player's last 100 games, newest first (none for a deleted player: the lobby
    removes the list at deletion, and a game rated after it is not listed)."""
    if await erased.erased(redis, [player_id]):
        return {"player_id": player_id, "games": []}
    ids = [x.decode() for x in await redis.zrevrange(keys.player_history(player_id), 0, 99)]
    return {"player_id": player_id, "games": ids}


@app.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    await edge.serve(ws)
