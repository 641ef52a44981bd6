"""JSON from a client, parsed defensively (HTTP bodies and WebSocket frames alike).

orjson refuses invalid UTF-8, lone surrogates (raw or escaped, ``"\\ud800"``), NaN and
Infinity, numbers that overflow a double (``1e400``, a 5,000-digit integer) and nesting beyond
1,024 levels; on top of that a document may nest at most EMPIRE_JSON_MAX_DEPTH (32) levels,
far more than any request or move needs. Every refusal is a ``BadJson`` with a short reason
that never echoes the input; so is ``brief``, the refusal of a document its model rejects.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError


class BadJson(ValueError):
    pass


def depth_of(value: Any, limit: int) -> int:
    """The nesting depth of ``value`` (a scalar is 0), counted up to ``limit`` + 1."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, list):
            continue
        d += 1
        if d > deepest:
            deepest = d
            if deepest > limit:
                return deepest
        stack.extend((x, d) for x in v if isinstance(x, dict | list))
    return deepest


def parse(raw: bytes | str, max_depth: int) -> Any:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadJson(f"not valid JSON: {str(exc).split(':', 1)[0][:80]}") from None
    if depth_of(data, max_depth) > max_depth:
        raise BadJson(f"JSON nested deeper than {max_depth} levels")
    return data


def brief(exc: ValidationError) -> str:
    """A validation error in a few words, never echoing the input."""
    parts = []
    for e in exc.errors(include_url=False, include_input=False, include_context=False)[:3]:
        loc = ".".join(str(x) for x in e["loc"])
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)[:300]
