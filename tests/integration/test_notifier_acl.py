"""The notifier under its own ACL user (shared/protocol/acl.py, as the shipped Valkey loads it):
its whole path works with no ACL denial (the turns consumer group, the settings requests and
their reply, the due-queue, the claim and the verification, turn and unsubscribe steps), it
cannot read any game's keys, and the gateway may write its request stream but not its keys."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError

from services.lobby.rpc import RpcServer
from services.notifier.app import GROUP_RPC
from services.notifier.store import RPC
from shared.protocol import turns as tp
from shared.runtime.outbox import Outbox
from shared.runtime.redis import ensure_group
from shared.runtime.valkey import EmbeddedValkey
from tests.support.notify_sinks import MailSink
from tests.support.notify_system import ADDR, T0, Clock, System, turns, verified
from tests.support.waits import eventually

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def valkey() -> Iterator[EmbeddedValkey]:
    server = EmbeddedValkey(shipped=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def as_notifier(valkey: EmbeddedValkey) -> AsyncIterator[Any]:
    client = aioredis.Redis.from_url(valkey.url_for("notifier"))
    yield client
    await client.aclose()


async def test_the_notifier_works_under_its_own_user_and_reads_no_game(
        valkey: EmbeddedValkey, as_notifier: Any, smtp: MailSink) -> None:
    admin = aioredis.Redis.from_url(valkey.url)
    gateway = aioredis.Redis.from_url(valkey.url_for("gateway"))
    try:
        await admin.hset("g:{g-1}:state", "doc", "SECRET-hand")
        await ensure_group(as_notifier, tp.TURNS, tp.GROUP_NOTIFIER)
        await ensure_group(as_notifier, RPC, GROUP_RPC)
        clock = Clock()
        sys = System(as_notifier, clock, smtp.url)
        await verified(sys, smtp)
        await sys.notifier.dispatch(turns("g-1", 1, T0))
        await sys.poll()
        assert [m for m in smtp.to(ADDR) if "g-1" in str(m.msg["Subject"])]
        await as_notifier.xreadgroup(tp.GROUP_NOTIFIER, "c", {tp.TURNS: ">"}, count=1)
        for command in (("HGETALL", "g:{g-1}:state"), ("GET", "lobby:player:p-ann"),
                        ("XADD", "adj:actions:0", "*", "a", "b")):
            with pytest.raises(NoPermissionError):
                await as_notifier.execute_command(*command)

        # the gateway's request reaches the notifier's request server and its reply comes back
        # on the gateway's channel (published by the notifier's user)
        server = RpcServer(sys.settings, as_notifier, sys.prefs.handle, stream=RPC,
                           group=GROUP_RPC)
        pubsub = gateway.pubsub()
        await pubsub.subscribe("reply:test")
        await Outbox(gateway).publish({"op": "notify_get", "player_id": "p-ann"}, stream=RPC,
                                      reply_to="reply:test", correlation_id="c-1")
        serving = asyncio.create_task(server.run())
        replies: list[Any] = []

        async def got_reply() -> bool:
            msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if msg is not None:
                replies.append(msg)
            return bool(replies)

        try:
            await eventually(got_reply, "the notifier's reply")
        finally:
            serving.cancel()
        assert b"ann@example.org" in replies[0]["data"]
        with pytest.raises(NoPermissionError):
            await gateway.get("notify:key")
    finally:
        await admin.aclose()
        await gateway.aclose()
