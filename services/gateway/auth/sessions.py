"""The gateway's side of sessions (the lobby owns them: services/lobby/accounts.py).

* An access token names its session; once the lobby revokes the session it leaves
  ``lobby:rev:<sid>`` (for as long as that session's last access token can live), and
  ``Revocations.check`` refuses the token (``auth/revoked_session``, HTTP 401 / close 4401).
* Open WebSockets of a revoked session close within seconds: the lobby publishes the session
  id on ``lobby:revoked`` (``Revocations.listen``) and, in case a message was missed (a
  Valkey restart, a broken subscription), ``Revocations.sweep_loop`` re-checks the sessions of
  every open socket every EMPIRE_REVOCATION_SWEEP_S.
* ``origin_allowed``: the WebSocket's ``Origin`` against EMPIRE_WS_ORIGINS (empty: the page's
  own origin). No Origin (a program, not a browser) is allowed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import structlog

from services.gateway.fanout.hub import Hub
from services.gateway.ports import RedisClient
from shared.protocol import keys
from shared.runtime import tokens
from shared.runtime.jsonutil import text
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")

# services/lobby/accounts.py publishes revoked session ids here
REVOKED_CHANNEL = keys.LOBBY_REVOKED_CHANNEL
SESSION_REVOKED = 4401  # close code, reason "auth/revoked_session"
BAD_ORIGIN = 4403  # close code after a typed auth/bad_origin


def revoked_key(sid: str) -> str:
    return keys.lobby_revoked(sid)


class Revocations:
    def __init__(self, settings: Settings, redis: RedisClient, hub: Hub) -> None:
        self.settings = settings
        self.redis = redis
        self.hub = hub

    async def check(self, ident: tokens.Identity) -> None:
        """Raise TokenError(auth/revoked_session) when the token's session was revoked."""
        if ident.session and await self.redis.get(revoked_key(ident.session)) is not None:
            raise tokens.TokenError("auth/revoked_session", "this session was signed out or "
                                    "revoked; sign in again")

    def close(self, sid: str) -> int:
        n = self.hub.end_session(sid, SESSION_REVOKED, "auth/revoked_session")
        if n:
            log.info("session_sockets_closed", session=sid[:6], sockets=n)
        return n

    async def sweep(self) -> int:
        """Close the open sockets whose session was revoked; returns how many sessions."""
        sids = sorted(self.hub.sessions())
        if not sids:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for sid in sids:
                pipe.get(revoked_key(sid))
            found = await pipe.execute()
        gone = [sid for sid, hit in zip(sids, found, strict=True) if hit is not None]
        for sid in gone:
            self.close(sid)
        return len(gone)

    async def sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.revocation_sweep_s)
            try:
                await self.sweep()
            except Exception as exc:  # Valkey away: the next sweep tries again
                log.warning("revocation_sweep_failed", error=repr(exc)[:200])

    async def listen(self) -> None:
        """Close a revoked session's sockets as soon as the lobby announces it."""
        while True:
            pubsub = None
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                await pubsub.subscribe(REVOKED_CHANNEL)
                while True:
                    msg = await pubsub.get_message(timeout=5.0)
                    if msg is not None and msg.get("type") == "message":
                        self.close(text(msg["data"])[:64])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # resubscribe shortly; the sweep covers the gap
                log.warning("revocation_listen_failed", error=repr(exc)[:200])
                await asyncio.sleep(self.settings.read_retry_s)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]


def origin_allowed(settings: Settings, scope: Mapping[str, Any]) -> bool:
    headers = {k.lower(): v for k, v in scope.get("headers", ())}
    raw = headers.get(b"origin")
    if raw is None:  # not a browser: SDK, bots, terminal and Node clients
        return True
    origin = raw.decode("latin-1").strip().rstrip("/")
    allowed = settings.origins_allowed
    if allowed:
        return origin in allowed
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host


def agent(headers: Any) -> str:
    """A short printable label of the client (its User-Agent) for the session list."""
    ua = headers.get("user-agent", "") if headers is not None else ""
    return "".join(c for c in str(ua) if c.isprintable())[:80]
