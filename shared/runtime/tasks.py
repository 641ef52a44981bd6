"""Stopping background tasks for sure.

``task.cancel()`` then ``await task`` never returns when something under the task swallows
the cancel (a library's timeout racing it turns the CancelledError into another error, and
an ``except Exception`` that logs and carries on does the rest). That was the intermittent
600 s hang of the escrow's ordered-slot timer test in CI. ``cancel_and_wait`` cancels again
while a task is still running, for a bounded time, and says which ones would not stop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import structlog

log = structlog.get_logger("tasks")


async def cancel_and_wait(tasks: Iterable[asyncio.Task[object]] | asyncio.Task[object],
                          grace_s: float = 5.0, every_s: float = 0.2) -> list[asyncio.Task[object]]:
    """Cancel ``tasks`` and wait for them, cancelling again every ``every_s`` while one still
    runs, for ``grace_s`` at most. Returns the tasks still running then (logged; normally
    none). Their results and errors are consumed, never raised."""
    pending = {tasks} if isinstance(tasks, asyncio.Task) else set(tasks)
    loop = asyncio.get_running_loop()
    end = loop.time() + grace_s
    while pending:
        for t in pending:
            t.cancel()
        left = end - loop.time()
        if left <= 0:
            break
        done, pending = await asyncio.wait(pending, timeout=min(every_s, left))
        for t in done:
            if not t.cancelled():
                t.exception()  # retrieved: no "exception was never retrieved" warning
    for t in pending:
        log.error("task_ignored_cancel", task=t.get_name(), grace_s=grace_s)
    return list(pending)
