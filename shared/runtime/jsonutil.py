"""Fast JSON (orjson) and Redis reply decoding in one place."""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def dumpb(value: Any) -> bytes:
    return orjson.dumps(value)


def loads(data: str | bytes) -> Any:
    return orjson.loads(data)


def text(value: Any) -> str:
    """A Redis reply field as ``str`` (redis-py returns bytes unless decode_responses)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def stream_order(stream_id: Any) -> tuple[int, int]:
    """A Redis stream id (``<ms>-<n>``, str or bytes) as a pair of numbers, for ordering."""
    ms, _, n = text(stream_id).partition("-")
    return int(ms), int(n or 0)
