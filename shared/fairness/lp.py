"""Length-prefixed encoding and canonical JSON (FAIRNESS.md: LP(x) = u32be(len(x)) || x)."""

from __future__ import annotations

import json
from typing import Any


def lp(data: bytes | str) -> bytes:
    """4-byte big-endian length followed by the bytes (str is UTF-8 encoded)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return len(raw).to_bytes(4, "big") + raw


SAFE_INT = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER: beyond it JSON.parse rounds


def _integers_only(value: Any) -> None:
    if isinstance(value, float):
        raise ValueError("canonical JSON holds integers only, not floats")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INT:
        raise ValueError("canonical JSON holds integers up to 2^53 - 1 only")
    if isinstance(value, dict):
        for v in value.values():
            _integers_only(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _integers_only(v)


def canonical_json(value: Any) -> str:
    """The one canonical text of a JSON value: keys sorted by code point, no spaces, UTF-8
    (non-ASCII characters as themselves), integers only and within +-(2^53 - 1): a float such
    as 1.0 would not print the same in JavaScript, nor survive JSON.parse beyond 2^53, so it is
    refused with ValueError, as NaN is."""
    _integers_only(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
