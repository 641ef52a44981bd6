"""Tables in the lobby: list, create, look, join (by id or invite), leave, bots, kick, start.
A deleted player still seated shows as "deleted player" (services/gateway/fanout/erased.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from services.gateway.fanout import erased
from services.gateway.lobby.requests import body_schema, json_object, lobby_request, path_id
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import stamp
from shared.protocol import http as hm
from shared.protocol import lobby as lm
from shared.protocol.http import typed

router = APIRouter()


@router.get("/api/tables", **typed(hm.Tables))
async def list_tables(request: Request, gw: Gw, authorization: Auth = None) -> Response:
    """The same for every player: served from this replica's micro-cache
    (EMPIRE_LISTING_CACHE_MS, services/gateway/edge/micro_cache.py), one lobby RPC per query and
    window (the answer as sent, checked against its schema once per window)."""
    who = await gw.identity(authorization)
    query = {k: v for k, v in request.query_params.items()
             if k in lm.ListTables.model_fields and k not in ("v", "op", "player_id", "name")}
    req = lobby_request(lm.ListTables, query, stamp(who))  # a bad query answers 4xx here

    async def listing() -> bytes:
        out = await gw.lobby(req)
        rows = out.get("tables")
        if isinstance(rows, list):  # a deleted player still seated: one lookup for the page
            gone = await gw.store.erased([i for t in rows for i in erased.table_ids(t)])
            out["tables"] = [erased.table(t, gone) for t in rows]
        # what FastAPI would send for the response model (typed(): unset defaults left out)
        return hm.Tables.model_validate(out).model_dump_json(exclude_unset=True).encode()

    key = (req.limit, req.cursor, req.live_limit, req.live_cursor)
    return Response(await gw.listings.get(key, listing), media_type="application/json")


@router.post("/api/tables", **typed(hm.TableAnswer),
             openapi_extra=body_schema(lm.CreateTable, "name"))
async def create_table(request: Request, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.CreateTable, body, stamp(who)))


@router.get("/api/tables/{table_id}", **typed(hm.TableAnswer))
async def get_table(table_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    out = await gw.lobby(lobby_request(lm.GetTable, {}, stamp(who, table_id=tid)))
    if isinstance(t := out.get("table"), dict):  # a deleted player's seat (a started table)
        out["table"] = erased.table(t, await gw.store.erased(erased.table_ids(t)))
    return out


@router.post("/api/tables/{table_id}/join", **typed(hm.TableAnswer))
async def join_table(table_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    return await gw.lobby(lobby_request(lm.JoinTable, {}, stamp(who, table_id=tid)))


@router.post("/api/invites/{code}/join", **typed(hm.TableAnswer))
async def join_invite(code: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    invite = path_id(code, "invite")
    return await gw.lobby(lobby_request(lm.JoinTable, {}, stamp(who, invite=invite)))


@router.post("/api/tables/{table_id}/leave", **typed(hm.TableAnswer))
async def leave_table(table_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    return await gw.lobby(lobby_request(lm.LeaveTable, {}, stamp(who, table_id=tid)))


@router.post("/api/tables/{table_id}/bots", **typed(hm.TableAnswer),
             openapi_extra=body_schema(lm.AddBot, "name", "table_id", required=False))
async def add_bot(table_id: str, request: Request, gw: Gw,
                  authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    body = await json_object(request, gw.limits, required=False)
    return await gw.lobby(lobby_request(lm.AddBot, body, stamp(who, table_id=tid)))


@router.post("/api/tables/{table_id}/kick", **typed(hm.TableAnswer),
             openapi_extra=body_schema(lm.KickPlayer, "name", "table_id"))
async def kick_player(table_id: str, request: Request, gw: Gw,
                      authorization: Auth = None) -> dict[str, Any]:
    """The host removes a seated player (body ``{"target": "<player id>"}``) before the
    start; a removed player may not join again."""
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.KickPlayer, body, stamp(who, table_id=tid)))


@router.post("/api/tables/{table_id}/start", **typed(hm.TableAnswer))
async def start_table(table_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    tid = path_id(table_id, "table")
    return await gw.lobby(lobby_request(lm.StartTable, {}, stamp(who, table_id=tid)))
