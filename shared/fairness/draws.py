"""The dealer's labelled draws (FAIRNESS.md §Dealer), stdlib only.

Every draw is derived from ``game_key`` and a semantic label alone:
bytes = HMAC-SHA256(game_key, LP(label) || u32(block)) for block = 0, 1, ...
Integers use rejection sampling on 8-byte words (never ``% n`` on a biased range, never
floats); shuffles are Durstenfeld Fisher–Yates. The same label always gives the same outcome.
"""

from __future__ import annotations

import hashlib
import hmac

from shared.fairness.lp import lp

SEED_DOMAIN = "empire-hall/dealer/seed/v1"
GAME_KEY_DOMAIN = "game-key/v1"
_TWO64 = 1 << 64


def seed_commitment(game_id: str, server_seed: bytes) -> str:
    """SHA-256(LP(domain) || LP(game) || server_seed), published before any draw."""
    return hashlib.sha256(lp(SEED_DOMAIN) + lp(game_id) + server_seed).hexdigest()


def game_key(server_seed: bytes, game_id: str, rules_version: str,
             client_seeds: list[bytes]) -> bytes:
    """HMAC-SHA256(server_seed, LP("game-key/v1") || LP(game) || LP(rules) || LP(seeds)...)."""
    msg = lp(GAME_KEY_DOMAIN) + lp(game_id) + lp(rules_version)
    for cs in client_seeds:
        msg += lp(cs)
    return hmac.new(server_seed, msg, hashlib.sha256).digest()


class LabelStream:
    """The byte stream of one label: HMAC(game_key, LP(label) || u32(block)), block = 0.."""

    def __init__(self, key: bytes, label: str) -> None:
        self._key = key
        self._prefix = lp(label)
        self._block = 0
        self._buf = b""

    def _next_block(self) -> bytes:
        block = hmac.new(self._key, self._prefix + self._block.to_bytes(4, "big"),
                         hashlib.sha256).digest()
        self._block += 1
        return block

    def take(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._buf += self._next_block()
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection sampling on 8-byte big-endian words."""
        if n < 1:
            raise ValueError("n must be >= 1")
        limit = _TWO64 - (_TWO64 % n)
        while True:
            x = int.from_bytes(self.take(8), "big")
            if x < limit:
                return x % n


def shuffle(key: bytes, label: str, n: int) -> list[int]:
    """A permutation of range(n): Durstenfeld Fisher–Yates, i from n-1 down to 1."""
    stream = LabelStream(key, label)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def below(key: bytes, label: str, n: int, count: int = 1) -> list[int]:
    stream = LabelStream(key, label)
    return [stream.below(n) for _ in range(count)]


def dice(key: bytes, label: str, sides: int, count: int = 1) -> list[int]:
    stream = LabelStream(key, label)
    return [stream.below(sides) + 1 for _ in range(count)]


def draw(key: bytes, label: str, kind: str, n: int, count: int = 1) -> list[int]:
    """Dispatch on the request kind ("shuffle" | "below" | "dice")."""
    if kind == "shuffle":
        return shuffle(key, label, n)
    if kind == "below":
        return below(key, label, n, count)
    if kind == "dice":
        return dice(key, label, n, count)
    raise ValueError(f"unknown draw kind {kind!r}")
