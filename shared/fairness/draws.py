"""The dealer's labelled draws (FAIRNESS.md §Dealer), stdlib only.

Every draw is derived from ``game_key`` and a semantic label alone:
bytes = HMAC-SHA256(game_key, LP(label) || u32(block)) for block = 0, 1, ...
Integers use rejection sampling on 8-byte words (never ``% n`` on a biased range, never
floats); shuffles are Durstenfeld Fisher–Yates. The same label always gives the same outcome.

``LabelStream`` is that definition word by word. ``below``, ``dice`` and ``shuffle`` take the
stream's first words at once (every block they need hashed, then unpacked) and fall back to
the word-by-word path only when a word could be refused: for a range of up to 2**32 only a
word within 2**32 of the top can be (p < 2**-32 per word), so their outputs are the same.
Those blocks are HMAC-SHA256 as RFC 2104 writes it, SHA-256(key ^ opad || SHA-256(key ^ ipad
|| message)), from two SHA-256 objects with the key's pads hashed once per key (``_keyed``):
the same bytes as ``hmac``'s, in fewer steps per block than copying a keyed HMAC object.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable
from typing import Any

from shared.fairness.lp import lp

SEED_DOMAIN = "empire-hall/dealer/seed/v1"
GAME_KEY_DOMAIN = "game-key/v1"
_TWO64 = 1 << 64
# a word below this is never refused for a range of up to 2**32 (the refused words of range m
# are the top 2**64 % m < m)
_SAFE = _TWO64 - (1 << 32)
_MAX_RANGE = 1 << 32
_WORDS = struct.Struct(">4Q")  # one HMAC-SHA256 block as four big-endian 8-byte words
_UNPACK: dict[int, Callable[[bytes], tuple[int, ...]]] = {1: _WORDS.unpack}  # per block count
_U32 = tuple(b.to_bytes(4, "big") for b in range(16))  # u32(block) of the first blocks

# HMAC's pads (RFC 2104): each byte of the key, padded to SHA-256's 64-byte block, XOR 0x36
# (inner) or 0x5C (outer), as ``bytes.translate`` tables (``hmac`` builds the same)
_BLOCK = 64
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))

# The last draw key as (key, inner, outer): the SHA-256 objects of HMAC-SHA256 with the key's
# pads hashed, copied per block (the draws of one game come in a row). One entry, replaced
# whole, holding its own bytes.
_keyed: tuple[bytes, Any, Any] | None = None


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


def _keying(key: bytes) -> tuple[bytes, Any, Any]:
    """(key, inner, outer) for ``key``: its HMAC-SHA256 up to the message (``_keyed``)."""
    global _keyed
    last = _keyed
    if last is not None and last[0] == key:
        return last
    padded = (hashlib.sha256(key).digest() if len(key) > _BLOCK else key).ljust(_BLOCK, b"\0")
    _keyed = (bytes(key), hashlib.sha256(padded.translate(_IPAD)),
              hashlib.sha256(padded.translate(_OPAD)))
    return _keyed


def _block(keyed: tuple[bytes, Any, Any], message: bytes) -> bytes:
    """HMAC-SHA256(key, message) from the key's ``_keying``."""
    inner = keyed[1].copy()
    inner.update(message)
    outer = keyed[2].copy()
    outer.update(inner.digest())
    return outer.digest()  # type: ignore[no-any-return]


def _words(key: bytes, label: str, count: int) -> tuple[int, ...]:
    """The first ``count`` (>= 1) 8-byte words of the label's stream (and the rest of the
    last block's)."""
    prefix = lp(label)
    keyed = _keying(key)
    if count <= 4:
        return _WORDS.unpack(_block(keyed, prefix + b"\0\0\0\0"))
    blocks = (count + 3) // 4
    digests = [_block(keyed, prefix + block) for block in (
        _U32[:blocks] if blocks <= len(_U32) else (b.to_bytes(4, "big") for b in range(blocks)))]
    unpack = _UNPACK.get(blocks)
    if unpack is None:
        unpack = _UNPACK[blocks] = struct.Struct(f">{4 * blocks}Q").unpack
    return unpack(b"".join(digests))


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


def _exact_shuffle(key: bytes, label: str, n: int) -> list[int]:
    stream = LabelStream(key, label)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def shuffle(key: bytes, label: str, n: int) -> list[int]:
    """A permutation of range(n): Durstenfeld Fisher–Yates, i from n-1 down to 1."""
    if n < 2 or n > _MAX_RANGE or type(label) is not str:
        return _exact_shuffle(key, label, n)
    words = _words(key, label, n - 1)
    if max(words[:n - 1]) >= _SAFE:  # maybe refused
        return _exact_shuffle(key, label, n)
    items = list(range(n))
    for i, x in zip(range(n - 1, 0, -1), words, strict=False):
        j = x % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def _ranged(key: bytes, label: str, n: int, count: int, low: int) -> list[int]:
    """``count`` integers in [low, low + n): the label's words by rejection sampling.

    For up to four values (a block's words: every die roll and most draws of a game) the one
    block is hashed here, ``_words`` and ``_block`` written out: a draw is asked on about
    every second move of a dice game, and its frames cost more than its two hashes."""
    if 1 <= n <= _MAX_RANGE and type(label) is str:
        if 1 <= count <= 4:
            keyed = _keyed
            if keyed is None or keyed[0] != key:
                keyed = _keying(key)
            raw = label.encode()
            inner = keyed[1].copy()  # HMAC(key, LP(label) || u32(0))
            inner.update(len(raw).to_bytes(4, "big") + raw + b"\0\0\0\0")
            outer = keyed[2].copy()
            outer.update(inner.digest())
            words = _WORDS.unpack(outer.digest())
            safe = _SAFE
            if count == 1:
                x = words[0]
                if x < safe:
                    return [x % n + low]
            else:
                out: list[int] = []
                for x in words[:count]:
                    if x >= safe:
                        break
                    out.append(x % n + low)
                else:
                    return out
        elif count > 4:
            words = _words(key, label, count)[:count]
            if max(words) < _SAFE:
                return [x % n + low for x in words]
    stream = LabelStream(key, label)
    return [stream.below(n) + low for _ in range(count)]


def below(key: bytes, label: str, n: int, count: int = 1) -> list[int]:
    return _ranged(key, label, n, count, 0)


def dice(key: bytes, label: str, sides: int, count: int = 1) -> list[int]:
    return _ranged(key, label, sides, count, 1)


def draw(key: bytes, label: str, kind: str, n: int, count: int = 1) -> list[int]:
    """Dispatch on the request kind ("shuffle" | "below" | "dice")."""
    if kind == "dice":
        return _ranged(key, label, n, count, 1)
    if kind == "shuffle":
        return shuffle(key, label, n)
    if kind == "below":
        return _ranged(key, label, n, count, 0)
    raise ValueError(f"unknown draw kind {kind!r}")
