"""ASGI middleware in front of every HTTP route and the WebSocket handshake: the rate limits
of services/gateway/edge/quotas.py and the request body bound.

* Per client IP (services/gateway/edge/client_ip.py): every request and WebSocket handshake
  (EMPIRE_HTTP_PER_S / _BURST) and sign-ups and sign-ins (EMPIRE_SIGNUP_PER_MIN / _BURST:
  guests, password and passkey sign-in, refresh; the lobby also counts failed sign-ins per
  account name); addresses in
  EMPIRE_RATE_EXEMPT_IPS and requests with a bot's token skip these.
* Per player, when the request carries a valid token: EMPIRE_TOKEN_PER_S / _BURST.
* A refusal is HTTP 429 ``message/rate_limited`` with Retry-After (a refused handshake too).
* Bodies: over EMPIRE_HTTP_MAX_BODY_BYTES, HTTP 413 ``message/too_large``, declared
  (Content-Length) or streamed; the body is never read past the bound.

/healthz, /readyz and /metrics are never limited (probes and scrapers).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.edge import metrics as edge_metrics
from services.gateway.edge.client_ip import client_ip
from services.gateway.edge.limits import GatewayLimits
from services.gateway.edge.quotas import Quotas, Verdict
from shared.runtime import tokens

PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
SIGN_IN = frozenset({"/api/players", "/api/session/password", "/api/session/passkey/begin",
                     "/api/session/passkey/finish"})
TOKEN_PROTOCOL = "empire.token."


class BodyTooLarge(Exception):
    pass


def error_response(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None) -> tuple[Message, Message]:
    body = orjson.dumps({"ok": False, "code": code, "message": message})
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return ({"type": "http.response.start", "status": status, "headers": raw},
            {"type": "http.response.body", "body": body})


class HttpGuard:
    def __init__(self, app: ASGIApp, limits: GatewayLimits, quotas: Quotas | None,
                 token_keys: Callable[[], dict[str, Ed25519PublicKey]]) -> None:
        self.app = app
        self.limits = limits
        self.quotas = quotas
        self.token_keys = token_keys

    def _player(self, scope: Scope) -> str | None:
        """The player id of a valid token on the request (header; the WebSocket's
        subprotocol offer), else None (the route answers a bad token itself; a token sent in
        the first frame is not seen here, one in the URL is refused by the WebSocket)."""
        token = ""
        if scope["type"] == "http":
            for name, value in scope.get("headers", ()):
                if name == b"authorization":
                    token = value.decode("latin-1").removeprefix("Bearer ").strip()
        else:
            offered = [str(p) for p in scope.get("subprotocols") or []]
            token = next((p[len(TOKEN_PROTOCOL):] for p in offered
                          if p.startswith(TOKEN_PROTOCOL)), "")
        if not token:
            return None
        try:
            return tokens.verify(self.token_keys(), token, int(time.time() * 1000)).player_id
        except tokens.TokenError:
            return None

    async def _verdict(self, scope: Scope) -> Verdict | None:
        assert self.quotas is not None
        ip = client_ip(scope, self.limits.trusted)
        player = self._player(scope)
        bot = player is not None and player.startswith("b-")
        # every request counts against its address's HTTP rate first, a refused sign-up too:
        # so a sign-up flood past that rate is refused as its connections are accepted
        # (services/gateway/edge/server.py), like any other flood
        if not bot:
            v = await self.quotas.http(ip)
            if not v.ok:
                return v
        if scope["type"] == "http" and scope["method"] == "POST" \
                and scope["path"] in SIGN_IN:
            v = await self.quotas.signup(ip)
            if not v.ok:
                return v
        if player is not None and scope["type"] == "http":
            v = await self.quotas.player(player)
            if not v.ok:
                return v
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in PROBES:
            await self.app(scope, receive, send)
            return
        if self.quotas is not None and self.limits.rate_limits:
            refused = await self._verdict(scope)
            if refused is not None:
                await self._refuse(scope, send, refused)
                return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        await self._bounded(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, v: Verdict) -> None:
        """The typed 429. An HTTP request's connection is closed after it (``Connection:
        close``): its body is never read, and a client over its rate comes back on a new
        connection, which the server refuses as it is accepted while the address is still
        over its HTTP rate (services/gateway/edge/server.py): about 0.12 ms of the gateway's CPU
        instead of ~0.25 ms for a request parsed on a kept-alive connection."""
        headers = {"Retry-After": str(v.retry_after_s)}
        if scope["type"] == "http":
            headers["Connection"] = "close"
        start, body = error_response(429, "message/rate_limited",
                                     f"too many requests ({v.limit}); retry in "
                                     f"{v.retry_after_s} s", headers)
        if scope["type"] == "websocket":  # a handshake refused with an HTTP answer
            start = {**start, "type": "websocket.http.response.start"}
            body = {**body, "type": "websocket.http.response.body"}
        await send(start)
        await send(body)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limits.http_max_body_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.strip().isdigit() and int(value) > limit:
                await self._too_large(send)
                return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge()
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:
            if started:
                raise
            await self._too_large(send)

    async def _too_large(self, send: Send) -> None:
        edge_metrics.REFUSED_INPUT.labels("too_large").inc()
        start, body = error_response(
            413, "message/too_large",
            f"request bodies are limited to {self.limits.http_max_body_bytes} bytes")
        # no "Connection: close": closing with the body unread would reset the socket before
        # the client reads the answer; the server discards the rest of the body (bounded by
        # EMPIRE_HTTP_BODY_TIMEOUT_S)
        await send(start)
        await send(body)
