"""Automatic pipelining: the Redis commands a process issues in one turn of its event
loop go out as one pipeline, in one write, their replies read in one go.

Under load a service runs many coroutines at once (a consumed batch's games, a gateway's
sockets), each awaiting its own command. One by one, each command costs redis-py a connection
checkout, a socket write (a system call), a read and a task switch: in the profiles at 100
matches the writes alone were 17-22% of the escrow's, adjudicator's and gateway's CPU
(``StreamWriter.writelines``), and most of the event loop's own time (``Runner.run``) was their
reads. ioredis (Node) calls this auto-pipelining; redis-py has none, so this subclass adds it:

* ``execute_command`` (every command method calls it) queues the command with a future; the
  first command of a turn schedules the flush for the end of the turn (``loop.call_soon``).
* The flush sends the queued commands as one non-transactional pipeline and hands each reply,
  or each command's own error (``raise_on_error=False``), to its future. A connection error
  fails every command of that flush, as it would have failed each alone.
* A command whose caller was cancelled before the flush is not sent.
* One command alone in its turn goes out as before (no pipeline object for one command).
* Blocking commands (``XREAD``/``XREADGROUP`` with ``BLOCK``, ``BLPOP`` and the like) never
  join a pipeline: they would hold every other command of the turn back until they return.

What does not change: commands are independent (no MULTI: what must be atomic is a Lua script
or an explicit ``pipeline(transaction=True)``, which bypass this); one caller's commands keep
their order (it awaits each before issuing the next); replies are parsed by the same callbacks;
nothing is retried (the connection's retry stays at 0, see shared/runtime/redis.py). A cluster
client (``RedisCluster``) is not wrapped. ``EMPIRE_REDIS_AUTOPIPELINE=0`` turns it off.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

# commands that never join a pipeline: those that wait on the server (they would hold every
# other command of the turn back), and those that change the connection's state
ALONE = frozenset({"BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BLMPOP", "BZPOPMIN", "BZPOPMAX",
                   "BZMPOP", "WAIT", "WAITAOF", "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE",
                   "MONITOR", "MULTI", "EXEC", "WATCH", "UNWATCH", "DISCARD"})
MAX_BATCH = 512  # commands in one pipeline (the rest go in the next)


def _blocking(args: tuple[Any, ...]) -> bool:
    first = args[0]
    name = (first.decode() if isinstance(first, bytes) else str(first)).upper()
    if name in ("XREAD", "XREADGROUP"):  # blocking only with BLOCK
        return any(isinstance(a, (str, bytes)) and a in ("BLOCK", b"BLOCK", "block", b"block")
                   for a in args[1:])
    return name in ALONE


class AutoPipelineRedis(aioredis.Redis):
    """A redis-py asyncio client whose commands of one event-loop turn share one pipeline."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queued: list[tuple[tuple[Any, ...], dict[str, Any], asyncio.Future[Any]]] = []
        self._sending: set[asyncio.Task[None]] = set()  # flushes under way (kept referenced)
        # counters (bench, tests): pipelines flushed and the commands they carried
        self.flushes = 0
        self.flushed = 0

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        if _blocking(args):
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if not self._queued:
            loop.call_soon(self._flush_soon)
        self._queued.append((args, options, fut))
        return await fut

    def _flush_soon(self) -> None:
        queued, self._queued = self._queued, []
        live = [q for q in queued if not q[2].cancelled()]
        for i in range(0, len(live), MAX_BATCH):
            task = asyncio.ensure_future(self._send(live[i:i + MAX_BATCH]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[tuple[tuple[Any, ...], dict[str, Any],
                                            asyncio.Future[Any]]]) -> None:
        self.flushes += 1
        self.flushed += len(batch)
        try:
            if len(batch) == 1:
                args, options, fut = batch[0]
                results: list[Any] = [
                    await super().execute_command(*args, **options)]  # type: ignore[no-untyped-call]
            else:
                async with self.pipeline(transaction=False) as pipe:
                    for args, options, _ in batch:
                        pipe.execute_command(*args, **options)
                    results = await pipe.execute(raise_on_error=False)
        except BaseException as exc:  # the connection failed (or this task was cancelled)
            for _, _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc if isinstance(exc, Exception)
                                      else asyncio.CancelledError())
            if not isinstance(exc, Exception):
                raise
            return
        for (_, _, fut), result in zip(batch, results, strict=True):
            if fut.done():
                continue  # its caller was cancelled meanwhile
            if isinstance(result, Exception):
                fut.set_exception(result)
            else:
                fut.set_result(result)
