"""The broker and consumer-group plumbing every service uses (faststream over Redis Streams).

``consume`` registers a handler on a stream in a consumer group with:
- a unique consumer name per replica and ``max_records`` (no replica hoards the backlog);
- ack only after the handler returns (its effect is durable by then);
- a reclaim subscriber (XAUTOCLAIM via ``min_idle_time``) that takes over entries left pending
  by a dead replica;
- a delivery cap: an entry that failed ``MAX_DELIVERIES`` times goes to the dead-letter stream.
Handlers must be idempotent: a reclaimed entry may have been half-processed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from faststream.redis import RedisBroker, RedisClusterBroker, StreamSub
from faststream.redis.annotations import RedisStreamMessage

from shared.protocol import streams
from shared.runtime.jsonutil import dumps
from shared.runtime.settings import Settings

Handler = Callable[[dict[str, Any]], Awaitable[None]]
log = structlog.get_logger("bus")


def make_broker(settings: Settings, logger: Any = None) -> RedisBroker | RedisClusterBroker:
    # per-message access logs at DEBUG: our handlers log what matters, with game and seat
    if settings.cluster:
        return RedisClusterBroker(settings.redis_url, logger=logger, log_level=logging.DEBUG)
    return RedisBroker(settings.redis_url, logger=logger, log_level=logging.DEBUG)


async def _dead_letter(msg: Any, stream: str, body: Any, exc: BaseException) -> None:
    redis = msg.consumer if hasattr(msg, "consumer") else None
    if redis is not None:
        await redis.xadd(streams.DEAD_LETTERS, {"stream": stream, "body": dumps(body),
                                                "error": repr(exc)[:500]},
                         maxlen=streams.MAXLEN_INTERNAL, approximate=True)


def consume(broker: Any, stream: str, group: str, settings: Settings, handler: Handler,
            *, title: str | None = None, description: str | None = None) -> None:
    """Register ``handler`` for ``stream`` in ``group`` (plus its reclaim subscriber)."""

    async def run(body: dict[str, Any], msg: Any) -> None:
        try:
            await handler(body)
        except Exception as exc:
            count = await msg.get_delivery_count()
            if count >= streams.MAX_DELIVERIES:
                log.error("dead_letter", stream=stream, deliveries=count, error=repr(exc))
                await _dead_letter(msg, stream, body, exc)
                return  # acked: moved to the dead-letter stream
            raise

    live = StreamSub(stream, group=group, consumer=settings.instance,
                     max_records=settings.max_records)

    @broker.subscriber(stream=live, title=title or f"{stream}:{group}",
                       description=description)  # type: ignore[misc,untyped-decorator]
    async def on_message(body: dict[str, Any], msg: RedisStreamMessage) -> None:
        await run(body, msg)

    reclaim = StreamSub(stream, group=group, consumer=f"{settings.instance}-reclaim",
                        max_records=settings.max_records,
                        min_idle_time=streams.RECLAIM_IDLE_MS)

    @broker.subscriber(stream=reclaim, include_in_schema=False)  # type: ignore[misc,untyped-decorator]
    async def on_reclaim(body: dict[str, Any], msg: RedisStreamMessage) -> None:
        await run(body, msg)
