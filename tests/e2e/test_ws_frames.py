"""Every WebSocket frame the gateway sends validates against the committed contract
(shared/protocol/schema/ws-server-message.json, the server models'): the welcome, the chat
frames (history, messages, mutes) and a whole game's (views, record entries, accepted,
committed, rejected, pong)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from websockets.typing import Subprotocol

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.protocol.server import SERVER_ADAPTER

pytestmark = pytest.mark.e2e
SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "protocol" / "schema"


def validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMA / "ws-server-message.json").read_text()))


def check(frames: list[dict[str, Any]]) -> set[str]:
    v = validator()
    kinds = set()
    for f in frames:
        kinds.add(f["type"])
        errors = [e.message for e in v.iter_errors(f)]
        assert not errors, (f["type"], errors[:3])
        SERVER_ADAPTER.validate_python(f)  # and the models the server builds them from
    return kinds


async def welcome(url: str, token: str) -> dict[str, Any]:
    offer = [Subprotocol("empire.v1"), Subprotocol(f"empire.token.{token}")]
    async with websockets.connect(url.replace("http", "ws", 1) + "/ws",
                                  subprotocols=offer) as ws:
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 30)))


async def until(cond: Any, what: str) -> None:
    for _ in range(250):  # bounded
        if cond():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {what} frame")


async def test_every_frame_the_gateway_sends_validates(system: Supervisor) -> None:
    async with Client(system.url, capture=True) as host, Client(system.url) as other:
        await host.sign_in("frames-host")
        await other.sign_in("frames-other")
        hello = await welcome(system.url, host.token or "")
        assert hello["type"] == "welcome" and hello["player_id"] == host.player_id

        t = await host.create_table("duel", seats=2, options={"rounds": 2})
        await host.chat_join(table_id=t["table_id"])
        await host.chat("hello frames", table_id=t["table_id"])
        assert other.player_id is not None
        await host.chat_mute(other.player_id)
        captured = lambda: host.captured or []  # noqa: E731
        await until(lambda: any('"chat_mutes"' in f for f in captured()), "chat_mutes")

        await host.add_bot(t["table_id"])
        gid = await host.start(t["table_id"])
        session = await play_seat(host, gid)
        assert session.ended
        bad = await host._command({"type": "act", "cmd_id": "bad!", "game_id": gid})
        assert bad["type"] == "rejected"
        await host._send({"type": "ping"})
        await until(lambda: any('"pong"' in f for f in captured()), "pong")
        # the SDK watches at protocol v3 (view + records frames); a v2 watch of the
        # same game gets today's frames: one record frame per entry
        await host._send({"type": "watch", "v": 2, "game_id": gid})
        await until(lambda: any('"type":"record"' in f.replace(" ", "") for f in captured()),
                    "record")
        frames = [json.loads(f) for f in captured()]
    kinds = check([hello, *frames])
    assert {"welcome", "chat_history", "chat", "chat_mutes", "view", "record", "records",
            "accepted", "committed", "rejected", "pong"} <= kinds, kinds
