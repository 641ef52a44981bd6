"""Per-process caps: WebSockets (EMPIRE_WS_MAX_SOCKETS: the next socket gets a typed
``message/unavailable`` and close 1013, try again later) and connections (uvicorn's
limit_concurrency = EMPIRE_HTTP_MAX_CONNECTIONS + EMPIRE_WS_MAX_SOCKETS: HTTP 503 beyond it),
on a gateway of its own with both at their minimum (16)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from clients.sdk import Client
from services.supervisor import Supervisor
from tests.siege.conftest import extra_gateways, report
from tests.support.wsauth import offer, ws_url

pytestmark = [pytest.mark.siege, pytest.mark.timeout(300)]

SMALL = {"EMPIRE_WS_MAX_SOCKETS": "16", "EMPIRE_HTTP_MAX_CONNECTIONS": "16",
         "EMPIRE_HTTP_HEAD_TIMEOUT_S": "30"}


async def test_socket_and_connection_caps_of_one_process(siege: Supervisor) -> None:
    opened: list[websockets.ClientConnection] = []
    idle: list[socket.socket] = []
    with extra_gateways(siege, SMALL) as (gw,):
        try:
            async with Client(gw) as c:
                await c.sign_in("siege-capacity")
                url = ws_url(gw)
                firsts = []
                for _ in range(17):
                    ws = await websockets.connect(url, subprotocols=offer(c.token or ""))
                    opened.append(ws)
                    firsts.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                code = None
                with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
                    await asyncio.wait_for(opened[-1].recv(), 10)
                code = opened[-1].close_code
                u = urlsplit(gw)
                for _ in range(20):  # connections that send nothing (yet)
                    idle.append(socket.create_connection((u.hostname or "", u.port or 80)))
                await asyncio.sleep(0.3)
                async with httpx.AsyncClient(base_url=gw, timeout=10) as http:
                    full = (await http.get("/api/games")).status_code
                    for s in idle:
                        s.close()
                    idle.clear()
                    await asyncio.sleep(0.5)
                    after = (await http.get("/api/games")).status_code
            types = [f["type"] for f in firsts]
            report("capacity", {"ws_cap": 16, "ws_answers": {t: types.count(t) for t in types},
                                "ws_17th_close": code, "http_when_full": full,
                                "http_after": after})
            assert types == ["welcome"] * 16 + ["rejected"], types
            assert firsts[-1]["code"] == "message/unavailable" and code == 1013
            assert full == 503 and after == 200, (full, after)
        finally:
            for ws in opened:
                with contextlib.suppress(Exception):
                    await ws.close()
            for s in idle:
                s.close()
