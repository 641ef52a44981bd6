"""A tiny HTTP endpoint for every stream service: /metrics, /healthz (the process answers),
/readyz (Redis answers, the consumer groups exist, every subscriber runs) and /livez (every
subscriber runs and no consumer of this process is wedged: shared/runtime/liveness.py).
Stdlib asyncio, no framework."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from shared.runtime.metrics import render

Probe = Callable[[], Awaitable[bool]]


async def _probe(check: Probe | None, ok: bytes, failed: bytes) -> tuple[str, bytes]:
    passed = check is None
    if check is not None:
        with contextlib.suppress(Exception):
            passed = await asyncio.wait_for(check(), 2)
    return ("200 OK", ok) if passed else ("503 Service Unavailable", failed)


async def serve(port: int, ready: Probe, host: str = "0.0.0.0",
                live: Probe | None = None) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 5)
            while (await asyncio.wait_for(reader.readline(), 5)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.decode("latin-1").split()
            path = parts[1] if len(parts) > 1 else "/"
            status, ctype, body = "404 Not Found", "text/plain", b"not found\n"
            if path == "/metrics":
                status, ctype, body = "200 OK", "text/plain; version=0.0.4", render()
            elif path == "/healthz":
                status, body = "200 OK", b"ok\n"
            elif path == "/readyz":
                status, body = await _probe(ready, b"ready\n", b"not ready\n")
            elif path == "/livez":
                status, body = await _probe(live, b"live\n", b"wedged\n")
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: "
                         f"{len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(handle, host, port)
