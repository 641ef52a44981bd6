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
from typing import Any

from faststream import FastStream
from faststream.specification import AsyncAPI

from shared.runtime import bus, metrics, ops
from shared.runtime.logging import configure_logging
from shared.runtime.redis import client, ensure_group
from shared.runtime.settings import Settings, get_settings


@dataclass
class ServiceKit:
    name: str
    settings: Settings
    broker: Any
    redis: Any
    logger: Any
    groups: list[tuple[str, str]] = field(default_factory=list)
    loops: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    startup: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    def consume(self, stream: str, group: str, handler: bus.Handler,
                description: str | None = None) -> None:
        self.groups.append((stream, group))
        bus.consume(self.broker, stream, group, self.settings, handler,
                    description=description)


def build(name: str, settings: Settings | None = None) -> ServiceKit:
    settings = settings or get_settings()
    logger = configure_logging(name, settings.log_level, settings.log_json)
    broker = bus.make_broker(settings, logger=logger)
    return ServiceKit(name=name, settings=settings, broker=broker, redis=client(settings),
                      logger=logger)


def make_app(kit: ServiceKit) -> FastStream:
    app = FastStream(kit.broker, logger=kit.logger,
                     specification=AsyncAPI(title=f"Empire Hall {kit.name}", version="1"))
    tasks: list[asyncio.Task[None]] = []

    @app.on_startup
    async def _groups() -> None:
        for stream, group in kit.groups:
            await ensure_group(kit.redis, stream, group)
        for fn in kit.startup:
            await fn()

    servers: list[asyncio.Server] = []

    async def ready() -> bool:
        await kit.redis.ping()
        for stream, group in kit.groups:
            names = [g.get("name") for g in await kit.redis.xinfo_groups(stream)]
            if group.encode() not in names and group not in names:
                return False
        return True

    async def sample() -> None:
        while True:
            await metrics.sample_groups(kit.redis, kit.groups)
            await asyncio.sleep(5)

    @app.after_startup
    async def _loops() -> None:
        for loop in kit.loops:
            tasks.append(asyncio.create_task(loop()))
        if kit.settings.metrics_port:
            servers.append(await ops.serve(kit.settings.metrics_port, ready))
            tasks.append(asyncio.create_task(sample()))
        kit.logger.info("service_started", instance=kit.settings.instance)

    @app.on_shutdown
    async def _stop() -> None:
        _deadline(kit)
        for srv in servers:
            srv.close()
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    @app.after_shutdown
    async def _close() -> None:  # after the broker stopped: in-flight handlers are done
        await kit.redis.aclose()
        kit.logger.info("service_stopped", instance=kit.settings.instance)

    return app


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
