"""One composition pattern for every stream service: settings read once, structlog configured
once, one broker, groups created at 0 before consuming, background loops started and stopped
with the app."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from faststream import FastStream
from faststream.redis import RedisBroker
from faststream.specification import AsyncAPI

from shared.runtime import bus, liveness, metrics, ops, tracing
from shared.runtime.logging import configure_logging
from shared.runtime.redis import Client, client, ensure_group
from shared.runtime.settings import Settings, get_settings
from shared.runtime.tasks import cancel_and_wait


@dataclass
class ServiceKit:
    name: str
    settings: Settings
    broker: RedisBroker
    redis: Client
    logger: Any
    groups: list[tuple[str, str]] = field(default_factory=list)
    loops: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    startup: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    # loops that read a stream without a faststream subscriber (every ``consume``'s live
    # reader, the lobby's requests, the bot runner's seats): the probes require them running
    readers: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    reader_tasks: list[asyncio.Task[None]] = field(default_factory=list)
    shutdown: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    # describes the consumed streams' messages for the AsyncAPI document; never started
    spec: RedisBroker | None = None

    def consume(self, stream: str, group: str, handler: bus.Handler,
                description: str | None = None, payload: Any = None) -> None:
        """``payload``: the message model or union of ``stream`` (its AsyncAPI payload)."""
        self.groups.append((stream, group))
        if payload is not None and self.spec is None:
            self.spec = RedisBroker(self.settings.redis_url)
        reader = bus.consume(self.broker, stream, group, self.settings, handler,
                             description=description, payload=payload, spec=self.spec)
        self.readers.append(lambda: reader.run(self.redis))


    def start_readers(self) -> list[asyncio.Task[None]]:
        """Start the reader loops (once the groups exist); their tasks, also kept in
        ``reader_tasks`` for the probes."""
        started = [asyncio.create_task(reader()) for reader in self.readers]
        self.reader_tasks.extend(started)
        return started

    async def stop_readers(self) -> None:
        """Stop the reader loops, each after the batch in hand (``bus.StreamReader``)."""
        await cancel_and_wait(self.reader_tasks)


def build(name: str, settings: Settings | None = None) -> ServiceKit:
    settings = settings or get_settings()
    logger = configure_logging(name, settings.log_level, settings.log_json)
    tracing.configure_tracing(name, settings.otlp_endpoint)
    broker = bus.make_broker(settings, logger=logger)
    return ServiceKit(name=name, settings=settings, broker=broker, redis=client(settings),
                      logger=logger)


S = TypeVar("S")


def compose(name: str, wire: Callable[[ServiceKit], S], settings: Settings | None = None,
            spec: Callable[[Settings, S], RedisBroker] | None = None) -> FastStream:
    """A service's ``create_app``: its kit (``settings``, else the environment's), ``wire``
    puts the service on it (subscriptions, loops) and returns it; ``spec``: a broker that only
    describes the streams the service reads without a faststream subscriber."""
    kit = build(name, settings)
    service = wire(kit)
    return make_app(kit, spec_brokers=[spec(kit.settings, service)] if spec else None)


def make_app(kit: ServiceKit, spec_brokers: list[RedisBroker] | None = None) -> FastStream:
    """``spec_brokers``: brokers that only describe channels for the AsyncAPI document (never
    started), for consumers that read their stream without a faststream subscriber."""
    described = [*(spec_brokers or []), *([kit.spec] if kit.spec is not None else [])]
    spec = AsyncAPI(*described, title=f"Empire Hall {kit.name}", version="1")
    app = FastStream(kit.broker, logger=kit.logger, specification=spec)
    tasks: list[asyncio.Task[None]] = []

    @app.on_startup
    async def _groups() -> None:
        for stream, group in kit.groups:
            await ensure_group(kit.redis, stream, group)
        for fn in kit.startup:
            await fn()

    servers: list[ops.OpsServer] = []

    async def ready() -> bool:
        return await ready_probe(kit)

    async def live() -> bool:
        return await live_probe(kit)

    async def reap() -> None:
        """Remove this group's consumers left by processes that are gone (a consumer name
        per process start): idle past consumer_reap_s with nothing pending."""
        while True:
            await asyncio.sleep(min(60.0, kit.settings.consumer_reap_s / 4))
            try:
                await reap_consumers(kit.redis, kit.groups, kit.settings.consumer_reap_s)
            except Exception as exc:
                kit.logger.warning("consumer_reap_failed", error=repr(exc)[:200])

    async def sample() -> None:
        while True:
            await metrics.sample_groups(kit.redis, kit.groups)
            await asyncio.sleep(5)

    @app.after_startup
    async def _loops() -> None:
        bus.settle_polling(kit.broker)  # every subscriber started: the running intervals
        for loop in (*kit.loops, reap):
            tasks.append(asyncio.create_task(loop()))
        tasks.extend(kit.start_readers())
        if kit.settings.metrics_port:
            servers.append(await ops.serve(kit.settings.metrics_port, ready, live=live))
            tasks.append(asyncio.create_task(sample()))
        kit.logger.info("service_started", instance=kit.settings.instance)

    @app.on_shutdown
    async def _stop() -> None:
        _deadline(kit)
        for srv in servers:
            await srv.wait_closed()
        await cancel_and_wait(tasks)
        for fn in kit.shutdown:
            with contextlib.suppress(Exception):
                await fn()

    @app.after_shutdown
    async def _close() -> None:  # after the broker stopped: in-flight handlers are done
        await kit.redis.aclose()
        kit.logger.info("service_stopped", instance=kit.settings.instance)

    return app


def consuming(kit: ServiceKit) -> bool:
    """Every faststream subscriber and every reader loop of the process runs (at least one)."""
    subscribers = list(getattr(kit.broker, "subscribers", ()))
    if subscribers and not liveness.subscribers_running(kit.broker):
        return False
    if any(t.done() for t in kit.reader_tasks):
        return False
    return bool(subscribers or kit.reader_tasks)


async def ready_probe(kit: ServiceKit) -> bool:
    """Readiness: Redis answers, every subscriber runs, every consumer group exists."""
    await kit.redis.ping()
    if not consuming(kit):
        return False
    for stream, group in kit.groups:
        names = [g.get("name") for g in await kit.redis.xinfo_groups(stream)]
        if group.encode() not in names and group not in names:
            return False
    return True


async def live_probe(kit: ServiceKit) -> bool:
    """Liveness: the consume loops run and hold nothing past the stall bound. Redis being
    down is no reason to restart (readiness says so; the loops retry)."""
    if not consuming(kit):
        return False
    try:
        stuck = await liveness.wedged(kit.redis, kit.groups, kit.settings.instance,
                                      int(kit.settings.liveness_stall_s * 1000))
    except Exception:
        return True
    if stuck:
        kit.logger.error("consumer_wedged", streams=stuck, stall_s=kit.settings.liveness_stall_s)
    return not stuck


async def reap_consumers(redis: Client, groups: list[tuple[str, str]], idle_s: float) -> int:
    """XGROUP DELCONSUMER every consumer of ``groups`` idle for over ``idle_s`` with no entry
    pending (a consumer with pending entries stays until reclaim has taken them)."""
    removed = 0
    for stream, group in groups:
        consumers: list[dict[Any, Any]] = await redis.xinfo_consumers(stream, group)
        for c in consumers:
            name: bytes | str = c.get("name") or c[b"name"]
            if int(c.get("pending", 0)) == 0 and int(c.get("idle", 0)) > idle_s * 1000:
                await redis.xgroup_delconsumer(stream, group, name)
                removed += 1
    return removed


def _deadline(kit: ServiceKit) -> None:
    """A stop that does not finish by ``shutdown_deadline_s`` ends the process anyway: what
    was not acknowledged stays pending in its stream and another replica reclaims it, so
    exiting loses nothing (bus.py), while hanging would only wait for the orchestrator's kill."""

    def expire() -> None:
        kit.logger.warning("shutdown_deadline", instance=kit.settings.instance,
                           seconds=kit.settings.shutdown_deadline_s)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    timer = threading.Timer(kit.settings.shutdown_deadline_s, expire)
    timer.daemon = True
    timer.start()


def run(app: FastStream) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    asyncio.run(app.run())
    # the graceful shutdown is done (consumers stopped, replies sent, connections closed):
    # leave without the interpreter's teardown, whose final collection over the imported
    # rules tables holds the process for seconds after it has nothing left to do
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
