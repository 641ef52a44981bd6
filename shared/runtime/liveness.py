"""Probes that mean something (docs/operations.md "Probes").

- ``subscribers_running(broker)``: every faststream subscriber of the process is running and its
  consume task is alive (a crashed or cancelled consume loop fails readiness and liveness: the
  process would otherwise answer HTTP while consuming nothing).
- ``wedged(redis, groups, consumer, stall_ms)``: this process's consumers hold entries they
  have not finished for longer than ``stall_ms`` (a handler that hangs, a deadlocked loop):
  the entries wait for reclaim by another replica, and liveness fails so the orchestrator
  restarts this one. Entries a handler is still legitimately working on are younger than the
  stall bound (EMPIRE_LIVENESS_STALL_S, far above any handler's run time).
"""

from __future__ import annotations

from faststream.redis import RedisBroker

from shared.runtime.redis import Client


def subscribers_running(broker: RedisBroker) -> bool:
    subs = list(getattr(broker, "subscribers", ()))
    for sub in subs:
        if not getattr(sub, "running", False):
            return False
        tasks = getattr(sub, "tasks", None)
        if tasks is not None and (not tasks or any(t.done() for t in tasks)):
            return False
    return bool(subs)


async def wedged(redis: Client, groups: list[tuple[str, str]], consumer: str,
                 stall_ms: int) -> list[str]:
    """The streams on which ``consumer`` holds an entry idle for over ``stall_ms``."""
    out = []
    for stream, group in groups:
        entries = await redis.xpending_range(stream, group, min="-", max="+", count=1,
                                             consumername=consumer, idle=stall_ms)
        if entries:
            out.append(stream)
    return out
