"""Sealed commits for tests that drive the escrow in process: a fixed escrow
key stored where the escrow reads it (esc:keys), and commits whose openings are sealed to it
exactly as the clients seal them (shared.fairness.seal)."""

from __future__ import annotations

from typing import Any

from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import new_private_key, public_key, seal_opening
from shared.protocol import internal as im
from shared.protocol import streams

ESCROW_KEY = new_private_key()  # this test process's escrow key
ESCROW_PUBLIC = public_key(ESCROW_KEY)


async def seed_escrow_key(redis: Any) -> None:
    """Store ESCROW_KEY as the escrow's key (after a FLUSHALL: the escrow would make its own)."""
    await redis.hset(streams.ESC_KEYS, "x25519", ESCROW_KEY)


def sealed_commit(game_id: str, round_id: str, slot: str, seat: int, choice: Any,
                  cmd_id: str = "", nonce: str | None = None) -> im.CommitChoice:
    """A v2 commit of ``choice`` (its opening sealed to ESCROW_KEY), as the gateway stamps it."""
    nonce = nonce or new_nonce()
    return im.CommitChoice(
        cmd_id=cmd_id or f"k{seat}", game_id=game_id, seat=seat, player_id=f"p{seat}",
        round_id=round_id, slot=slot,
        commitment=commitment(game_id, round_id, slot, seat, choice, nonce),
        sealed=seal_opening(ESCROW_PUBLIC, game_id, round_id, slot, seat, choice, nonce))


def opening_of(c: im.CommitChoice) -> tuple[Any, str]:
    """(choice, nonce) of a sealed_commit (tests that store a commit directly)."""
    from shared.fairness.seal import open_sealed

    assert c.sealed is not None
    return open_sealed(ESCROW_KEY, c.game_id, c.round_id, c.slot, c.seat, c.sealed)
