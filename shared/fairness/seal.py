"""Sealed openings (FAIRNESS.md §Escrow): a seat's opening is encrypted to the
escrow's X25519 public key, so the gateway, the streams and the logs carry only ciphertext.

HPKE (RFC 9180) base mode, DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / ChaCha20-Poly1305, one
message per context, empty AAD:

    info    = LP("empire-hall/seal/v1") || LP(game) || LP("<round>/<slot>") || LP(seat)
    opening = canonical JSON of {"choice": choice, "nonce": nonce}
    sealed  = base64(enc || ciphertext)

The info binds a ciphertext to one game, round, slot and seat, so it cannot be replayed
elsewhere. The JavaScript twin is clients/web/seal.mjs (browser and Node).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hpke
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from shared.fairness.commitments import round_text
from shared.fairness.lp import canonical_json, lp

SEAL_DOMAIN = "empire-hall/seal/v1"
SEALED_MAX_CHARS = 16384  # the wire bound of a commit's "sealed" (shared/protocol/client.py)
_SUITE = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)


class BadSeal(ValueError):
    """The sealed text does not open with this key for this game, round, slot and seat, or
    what it opens to is not an opening."""


def seal_info(game_id: str, round_id: str, slot_key: str, seat: int) -> bytes:
    return (lp(SEAL_DOMAIN) + lp(game_id) + lp(round_text(round_id, slot_key))
            + lp(str(seat)))


def new_private_key() -> str:
    """A fresh escrow private key (raw 32 bytes, hex)."""
    return X25519PrivateKey.generate().private_bytes_raw().hex()


@functools.lru_cache(maxsize=8)
def _private(private_hex: str) -> X25519PrivateKey:
    """The key object of a private key, built once per key: the escrow has one key and opens
    every commit with it, and building the object (it derives the public key) costs ~5% of the
    escrow's CPU when done per commit. The escrow holds the key's hex anyway."""
    return X25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex))


@functools.lru_cache(maxsize=8)
def public_key(private_hex: str) -> str:
    """The public key (raw 32 bytes, hex) that round_opened entries publish."""
    return _private(private_hex).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def seal_opening(public_hex: str, game_id: str, round_id: str, slot_key: str, seat: int,
                 choice: Any, nonce_hex: str) -> str:
    """A seat's opening sealed to the escrow's public key: the commit frame's ``sealed``."""
    pub = X25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
    plain = canonical_json({"choice": choice, "nonce": nonce_hex}).encode()
    out = base64.b64encode(
        _SUITE.encrypt(plain, pub, seal_info(game_id, round_id, slot_key, seat))).decode()
    if len(out) > SEALED_MAX_CHARS:
        raise ValueError("the choice is too large to seal")
    return out


def open_sealed(private_hex: str, game_id: str, round_id: str, slot_key: str, seat: int,
                sealed: str) -> tuple[Any, str]:
    """(choice, nonce hex) of a sealed opening; BadSeal when it does not open here."""
    key = _private(private_hex)
    try:
        raw = base64.b64decode(sealed.encode("ascii"), validate=True)
        plain = _SUITE.decrypt(raw, key, seal_info(game_id, round_id, slot_key, seat))
        opening = json.loads(plain.decode("utf-8"))
    except (InvalidTag, ValueError, binascii.Error, UnicodeError) as exc:
        raise BadSeal("the sealed opening does not open for this slot") from exc
    if not isinstance(opening, dict) or set(opening) != {"choice", "nonce"} \
            or not isinstance(opening["nonce"], str):
        raise BadSeal("the sealed text is not an opening")
    return opening["choice"], opening["nonce"]
