"""Requests to the lobby: over its stream (``lobby:rpc``, a consumer group, so any lobby replica
answers and a request survives a lobby restart), with every reply on one pub/sub channel per
gateway process, matched to its waiting caller by correlation id.

faststream's own ``broker.request`` subscribes a fresh channel for each call, and redis-py
closes that pub/sub connection afterwards: a new TCP connection and AUTH per HTTP call to the
lobby. Here the channel is subscribed once, when the broker starts. The lobby answers each
request on ``reply_to`` with the request's correlation id (faststream's wire format) and then
deletes the request from the stream (services/lobby/rpc.py).

Requests are written through an ``Outbox`` on the broker's own client: concurrent calls go to
Valkey in one pipelined round trip instead of one pooled connection each (faststream's
publish took a connection per call, and a burst of over 100 concurrent calls failed with
"Too many connections"), each trimmed at lobby:rpc's byte-budgeted cap.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from typing import Any

from faststream.redis import RedisBroker, RedisClusterBroker

from shared.protocol import keys, streams
from shared.runtime.outbox import Outbox


class LobbyRpc:
    def __init__(self, broker: RedisBroker | RedisClusterBroker, instance: str) -> None:
        self.broker = broker
        self.channel = keys.reply_channel(instance, secrets.token_hex(4))
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count()
        self._out: Outbox | None = None

        @broker.subscriber(channel=self.channel, include_in_schema=False)  # type: ignore[misc,untyped-decorator]
        async def on_reply(body: dict[str, Any]) -> None:
            # the message from the context, not a handler parameter (no thread hop)
            cid = broker.context.get_local("message").correlation_id
            fut = self._waiting.pop(cid, None)
            if fut is not None and not fut.done():
                fut.set_result(body)

    async def request(self, body: dict[str, Any], timeout: float,
                      stream: str = streams.LOBBY_RPC) -> dict[str, Any]:
        """The lobby's answer; TimeoutError if none arrives in ``timeout`` seconds.
        ``stream``: another request server answering the same way (services/lobby/rpc.py
        ``RpcServer``), e.g. the notifier's ``notify:rpc``; replies share this channel."""
        cid = f"{self.channel}:{next(self._ids)}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[cid] = fut
        try:
            client = await self.broker.connect()  # the broker's client (connects once)
            if self._out is None or self._out.redis is not client:
                self._out = Outbox(client)
            await self._out.publish(body, stream=stream, reply_to=self.channel,
                                    correlation_id=cid)
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._waiting.pop(cid, None)
