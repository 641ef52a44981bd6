"""Waiting for a condition instead of sleeping a fixed time and asserting.

A fixed sleep guesses how long the machine takes; on two cores shared with the rest of the
suite that guess fails now and then. These poll the condition and return as soon as it
holds, so the bound can be generous (it costs nothing when the machine is quiet) and the
failure message says what never happened.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

BOUND_S = 30.0


async def eventually(
    cond: Callable[[], bool | Awaitable[bool]], what: str, timeout_s: float = BOUND_S,
    every_s: float = 0.02,
) -> None:
    """Return once ``cond()`` (a plain or an async check) is true; fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = cond()
        if inspect.isawaitable(got):
            got = await got
        if got:
            return
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        await asyncio.sleep(every_s)


def eventually_sync(
    cond: Callable[[], bool], what: str, timeout_s: float = BOUND_S, every_s: float = 0.02
) -> None:
    """``eventually`` for a test without an event loop (threads, processes)."""
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        time.sleep(every_s)
