"""Notification settings and the links in the notifier's mails (docs/protocol.md
"Notifications"): each route relays to the notifier on ``notify:rpc`` (services/notifier/
prefs.py), which holds the settings, and answers with its reply or its typed refusal."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from services.gateway.edge.http_errors import HttpError
from services.gateway.lobby.requests import json_object
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import Gateway
from shared.protocol import http as hm
from shared.protocol import streams
from shared.protocol.http import typed

router = APIRouter()
STATUS = {"notify/mail_off": 409, "notify/capped": 429, "notify/unavailable": 503}
TOKEN_MAX = 200


async def ask(gw: Gateway, body: dict[str, Any]) -> dict[str, Any]:
    try:
        data = await gw.lobby_rpc.request(body, timeout=10.0, stream=streams.NOTIFY_RPC)
    except TimeoutError as exc:
        raise HttpError(503, "notify/unavailable", "the notifier did not answer") from exc
    if not data.get("ok"):
        code = str(data.get("code", "notify/bad_request"))
        raise HttpError(STATUS.get(code, 400), code, str(data.get("message", "")))
    return data


async def held(gw: Gateway, player_id: str) -> dict[str, Any] | None:
    """What the notifier holds about a player (the account export): None if it did not
    answer."""
    try:
        data = await ask(gw, {"op": "notify_get", "player_id": player_id})
    except HttpError:
        return None
    return {k: data[k] for k in ("email", "email_verified", "email_turns", "webhook_url")}


async def forget(gw: Gateway, player_id: str) -> None:
    """Tell the notifier to forget a deleted player's settings. The request waits in its
    stream until a notifier takes it, so a notifier that is down forgets them on its
    return; the account's deletion does not wait for that."""
    try:
        await gw.lobby_rpc.request({"op": "notify_forget", "player_id": player_id},
                                   timeout=2.0, stream=streams.NOTIFY_RPC)
    except TimeoutError:
        gw.logger.warning("notify_forget_pending", player_id=player_id)


def _token(token: str) -> str:
    if not token or len(token) > TOKEN_MAX:
        raise HttpError(400, "notify/bad_token", "not a valid link")
    return token


@router.get("/api/me/notifications", **typed(hm.Notifications))
async def get_notifications(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """The caller's address (and whether it is confirmed), turn mails on or off, webhook URL,
    and whether this server mails at all (``mail_enabled``)."""
    who = await gw.identity(authorization)
    return await ask(gw, {"op": "notify_get", "player_id": who.player_id})


@router.put("/api/me/notifications", **typed(hm.Notifications), openapi_extra={
    "requestBody": {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "additionalProperties": False, "properties": {
            "email": {"type": ["string", "null"]}, "email_turns": {"type": "boolean"},
            "webhook_url": {"type": ["string", "null"]}}}}}}})
async def put_notifications(request: Request, gw: Gw, authorization: Auth = None
                            ) -> dict[str, Any]:
    """Set any of ``email`` (stored unconfirmed; one verification mail goes to it; null
    removes it), ``email_turns`` and ``webhook_url`` (https, a public address; null removes
    it; the answer that sets it carries its signing secret, once)."""
    who = await gw.identity(authorization)
    body = await json_object(request, gw.limits)
    return await ask(gw, {"op": "notify_put", "player_id": who.player_id, "name": who.name,
                          "fields": body})


# the two links a mail carries are for browsers (a redirect, a page), not in the API schema
@router.get("/api/me/notifications/verify", include_in_schema=False)
async def verify_email(gw: Gw, token: str = "") -> RedirectResponse:
    """The verification mail's link: confirms the address, then sends the browser to the
    page (no sign-in needed: the token is the proof)."""
    await ask(gw, {"op": "notify_verify", "token": _token(token)})
    return RedirectResponse("/?notice=email-verified#/account", status_code=303)


UNSUBSCRIBE_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Empire Hall: turn mails</title></head><body>
<form method="post"><p>Stop the "your turn" mails to this address?</p>
<button type="submit">Unsubscribe</button></form></body></html>"""


@router.get("/api/notifications/unsubscribe", include_in_schema=False)
async def unsubscribe_page(token: str = "") -> HTMLResponse:
    """The link in a mail's body: a page with one button (a GET changes nothing, so a mail
    scanner that follows links unsubscribes nobody; RFC 8058)."""
    _token(token)
    return HTMLResponse(UNSUBSCRIBE_PAGE)


@router.post("/api/notifications/unsubscribe", **typed(hm.Unsubscribed))
async def unsubscribe(gw: Gw, token: str = "") -> dict[str, Any]:
    """One-click unsubscribe (``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, RFC
    8058): the signed token in the URL names the player; their turn mails stop."""
    return await ask(gw, {"op": "notify_unsubscribe", "token": _token(token)})
