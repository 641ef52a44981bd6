"""Signed player tokens: base64url(JSON payload) + "." + base64url(HMAC-SHA256(secret, payload)).

Issued by the lobby, verified by the gateway (both hold the secret). A token names the player;
the gateway derives the seat from the game's seat map, never from the client.

A player's access token also names its session (``sid``): it lives minutes
(EMPIRE_ACCESS_TTL_S) and the gateway refuses it once the session is revoked
(services/lobby/accounts/). Bot seat tokens carry no session.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass


class TokenError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Identity:
    player_id: str
    name: str
    exp_ms: int
    session: str = ""  # the refresh session it was issued for ("" for a bot's seat token)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def issue(secret: str, player_id: str, name: str, exp_ms: int, session: str = "") -> str:
    claims: dict[str, str | int] = {"pid": player_id, "name": name, "exp": exp_ms}
    if session:
        claims["sid"] = session
    payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
    sig = hmac.new(secret.encode(), payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(sig)}"


def verify(secret: str | list[str], token: str, now_ms: int) -> Identity:
    """Check the signature in constant time against the current key (and, while rotating,
    the previous one), then the expiry."""
    try:
        p64, s64 = token.split(".", 1)
        payload, sig = _unb64(p64), _unb64(s64)
    except (ValueError, TypeError) as exc:
        raise TokenError("auth/invalid_token", "malformed token") from exc
    keys = [secret] if isinstance(secret, str) else secret
    matches = [hmac.compare_digest(hmac.new(k.encode(), payload, hashlib.sha256).digest(), sig)
               for k in keys]
    if not any(matches):
        raise TokenError("auth/invalid_token", "bad token signature")
    try:
        data = json.loads(payload)
        ident = Identity(player_id=str(data["pid"]), name=str(data["name"]),
                         exp_ms=int(data["exp"]), session=str(data.get("sid", "")))
    except (ValueError, KeyError, TypeError) as exc:
        raise TokenError("auth/invalid_token", "malformed token payload") from exc
    if ident.exp_ms <= now_ms:
        raise TokenError("auth/expired_token", "token expired")
    return ident
