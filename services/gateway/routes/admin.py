"""Admin actions (EMPIRE_ADMINS; the lobby checks the role and writes every action to the
audit log)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from services.gateway.lobby.requests import body_schema, json_object, lobby_request, path_id
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import stamp
from shared.protocol import http as hm
from shared.protocol import lobby as lm
from shared.protocol.http import typed

router = APIRouter()


@router.post("/api/admin/players/{player_id}/suspend", **typed(hm.Suspended),
             openapi_extra=body_schema(lm.AdminSuspend, "name", "session", "target"))
async def admin_suspend(player_id: str, request: Request, gw: Gw,
                        authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    pid = path_id(player_id, "player")
    return await gw.lobby(lobby_request(lm.AdminSuspend, body, stamp(who, target=pid)))


@router.post("/api/admin/tables/{table_id}/close", **typed(hm.TableAnswer),
             openapi_extra=body_schema(lm.AdminCloseTable, "name", "session", "table_id"))
async def admin_close_table(table_id: str, request: Request, gw: Gw,
                            authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    tid = path_id(table_id, "table")
    return await gw.lobby(lobby_request(lm.AdminCloseTable, body, stamp(who, table_id=tid)))


@router.post("/api/admin/games/{game_id}/end", **typed(hm.GameEnding),
             openapi_extra=body_schema(lm.AdminEndGame, "name", "session", "game_id"))
async def admin_end_game(game_id: str, request: Request, gw: Gw,
                         authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    gid = path_id(game_id, "game")
    return await gw.lobby(lobby_request(lm.AdminEndGame, body, stamp(who, game_id=gid)))


@router.get("/api/admin/audit", **typed(hm.AuditEntries))
async def admin_audit(gw: Gw, limit: int = 100, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.AdminAudit, {}, stamp(who, limit=max(1, min(limit,
                                                                                         500)))))
