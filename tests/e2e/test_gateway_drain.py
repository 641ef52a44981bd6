"""A gateway stopping (SIGTERM) drains its WebSockets gradually: it stops accepting,
closes each socket with 1012 ("service restart": reconnect and resume), spread over
EMPIRE_DRAIN_S instead of all at once, and the clients resume on the restarted gateway."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import websockets

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.support.wsauth import offer, ws_url

pytestmark = [pytest.mark.e2e, pytest.mark.full]

SOCKETS = 8
DRAIN_S = 3.0


async def test_sigterm_closes_sockets_1012_spread_over_the_drain() -> None:
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/logs/drain"),
                     env_extra={"EMPIRE_DRAIN_S": str(DRAIN_S)})
    sup.start(wait=180)
    try:
        tokens = []
        for i in range(SOCKETS):
            async with Client(sup.url) as c:
                await c.sign_in(f"drain-{i}")
                tokens.append(c.token)
        socks = [await websockets.connect(ws_url(sup.url), subprotocols=offer(t or ""))
                 for t in tokens]
        for s in socks:
            await asyncio.wait_for(s.recv(), 10)  # the welcome
        closed: list[tuple[float, int | None]] = []

        async def wait_close(s: websockets.ClientConnection) -> None:
            try:
                while True:
                    await s.recv()
            except websockets.ConnectionClosed as exc:
                closed.append((time.monotonic(), exc.rcvd.code if exc.rcvd else None))

        waiters = [asyncio.create_task(wait_close(s)) for s in socks]
        gateway = next(p for p in sup.procs if p.service == "gateway")
        assert gateway.popen is not None
        t0 = time.monotonic()
        gateway.popen.terminate()
        await asyncio.wait_for(asyncio.gather(*waiters), DRAIN_S + 20)
        codes = [code for _, code in closed]
        assert codes == [1012] * SOCKETS, codes
        times = sorted(t - t0 for t, _ in closed)
        # spread: not all at once (a stampede), and within the drain plus slack
        assert times[-1] - times[0] >= DRAIN_S * 0.5, times
        assert times[-1] <= DRAIN_S + 10, times
        # the restarted gateway serves them again
        async with Client(sup.url) as c:
            for _ in range(100):
                try:
                    await c.sign_in("after-drain")
                    break
                except Exception:
                    await asyncio.sleep(0.2)
            assert c.token
    finally:
        sup.stop()
