"""Length-prefixed encoding and canonical JSON (FAIRNESS.md: LP(x) = u32be(len(x)) || x)."""

from __future__ import annotations

import json
from typing import Any


def lp(data: bytes | str) -> bytes:
    """4-byte big-endian length followed by the bytes (str is UTF-8 encoded)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return len(raw).to_bytes(4, "big") + raw


def canonical_json(value: Any) -> str:
    """The one canonical text of a JSON value: sorted keys, no spaces, UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
