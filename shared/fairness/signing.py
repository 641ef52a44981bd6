"""Signed commands (FAIRNESS.md §Seats): what a seat's session key signs.
Standard library only (the verifier uses it with shared/fairness/ed25519.py).

Each ``act`` and ``commit`` a client sends is signed with its session key (Ed25519, a fresh
pair per client session, the public half registered through the lobby for its player). The
signed message is domain-separated and length-prefixed:

    message = LP("empire-hall/cmd/v1") || LP(game_id) || LP(seat as decimal) || LP(cmd_id)
              || LP(kind) || LP(canonical JSON of the body)

    act:    body = {"action": action, "expected_seq": expected_seq or null}
    commit: body = {"commitment": c, "public": public or null, "round_id": r,
                    "sealed_sha256": SHA-256 hex of the sealed text (UTF-8), "slot": s}

The seat is in the message, so a signature cannot be replayed as another seat's; the cmd_id
too, so a replay of the same frame is the same (idempotent) command. The commit signs the
sealed opening's digest, not its text, so the record can keep the proof without the
ciphertext. Keys and signatures travel as lowercase hex (32 and 64 bytes). The JavaScript twin
is clients/web/signing.mjs.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

from shared.fairness import ed25519
from shared.fairness.lp import canonical_json, lp

CMD_DOMAIN = "empire-hall/cmd/v1"
KINDS = ("act", "commit")
_KEY = re.compile(r"[0-9a-f]{64}")
_SIG = re.compile(r"[0-9a-f]{128}")


def sealed_digest(sealed: str) -> str:
    return hashlib.sha256(sealed.encode("utf-8")).hexdigest()


def act_body(action: Any, expected_seq: int | None) -> dict[str, Any]:
    return {"action": action, "expected_seq": expected_seq}


def commit_body(round_id: str, slot: str, commitment: str, sealed_sha256: str,
                public: dict[str, Any] | None) -> dict[str, Any]:
    return {"commitment": commitment, "public": public or None, "round_id": round_id,
            "sealed_sha256": sealed_sha256, "slot": slot}


def message(game_id: str, seat: int, cmd_id: str, kind: str, body: dict[str, Any]) -> bytes:
    """The bytes a seat's session key signs for one command (ValueError: no canonical JSON)."""
    if kind not in KINDS:
        raise ValueError(f"unknown command kind {kind!r}")
    return (lp(CMD_DOMAIN) + lp(game_id) + lp(str(seat)) + lp(cmd_id) + lp(kind)
            + lp(canonical_json(body)))


def well_formed(key: Any, sig: Any) -> bool:
    return isinstance(key, str) and isinstance(sig, str) and bool(_KEY.fullmatch(key)) \
        and bool(_SIG.fullmatch(sig))


@functools.lru_cache(maxsize=4096)
def verify(key: str, sig: str, msg: bytes) -> bool:
    """Stdlib verification (~10 ms: for the verifier, not the services; remembered, so a
    record checked again costs nothing)."""
    if not well_formed(key, sig):
        return False
    return ed25519.verify(bytes.fromhex(key), msg, bytes.fromhex(sig))


def keys_by_seat(record: list[dict[str, Any]], log: list[dict[str, Any]] | None
                 ) -> dict[str, list[str]]:
    """The session keys a game's signed commands use, per seat (decimal text), sorted: the
    audit bundle's ``signatures`` (shared/fairness/verify.py checks it against the record)."""
    out: dict[str, set[str]] = {}
    acts = [(x.get("seat"), x.get("key")) for x in log or []
            if isinstance(x, dict) and x.get("by") == "seat"]
    commits = [(e.get("seat"), e.get("key")) for e in record
               if isinstance(e, dict) and e.get("type") == "committed"]
    for seat, key in acts + commits:
        if isinstance(key, str) and isinstance(seat, int) and not isinstance(seat, bool):
            out.setdefault(str(seat), set()).add(key)
    return {seat: sorted(keys) for seat, keys in sorted(out.items(), key=lambda kv: int(kv[0]))}
