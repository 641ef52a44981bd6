"""Session keys for signed commands (shared/fairness/signing.py), with ``cryptography``: the
clients' signing half (SDK, bots, bench, test helpers) and the services' fast verification
(adjudicator for acts, escrow for commits)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from shared.fairness import signing

if TYPE_CHECKING:  # the SDK ships this module without the services' Redis layer
    from shared.runtime.ports import KeyRegistry
    from shared.runtime.redis import Client


class SessionKey:
    """One client session's Ed25519 pair: the private half never leaves this object."""

    def __init__(self, private: Ed25519PrivateKey | None = None) -> None:
        self._key = private or Ed25519PrivateKey.generate()
        self.public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    @classmethod
    def from_seed(cls, seed_hex: str) -> SessionKey:
        """A fixed key (test vectors only)."""
        return cls(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex)))

    def sign(self, msg: bytes) -> str:
        return self._key.sign(msg).hex()

    def sign_act(self, game_id: str, seat: int, cmd_id: str, action: Any,
                 expected_seq: int | None) -> dict[str, str]:
        """The frame's ``key`` and ``sig`` fields for an act."""
        msg = signing.message(game_id, seat, cmd_id, "act",
                              signing.act_body(action, expected_seq))
        return {"key": self.public, "sig": self.sign(msg)}

    def sign_rekey(self, session: str, new_key: str) -> str:
        """The ``proof`` that this (the session's current) key hands the session on to
        ``new_key``."""
        return self.sign(rekey_message(session, new_key))

    def sign_commit(self, game_id: str, seat: int, cmd_id: str, round_id: str, slot: str,
                    commitment: str, sealed: str,
                    public: dict[str, Any] | None) -> dict[str, str]:
        """The frame's ``key`` and ``sig`` fields for a commit."""
        msg = signing.message(game_id, seat, cmd_id, "commit", signing.commit_body(
            round_id, slot, commitment, signing.sealed_digest(sealed), public))
        return {"key": self.public, "sig": self.sign(msg)}


def rekey_message(session: str, new_key: str) -> bytes:
    """What a session's current key signs to bind ``new_key`` to the session instead."""
    return f"empire-hall/rekey/v1\n{session}\n{new_key}".encode()


def verify(key: str, sig: str, msg: bytes) -> bool:
    """Whether ``sig`` (hex) is ``key``'s (hex) over ``msg`` (fast: libcrypto)."""
    if not signing.well_formed(key, sig):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(bytes.fromhex(sig), msg)
    except (InvalidSignature, ValueError):
        return False
    return True


async def signed_by(player_id: str, key: str | None, sig: str | None,
                    message: Callable[[], bytes | None], registry: KeyRegistry, now_ms: int,
                    required: bool) -> bool:
    """The one check behind signed acts (the adjudicator) and signed commits (the escrow),
    once the caller knows which player the seat belongs to: an unsigned command passes only
    when signatures are not required; a half-signed one (key or signature alone) never; a
    signed one when ``sig`` is ``key``'s over exactly ``message()`` (None, or a ValueError:
    nothing a client could have signed) and ``registry`` (shared/runtime/ports.KeyRegistry)
    holds ``key`` for ``player_id`` at ``now_ms``."""
    if key is None and sig is None:
        return not required
    if key is None or sig is None:
        return False
    try:
        signed = message()
    except ValueError:  # no canonical JSON (a float)
        return False
    return signed is not None and verify(key, sig, signed) and \
        bool(await registry(player_id, key, now_ms))


# -- the registry (shared/protocol/keys.lobby_session_keys) ---------------------------------

KEYS_PER_PLAYER = 32  # a player's registered keys at most: the ones expiring first go


async def register(redis: Client, player_id: str, key: str, expires_ms: int, now_ms: int,
                   cap: int = KEYS_PER_PLAYER) -> None:
    """Record ``key`` for the player until ``expires_ms`` (the lobby only: the caller has
    checked the player's credential). Expired keys are dropped, then the ones expiring first
    while over ``cap``; the hash lives as long as its latest key."""
    from shared.protocol import keys

    name = keys.lobby_session_keys(player_id)
    held = {_text(k): int(v) for k, v in (await redis.hgetall(name)).items()}
    held[key] = max(expires_ms, held.get(key, 0))
    gone = [k for k, exp in held.items() if exp <= now_ms]
    alive = sorted(((exp, k) for k, exp in held.items() if exp > now_ms), reverse=True)
    gone += [k for _, k in alive[cap:]]
    async with redis.pipeline(transaction=False) as pipe:
        pipe.hset(name, key, held[key])
        if gone:
            pipe.hdel(name, *gone)
        pipe.expire(name, max(1, (max(exp for exp, _ in alive[:cap]) - now_ms) // 1000 + 1))
        await pipe.execute()


async def registered(redis: Client, player_id: str, key: str, now_ms: int) -> bool:
    """Whether the lobby registered ``key`` for the player and it has not expired."""
    from shared.protocol import keys

    if not player_id or not signing.well_formed(key, "0" * 128):
        return False
    raw = await redis.hget(keys.lobby_session_keys(player_id), key)
    return raw is not None and int(raw) > now_ms


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


async def unregister(redis: Client, player_id: str, key: str) -> None:
    """Withdraw ``key`` (its session was revoked, or handed on to a new key)."""
    from shared.protocol import keys

    await redis.hdel(keys.lobby_session_keys(player_id), key)


class Registered:
    """``registered`` with a bounded in-process memory of the keys found: one HGET per
    (player, key) per ``recheck_ms`` instead of one per command. The lobby withdraws a key
    when its session is revoked or hands on to another key, so a found key is remembered only
    ``recheck_ms`` (and never past its expiry): a withdrawn key stops verifying within that
    time. Unknown or expired keys are never remembered."""

    def __init__(self, redis: Client, cap: int = 50_000, recheck_ms: int = 5_000) -> None:
        self.redis = redis
        self.cap = cap
        self.recheck_ms = recheck_ms
        self.found: dict[tuple[str, str], int] = {}  # (player, key) -> remembered until ms

    async def __call__(self, player_id: str, key: str, now_ms: int) -> bool:
        exp = self.found.pop((player_id, key), None)
        if exp is not None and exp > now_ms:
            self.found[(player_id, key)] = exp
            return True
        from shared.protocol import keys

        if not player_id or not signing.well_formed(key, "0" * 128):
            return False
        raw = await self.redis.hget(keys.lobby_session_keys(player_id), key)
        if raw is None or int(raw) <= now_ms:
            return False
        while len(self.found) >= self.cap:  # the oldest entries go first
            del self.found[next(iter(self.found))]
        self.found[(player_id, key)] = min(int(raw), now_ms + self.recheck_ms)
        return True
