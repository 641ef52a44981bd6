"""Escrow commitments (FAIRNESS.md §Escrow), stdlib only.

c = SHA-256(LP("empire-hall/escrow/v1") || LP(game) || LP(round) || LP(seat) || LP(choice)
            || LP(nonce))
with the choice in canonical JSON and the seat as its decimal text; the nonce is 32 random
bytes from a CSPRNG, sent hex-encoded. The slot key is bound through the round text
``"<round_id>/<slot_key>"`` so two slots of one seat cannot swap commitments.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from shared.fairness.lp import canonical_json, lp

ESCROW_DOMAIN = "empire-hall/escrow/v1"
NONCE_BYTES = 32


def new_nonce() -> str:
    """A fresh 32-byte nonce from the OS CSPRNG, hex-encoded. Never reuse one."""
    return secrets.token_hex(NONCE_BYTES)


def round_text(round_id: str, slot_key: str) -> str:
    return f"{round_id}/{slot_key}"


def commitment(game_id: str, round_id: str, slot_key: str, seat: int, choice: Any,
               nonce_hex: str) -> str:
    nonce = bytes.fromhex(nonce_hex)
    if len(nonce) != NONCE_BYTES:
        raise ValueError("nonce must be 32 bytes")
    msg = (lp(ESCROW_DOMAIN) + lp(game_id) + lp(round_text(round_id, slot_key))
           + lp(str(seat)) + lp(canonical_json(choice)) + lp(nonce))
    return hashlib.sha256(msg).hexdigest()


DEFAULT_DOMAIN = "empire-hall/escrow/default/v1"


def default_commitment(game_id: str, round_id: str, slot_key: str, default: Any,
                       salt_hex: str) -> str:
    """Published at open, before any commit: binds the slot's default without revealing it
    (the salt is revealed only if the default is used)."""
    msg = (lp(DEFAULT_DOMAIN) + lp(game_id) + lp(round_text(round_id, slot_key))
           + lp(canonical_json(default)) + lp(bytes.fromhex(salt_hex)))
    return hashlib.sha256(msg).hexdigest()


def commitments_root(pairs: list[tuple[str, str]]) -> str:
    """SHA-256 over the sorted (slot key, commitment) list, each element length-prefixed."""
    h = hashlib.sha256()
    for key, c in sorted(pairs):
        h.update(lp(key) + lp(c))
    return h.hexdigest()
