"""The gateway's WebSocket protocol (services/gateway/edge/server.py) under a real uvicorn and
a real client: ``empire.send_texts`` frames a backlog into one write to the socket, each text
still its own message in order, and refuses once the close is on its way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.utils import ClientDisconnected
from websockets.asyncio.client import connect

from services.gateway.edge.server import GuardedWebSocketProtocol
from shared.runtime.valkey import free_port

pytestmark = pytest.mark.integration


class _CountedWrites:
    """The socket's transport, counting its writes."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.writes = 0

    def write(self, data: bytes) -> None:
        self.writes += 1
        self._inner.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Counted(GuardedWebSocketProtocol):
    made: list[_Counted] = []

    def connection_made(self, transport: Any) -> None:
        self.counted = _CountedWrites(transport)
        _Counted.made.append(self)
        super().connection_made(self.counted)


async def test_a_backlog_is_one_write_of_separate_messages_and_nothing_after_the_close(
) -> None:
    seen: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        send_texts = scope["extensions"]["empire.send_texts"]["call"]
        proto = _Counted.made[-1]
        before = proto.counted.writes
        await send_texts(["one", "two", "three" * 1000])
        seen["writes"] = proto.counted.writes - before
        proto.close_now(1000, "done", 5.0)
        try:
            await send_texts(["late"])
        except ClientDisconnected:
            seen["late"] = "refused"
        await receive()  # the disconnect

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws=_Counted,
                                           lifespan="off", log_level="warning",
                                           loop="asyncio"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        got: list[str] = []
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            async for message in ws:
                got.append(str(message))
        assert got == ["one", "two", "three" * 1000]
        assert ws.close_code == 1000
        assert seen == {"writes": 1, "late": "refused"}
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)
