"""Counting the gateway hub's frame encodings (a frame is encoded once for all the
watchers at one place of a game)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import orjson


@contextlib.contextmanager
def counted_encodings() -> Iterator[list[int]]:
    """While open, every ``orjson.dumps`` (the hub's encodings among them) appends to the
    yielded list."""
    encoded: list[int] = []
    real = orjson.dumps

    def counting(obj: Any, *a: Any, **kw: Any) -> bytes:
        encoded.append(1)
        return real(obj, *a, **kw)

    orjson.dumps = counting  # the hub's own module object: hub.orjson is orjson
    try:
        yield encoded
    finally:
        orjson.dumps = real
