"""Signed player tokens: base64url(JSON payload) + "." + base64url(Ed25519 signature).

Only the lobby signs: it holds the private key (EMPIRE_TOKEN_PRIVATE_KEY). Whoever checks a
token (the gateway, and the lobby itself) holds public keys only (EMPIRE_TOKEN_PUBLIC_KEYS), so
a process that verifies tokens cannot mint one. The payload names the signing key (``kid``,
the first 16 hex digits of the SHA-256 of its raw public key): while a key rotates, verifiers
hold the old and the new public key and pick by ``kid``. A token names the player; the gateway
derives the seat from the game's seat map, never from the client.

A human player's access token always names its session (``sid``): it lives minutes
(EMPIRE_ACCESS_TTL_S) and the gateway refuses it once the session is revoked
(services/lobby/accounts/). Only a bot's seat token (player id ``b-...``) carries no session:
``verify`` refuses a session-less token for anyone else.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

BOT_PREFIX = "b-"  # a bot player's id (services/lobby/service.py); nobody else goes sessionless


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

    @property
    def bot(self) -> bool:
        return self.player_id.startswith(BOT_PREFIX)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- keys ---------------------------------------------------------------------------------

def new_private_key() -> str:
    """A fresh signing key: its 32-byte seed as hex (EMPIRE_TOKEN_PRIVATE_KEY)."""
    return Ed25519PrivateKey.generate().private_bytes_raw().hex()


@functools.lru_cache(maxsize=8)  # the lobby signs with one key (two around a rotation)
def _private(private_hex: str) -> Ed25519PrivateKey:
    try:
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex.strip()))
    except ValueError as exc:
        raise ValueError("a token private key is 64 hex digits (32 bytes)") from exc


def public_key(private_hex: str) -> str:
    """The public half (hex, 32 bytes raw) of a signing key: what verifiers hold."""
    return _private(private_hex).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def key_id(public_hex: str) -> str:
    """A public key's id, as tokens name it."""
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()[:16]


def parse_public_keys(text: str | Iterable[str]) -> dict[str, Ed25519PublicKey]:
    """kid -> key, from hex public keys (comma- or space-separated text, or a list). A key that
    is not 32 bytes of hex raises ValueError (a configuration error, at start)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out: dict[str, Ed25519PublicKey] = {}
    for item in items:
        try:
            out[key_id(item)] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(item))
        except ValueError as exc:
            raise ValueError("a token public key is 64 hex digits (32 bytes)") from exc
    return out


# -- tokens -------------------------------------------------------------------------------

def issue(private_hex: str, player_id: str, name: str, exp_ms: int, session: str = "") -> str:
    """A token signed with the lobby's private key. A human player's token needs its session."""
    if not session and not player_id.startswith(BOT_PREFIX):
        raise ValueError("a player's token belongs to a session; only a bot's has none")
    key = _private(private_hex)
    kid = key_id(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex())
    claims: dict[str, str | int] = {"pid": player_id, "name": name, "exp": exp_ms, "kid": kid}
    if session:
        claims["sid"] = session
    payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
    return f"{_b64(payload)}.{_b64(key.sign(payload))}"


def verify(keys: dict[str, Ed25519PublicKey], token: str, now_ms: int) -> Identity:
    """Check the signature with the public key the token names (``keys``: parse_public_keys),
    then the claims: the expiry, and a session unless the player is a bot."""
    try:
        p64, s64 = token.split(".", 1)
        payload, sig = _unb64(p64), _unb64(s64)
        data = json.loads(payload)
        kid = data.get("kid") if isinstance(data, dict) else None
    except (ValueError, TypeError) as exc:
        raise TokenError("auth/invalid_token", "malformed token") from exc
    key = keys.get(kid) if isinstance(kid, str) else None
    if key is None:
        raise TokenError("auth/invalid_token", "token signed by an unknown key")
    try:
        key.verify(sig, payload)
    except InvalidSignature:
        raise TokenError("auth/invalid_token", "bad token signature") from None
    try:
        ident = Identity(player_id=str(data["pid"]), name=str(data["name"]),
                         exp_ms=int(data["exp"]), session=str(data.get("sid", "")))
    except (ValueError, KeyError, TypeError) as exc:
        raise TokenError("auth/invalid_token", "malformed token payload") from exc
    if not ident.session and not ident.bot:
        raise TokenError("auth/invalid_token", "a player's token must belong to a session")
    if ident.exp_ms <= now_ms:
        raise TokenError("auth/expired_token", "token expired")
    return ident


if __name__ == "__main__":  # a fresh pair for an operator (docs/operations.md "Token keys")
    _key = new_private_key()
    print(f"EMPIRE_TOKEN_PRIVATE_KEY={_key}\nEMPIRE_TOKEN_PUBLIC_KEYS={public_key(_key)}")
