"""Handler contracts with faststream's in-memory TestRedisBroker (no server): the stream a
message arrives on is part of its trust, and replies reach only their sender."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from faststream.redis import TestRedisBroker

from shared.protocol import internal as im

pytestmark = pytest.mark.service


@pytest.fixture
def adjudicator_app(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[dict[str, Any]]]:
    from services.adjudicator.app import wire
    from shared.runtime.service import build

    kit = build("adjudicator")
    adjudicator = wire(kit)  # the handlers as create_app wires them
    seen: list[dict[str, Any]] = []

    async def record(body: dict[str, Any]) -> None:
        seen.append(body)

    monkeypatch.setattr(adjudicator, "dispatch", record)
    return kit, seen


async def test_adjudicator_accepts_each_message_only_on_its_own_stream(
        adjudicator_app: tuple[Any, list[dict[str, Any]]]) -> None:
    kit, seen = adjudicator_app
    reveal = im.RoundRevealed(game_id="g", round_id="r", choices={"s0": 1}).model_dump(mode="json")
    action = im.SubmitAction(cmd_id="c", game_id="g", seat=0, player_id="p",
                             action={"type": "x"}).model_dump(mode="json")
    draw = im.DrawMade(game_id="g", label="l", values=[1]).model_dump(mode="json")
    async with TestRedisBroker(kit.broker) as br:
        # forged answers on the gateway's stream are dropped: only the escrow writes reveals,
        # only the dealer writes draws
        await br.publish(reveal, stream="adj:actions:0")
        await br.publish(draw, stream="adj:actions:0")
        await br.publish(action, stream="adj:reveals:0")
        assert seen == []
        await br.publish(action, stream="adj:actions:0")
        await br.publish(reveal, stream="adj:reveals:0")
        await br.publish(draw, stream="adj:draws:0")
    assert [b["type"] for b in seen] == ["submit_action", "round_revealed", "draw_made"]


async def test_gateway_routes_a_reply_to_its_sender_only() -> None:
    from services.gateway.app import create_app
    from services.gateway.fanout.hub import Connection
    from services.gateway.fanout.outbound import Outbound

    inbox: dict[str, list[str]] = {"alice": [], "bob": []}

    def connection(who: str) -> Connection:
        async def send(text: str) -> None:
            inbox[who].append(text)

        async def close(code: int, reason: str) -> None:
            pass

        out = Outbound(send, close, max_frames=64, max_bytes=1 << 16, send_timeout_s=5.0)
        out.start()  # frames are queued by the fan-out and sent by this writer task
        return Connection(player_id=f"p-{who}", name=who, out=out)

    gw = create_app().state.gateway  # the fan-out subscriber as create_app wires it
    alice, bob = connection("alice"), connection("bob")
    gw.hub.add(alice)
    gw.hub.add(bob)
    try:
        reply = im.Reply(game_id="g", player_id="p-alice", cmd_id="c1", ok=False,
                         code="action/illegal", message="no")
        async with TestRedisBroker(gw.broker) as br:
            await br.publish(reply.model_dump(mode="json"), stream="gw:updates")
        for _ in range(50):
            if inbox["alice"]:
                break
            await asyncio.sleep(0.01)
        assert len(inbox["alice"]) == 1 and '"action/illegal"' in inbox["alice"][0]
        assert inbox["bob"] == []
    finally:
        gw.hub.remove(alice)
        gw.hub.remove(bob)
