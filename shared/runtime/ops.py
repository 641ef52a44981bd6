"""Every service's operations endpoint, off the public port: /metrics, /healthz (the process
answers), /readyz (Redis answers, the consumer groups exist, every subscriber runs) and
/livez (every subscriber runs and no consumer of this process is wedged:
shared/runtime/liveness.py).

Maintained pieces only: prometheus_client's ASGI app serves /metrics (content negotiation,
OpenMetrics, gzip), Starlette routes the probes and uvicorn serves them, in the service's own
event loop. uvicorn's own signal handlers stay out: the process's (faststream's, the gateway's)
decide when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, Generator

import uvicorn
from prometheus_client import make_asgi_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from shared.runtime.metrics import REGISTRY

Probe = Callable[[], Awaitable[bool]]
_PROBE_TIMEOUT_S = 2.0


async def _probe(check: Probe | None, ok: str, failed: str) -> PlainTextResponse:
    passed = check is None
    if check is not None:
        with contextlib.suppress(Exception):
            passed = await asyncio.wait_for(check(), _PROBE_TIMEOUT_S)
    return PlainTextResponse(ok if passed else failed, status_code=200 if passed else 503)


class _Metrics:
    """prometheus_client's ASGI app as a Starlette endpoint (a class instance, so Starlette
    passes it the raw ASGI call)."""

    def __init__(self) -> None:
        self.app = make_asgi_app(registry=REGISTRY)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def asgi_app(ready: Probe, live: Probe | None = None) -> Starlette:
    async def healthz(_: Request) -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    async def readyz(_: Request) -> PlainTextResponse:
        return await _probe(ready, "ready\n", "not ready\n")

    async def livez(_: Request) -> PlainTextResponse:
        return await _probe(live, "live\n", "wedged\n")

    return Starlette(routes=[Route("/metrics", _Metrics()), Route("/healthz", healthz),
                             Route("/readyz", readyz), Route("/livez", livez)])


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield  # the process's own handlers decide when it stops


class OpsServer:
    """A running operations endpoint; ``close()`` stops it."""

    def __init__(self, server: _Server, task: asyncio.Task[None]) -> None:
        self.server = server
        self.task = task

    def close(self) -> None:
        self.server.should_exit = True

    async def wait_closed(self) -> None:
        self.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.task, 5)


async def serve(port: int, ready: Probe, host: str = "0.0.0.0",
                live: Probe | None = None) -> OpsServer:
    """Serve the endpoint on ``host:port`` until ``close()``; returns once it listens. The
    socket is bound here, so a port in use is an ``OSError`` from this call (uvicorn's own
    bind would exit the process)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    config = uvicorn.Config(asgi_app(ready, live), host=host, port=port, lifespan="off",
                            access_log=False, log_config=None, log_level=logging.WARNING,
                            timeout_keep_alive=5, timeout_graceful_shutdown=2)
    server = _Server(config)
    task: asyncio.Task[None] = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):  # bounded: uvicorn binds within a few loop turns
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done() or not server.started:
        server.should_exit = True
        exc = task.exception() if task.done() and not task.cancelled() else None
        raise OSError(f"operations endpoint did not start on {host}:{port}") from exc
    return OpsServer(server, task)
