"""Players, sessions and accounts (docs/protocol.md "Accounts and sessions"):
each route validates its body into the lobby's request model and relays it to the lobby."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from services.gateway.auth.sessions import agent
from services.gateway.edge.client_ip import client_ip
from services.gateway.lobby.requests import body_schema, json_object, lobby_request, path_id
from services.gateway.routes import notifications
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import stamp
from shared.protocol import http as hm
from shared.protocol import lobby as lm
from shared.protocol.http import typed
from shared.rules import registry

router = APIRouter()


@router.post("/api/players", **typed(hm.Session),
             openapi_extra=body_schema(lm.CreatePlayer, "agent"))
async def create_player(request: Request, gw: Gw) -> dict[str, Any]:
    """A guest, signed in at once: ``token`` (access, minutes), ``refresh_token``,
    ``session_id``, ``access_expires_ms``."""
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.CreatePlayer, body, {"agent": agent(request.headers)}))


@router.post("/api/session/refresh", **typed(hm.Session),
             openapi_extra=body_schema(lm.Refresh, "agent"))
async def refresh_session(request: Request, gw: Gw) -> dict[str, Any]:
    """A new access token and refresh token for a refresh token (which is spent)."""
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.Refresh, body, {"agent": agent(request.headers)}))


@router.post("/api/session/password", **typed(hm.Session),
             openapi_extra=body_schema(lm.PasswordSignIn, "agent"))
async def password_sign_in(request: Request, gw: Gw) -> dict[str, Any]:
    """Failures slow the address that makes them (per name and address, per address), never
    the right password from another address."""
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.PasswordSignIn, body, {
        "agent": agent(request.headers),
        "address": client_ip(request.scope, gw.limits.trusted)}))


@router.post("/api/session/passkey/begin", **typed(hm.PasskeyOptions),
             openapi_extra=body_schema(lm.PasskeySignInBegin, required=False))
async def passkey_sign_in_begin(request: Request, gw: Gw) -> dict[str, Any]:
    body = await json_object(request, gw.limits, required=False)
    return await gw.lobby(lobby_request(lm.PasskeySignInBegin, body, {}))


@router.post("/api/session/passkey/finish", **typed(hm.Session),
             openapi_extra=body_schema(lm.PasskeySignInFinish, "agent"))
async def passkey_sign_in_finish(request: Request, gw: Gw) -> dict[str, Any]:
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.PasskeySignInFinish, body,
                                        {"agent": agent(request.headers)}))


@router.post("/api/session/sign-out", **typed(hm.SignedOut))
async def sign_out(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """End this session: its refresh token, access tokens and sockets stop."""
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.SignOut, {}, stamp(who)))


@router.post("/api/session-keys", **typed(hm.SessionKeyRegistered),
             openapi_extra=body_schema(lm.RegisterSessionKey, "token"))
async def register_session_key(request: Request, gw: Gw, authorization: Auth = None
                               ) -> dict[str, Any]:
    """Register this session's Ed25519 public key (body ``{"key": "<64 hex>"}``) for signed
    acts and commits. The bearer token is handed to the lobby as it is: the
    lobby verifies it itself and binds the key to its player (docs/protocol.md "Signed
    commands")."""
    await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    token = (authorization or "").removeprefix("Bearer ").strip()
    return await gw.lobby(lobby_request(lm.RegisterSessionKey, body, {"token": token}))


@router.get("/api/sessions", **typed(hm.Sessions))
async def list_sessions(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.ListSessions, {}, stamp(who)))


@router.delete("/api/sessions/{session_id}", **typed(hm.Revoked))
async def revoke_session(session_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    sid = path_id(session_id, "session")
    return await gw.lobby(lobby_request(lm.RevokeSession, {}, stamp(who, session_id=sid)))


@router.get("/api/me", **typed(hm.Me))
async def me(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.Me, {}, stamp(who)))


@router.post("/api/account/password", **typed(hm.AccountSet),
             openapi_extra=body_schema(lm.SetPassword, "name", "session"))
async def set_password(request: Request, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """Upgrade this guest to an account (same player), or change the password."""
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.SetPassword, body, stamp(who)))


@router.post("/api/account/passkeys/begin", **typed(hm.PasskeyOptions))
async def passkey_register_begin(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.PasskeyRegisterBegin, {}, stamp(who)))


@router.post("/api/account/passkeys/finish", **typed(hm.AccountSet),
             openapi_extra=body_schema(lm.PasskeyRegisterFinish, "name", "session"))
async def passkey_register_finish(request: Request, gw: Gw,
                                  authorization: Auth = None) -> dict[str, Any]:
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    return await gw.lobby(lobby_request(lm.PasskeyRegisterFinish, body, stamp(who)))


@router.get("/api/account/export", **typed(hm.Export))
async def export_data(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """Everything held about the player: profile, credentials (no secrets), sessions,
    ratings and game history."""
    who = await gw.identity(authorization)
    out = await gw.lobby(lobby_request(lm.ExportData, {}, stamp(who)))
    ratings = {}
    for game in registry.names():
        if (rating := await gw.store.rating(game, who.player_id)) is not None:
            ratings[game] = rating
    return {**out, "ratings": ratings, "history": await gw.store.history(who.player_id),
            "notifications": await notifications.held(gw, who.player_id)}


@router.delete("/api/account", **typed(hm.Deleted),
               openapi_extra=body_schema(lm.DeleteAccount, "name", "session"))
async def delete_account(request: Request, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """Delete the player (body ``{"confirm": "<name>"}``): sessions revoked, credentials
    removed, the name freed; finished games show the seat as "deleted player"."""
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    out = await gw.lobby(lobby_request(lm.DeleteAccount, body, stamp(who)))
    await notifications.forget(gw, who.player_id)  # its address and webhook go too
    return out
