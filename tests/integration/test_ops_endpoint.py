"""The operations endpoint in process (shared/runtime/ops.py): prometheus_client's ASGI app
and the probes under uvicorn, a port in use refused cleanly, and a clean stop."""

from __future__ import annotations

import asyncio
import socket
import urllib.error
import urllib.request

import pytest

from shared.runtime import ops
from shared.runtime.valkey import free_port

pytestmark = pytest.mark.integration


def _get(url: str, accept: str | None = None) -> tuple[int, str, str]:
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


async def test_metrics_and_probes_are_served_and_the_server_stops() -> None:
    port = free_port()
    ready = asyncio.Event()

    async def is_ready() -> bool:
        return ready.is_set()

    async def wedged() -> bool:
        raise RuntimeError("a failing probe is a failed probe")

    srv = await ops.serve(port, is_ready, host="127.0.0.1", live=wedged)
    base = f"http://127.0.0.1:{port}"
    try:
        status, ctype, text = await asyncio.to_thread(_get, base + "/metrics")
        assert status == 200 and ctype.startswith("text/plain")
        assert "empire_draws_total" in text
        status, ctype, _ = await asyncio.to_thread(
            _get, base + "/metrics", "application/openmetrics-text; version=1.0.0")
        assert status == 200 and ctype.startswith("application/openmetrics-text")
        assert (await asyncio.to_thread(_get, base + "/healthz"))[::2] == (200, "ok\n")
        assert (await asyncio.to_thread(_get, base + "/readyz"))[::2] == (503, "not ready\n")
        ready.set()
        assert (await asyncio.to_thread(_get, base + "/readyz"))[::2] == (200, "ready\n")
        assert (await asyncio.to_thread(_get, base + "/livez"))[::2] == (503, "wedged\n")
        assert (await asyncio.to_thread(_get, base + "/nope"))[0] == 404
    finally:
        await srv.wait_closed()
    assert srv.task.done()
    with pytest.raises(OSError):
        await asyncio.to_thread(_get, base + "/healthz")


async def test_a_port_in_use_is_an_oserror_not_an_exit() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        async def ok() -> bool:
            return True

        with pytest.raises(OSError):
            await ops.serve(taken.getsockname()[1], ok, host="127.0.0.1")
    finally:
        taken.close()
