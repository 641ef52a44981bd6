"""The broker and consumer-group plumbing every service uses (faststream over Redis Streams).

``consume`` puts a handler on a stream in a consumer group with:
- a unique consumer name per replica and ``max_records`` (no replica hoards the backlog);
- batch consumption by a lean live reader (``StreamReader``, not a faststream subscriber:
  faststream's per-message path would cost each batch several hundred µs of CPU): one
  XREADGROUP batch's messages are handled concurrently across games and in stream order
  within a game, and the batch is XACKed in one command once every message succeeded;
- ack only after the handler returned (its effect is durable by then): when some messages
  of a batch fail, only the others are XACKed and the failed ones stay pending;
- an acknowledged entry is deleted in the same round trip (XACK + XDEL, pipelined) on every
  stream read by one consumer group, so a handled entry leaves no bytes behind and the stream
  holds only its backlog (``streams.MULTI_GROUP`` streams keep theirs for the other groups;
  their byte-budgeted cap bounds them);
- a reclaim subscriber (faststream's XAUTOCLAIM via ``min_idle_time``, which also documents
  the stream in the AsyncAPI document) that takes over entries left pending by a dead
  replica or a failed handler;
- a delivery cap: an entry that failed ``MAX_DELIVERIES`` times goes to the dead-letter stream.
Handlers must be idempotent: a reclaimed entry may have been half-processed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import operator
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any

import orjson
import structlog
from faststream import AckPolicy
from faststream.redis import RedisBroker, RedisClusterBroker, StreamSub
from faststream.redis.opentelemetry import RedisTelemetryMiddleware
from faststream.redis.parser.binary import BinaryMessageFormatV1
from faststream.redis.prometheus import RedisPrometheusMiddleware
from faststream.redis.subscriber.usecases import basic as basic_subscriber
from faststream.redis.subscriber.usecases import stream_subscriber
from pydantic import Field

from shared.protocol import streams
from shared.runtime import metrics, tracing
from shared.runtime.jsonutil import dumps, text
from shared.runtime.redis import Client, healthy, read_group, tls
from shared.runtime.settings import Settings

Handler = Callable[[dict[str, Any]], Awaitable[None]]
_DATA = b"__data__"


# How long a live reader's XREADGROUP blocks when its stream is empty. A blocked read returns
# as soon as an entry arrives, so this costs no latency; it sets how often an idle stream's
# reader asks again (each ask is a command and a turn of the reader's loop in every process).
# Under the 1 s after which the connection's health check would PING before each read
# (shared/runtime/redis.py).
LIVE_BLOCK_MS = 900
START_POLL_MS = 100  # until settle_polling: faststream starts a subscriber after its first poll


def reclaim_poll_ms() -> int:
    """How often a reclaim subscriber looks for entries left pending (XAUTOCLAIM) when it
    found none: a fifth of RECLAIM_IDLE_MS (1 s of 5 s), since an entry becomes claimable only
    once idle that long, so it is taken over within 1.2x the bound; never under faststream's
    100 ms default, which cost every idle subscriber ten commands a second in every process
    (a third of an idle system's CPU)."""
    return max(100, streams.RECLAIM_IDLE_MS // 5)


def settle_polling(broker: RedisBroker | RedisClusterBroker) -> int:
    """Give the reclaim subscribers ``consume`` registered their running interval
    (``reclaim_poll_ms``); returns how many changed. Called once the broker started: faststream
    starts its subscribers one after another, each only once its first read returned (a
    reclaim's pause after an empty XAUTOCLAIM), so they start at START_POLL_MS. Their read
    loops read the interval from the subscriber's StreamSub (the one copy
    ``memoize_stream_sub`` keeps) at every read, so the change holds from the next."""
    wanted: list[tuple[StreamSub, int]] = getattr(broker, "_empire_polls", [])
    changed = 0
    for sub in getattr(broker, "subscribers", ()):
        own = getattr(sub, "_stream_sub", None)
        for stream_sub, ms in wanted:
            if own is stream_sub:
                sub.stream_sub.polling_interval = ms
                changed += 1
    return changed


_BACKOFF = "CONSUME_ERROR_BACKOFF_SECONDS"
log = structlog.get_logger("bus")


def set_read_retry(seconds: float) -> None:
    """The pause before a failed read is tried again. faststream 0.7 has no option for it:
    its subscribers sleep ``CONSUME_ERROR_BACKOFF_SECONDS`` (5 s) after any fetch error (the
    stream subscriber's copy of the constant, and the base one that pub/sub channels use), so
    after a Valkey restart every consumer stayed idle up to 5 s, and a gateway's reply channel
    missed the lobby's answers for as long. One broker per process: setting the modules'
    constant sets it for this process."""
    for module in (basic_subscriber, stream_subscriber):
        if not hasattr(module, _BACKOFF):
            raise RuntimeError(f"faststream changed: {module.__name__}.{_BACKOFF} is gone")
        setattr(module, _BACKOFF, seconds)


_MIXIN = stream_subscriber._StreamHandlerMixin


def _stream_sub_once(self: Any) -> Any:
    """The subscriber's StreamSub with the broker's prefix, copied once per prefix."""
    prefix = self._outer_config.prefix
    held = getattr(self, "_empire_stream_sub", None)
    if held is None or held[0] != prefix:
        held = (prefix, self._stream_sub.add_prefix(prefix))
        self._empire_stream_sub = held
    return held[1]


def memoize_stream_sub() -> None:
    """faststream 0.7's stream subscribers read their settings through a property that
    deep-copies the StreamSub (``add_prefix``, ~19 µs) on every access: once per XREADGROUP,
    once per message for its log context, and four times per reclaim poll (XAUTOCLAIM every
    100 ms while idle). Nothing writes to the copy, so one copy per prefix serves every read
    (per access, the copies cost ~6% of the adjudicator's busy CPU under load)."""
    prop = _MIXIN.__dict__.get("stream_sub")
    if not isinstance(prop, property):
        raise RuntimeError("faststream changed: _StreamHandlerMixin.stream_sub is gone")
    if prop.fget is _stream_sub_once:
        return
    _MIXIN.stream_sub = property(_stream_sub_once)  # type: ignore[method-assign,assignment]


def middlewares() -> tuple[Any, ...]:
    """faststream's own middlewares on every broker: Prometheus (per handler and destination:
    messages received and published, their latency, errors by exception type, in flight;
    ``faststream_*`` in the process registry) and OpenTelemetry (trace context through the
    entries' headers; spans are no-ops unless tracing is configured)."""
    return (RedisPrometheusMiddleware(registry=metrics.REGISTRY, app_name="empire"),
            RedisTelemetryMiddleware(include_messages_counters=False))


def make_broker(settings: Settings, logger: Any = None) -> RedisBroker | RedisClusterBroker:
    set_read_retry(settings.read_retry_s)
    memoize_stream_sub()
    # per-message access logs at DEBUG: our handlers log what matters, with game and seat
    if settings.cluster:
        # faststream builds the cluster's connections itself (no connection_class): redis-py's
        # own PING-before-use check covers them (health_check_interval)
        return RedisClusterBroker(settings.redis_url, logger=logger, log_level=logging.DEBUG,
                                  health_check_interval=1, middlewares=middlewares(),
                                  **tls(settings.redis_url, settings.redis_ca_file))
    return RedisBroker(settings.redis_url, logger=logger, log_level=logging.DEBUG,
                       middlewares=middlewares(),
                       **healthy(settings.redis_url, settings.redis_ca_file))


async def dead_letter(redis: Client | None, stream: str, body: Any, exc: BaseException) -> None:
    """Move an entry that kept failing to the dead-letter stream (``redis``: None when
    faststream handed the message without its client, and there is nowhere to move it)."""
    if redis is not None:
        await redis.xadd(streams.DEAD_LETTERS, {"stream": stream, "body": dumps(body),
                                                "error": repr(exc)[:500]},
                         maxlen=streams.maxlen(streams.DEAD_LETTERS), approximate=True)


async def _delivery_count(redis: Client, stream: str, group: str, msg_id: bytes) -> int:
    entries = await redis.xpending_range(name=stream, groupname=group, min=msg_id, max=msg_id,
                                         count=1)
    return int(entries[0]["times_delivered"]) if entries else 1


def _game_of(body: Any) -> str:
    return str(body.get("game_id", "")) if isinstance(body, dict) else ""


@dataclass(slots=True)
class Delivery:
    """The stream entry a live reader's handler is handling (``delivery()``). A handler whose
    last effect is one atomic step (a Lua script) may acknowledge the entry in that same step
    and set ``acked``: the batch's XACK then leaves it out, which saves the handler's process
    and Valkey a round trip per message when messages come one at a time."""

    stream: str
    group: str
    id: bytes
    delete: bool  # XDEL it too (a stream read by one group: ``consume``)
    acked: bool = False


_DELIVERY: ContextVar[Delivery | None] = ContextVar("empire_delivery", default=None)


def delivery() -> Delivery | None:
    """The entry the running handler is handling, if it came from a live read."""
    return _DELIVERY.get()


async def handle_batch(handler: Handler, bodies: list[Any], stream: str = "",
                       headers: Sequence[Mapping[str, Any]] = (),
                       deliveries: Sequence[Delivery] = ()) -> dict[int, Exception]:
    """Run ``handler`` over a batch: games concurrently, each game's messages in order, each
    in a span that continues the trace its message carries (``headers[i]``), with
    ``delivery()`` its entry (``deliveries[i]``). Returns the failures by index."""
    failed: dict[int, Exception] = {}

    async def in_order(indexes: list[int]) -> None:
        for i in indexes:
            token = _DELIVERY.set(deliveries[i] if i < len(deliveries) else None)
            try:
                with tracing.message_span(stream, headers[i] if i < len(headers) else None):
                    await handler(bodies[i])
            except Exception as exc:
                failed[i] = exc
            finally:
                _DELIVERY.reset(token)

    by_game: dict[str, list[int]] = {}
    for i, body in enumerate(bodies):
        by_game.setdefault(_game_of(body), []).append(i)
    await asyncio.gather(*(in_order(ix) for ix in by_game.values()))
    return failed


async def acknowledge(redis: Client | None, stream: str, group: str, ids: list[bytes],
                      delete: bool) -> None:
    """XACK ``ids`` (and XDEL them when ``delete``) in one round trip. ``redis``: the
    message's consumer client (None when faststream gave none)."""
    if redis is None or not ids:
        return
    if not delete:
        await redis.xack(stream, group, *ids)
        return
    if not hasattr(redis, "pipeline"):  # faststream's in-memory test consumer
        await redis.xack(stream, group, *ids)
        await redis.xdel(stream, *ids)
        return
    async with redis.pipeline(transaction=False) as pipe:
        pipe.xack(stream, group, *ids)
        pipe.xdel(stream, *ids)
        await pipe.execute()


def one_of(*types: type[Any]) -> Any:
    """The message type for ``types``: the model itself, or their union told apart by
    ``type``."""
    if len(types) == 1:
        return types[0]
    return Annotated[functools.reduce(operator.or_, types), Field(discriminator="type")]


def describe(spec: RedisBroker, sub: StreamSub, title: str, description: str | None,
             payload: Any) -> None:
    """Document ``title`` in the AsyncAPI document with its real message type: a subscriber
    on ``spec``, a broker that only describes channels and is never started (the live
    subscribers parse nothing: their handlers validate each message themselves, so a bad
    one is refused and, after the delivery cap, dead-lettered, instead of failing in
    faststream's parser before any of that)."""

    async def message(body: Any) -> None:  # pragma: no cover - never started
        del body

    message.__annotations__["body"] = payload
    spec.subscriber(stream=sub, title=title, description=description)(message)


async def settle(redis: Client, stream: str, group: str, bodies: list[Any],
                 failed: dict[int, Exception], ids: list[bytes],
                 deliveries: list[Delivery], delete: bool) -> int:
    """XACK (and delete) a batch's handled entries and its dead-lettered ones, leave the rest
    pending (and those their handler acknowledged itself); returns how many were
    dead-lettered."""
    done = [m for i, m in enumerate(ids) if i not in failed and not deliveries[i].acked]
    dead = 0
    for i, exc in failed.items():
        count = await _delivery_count(redis, stream, group, ids[i])
        if count >= streams.MAX_DELIVERIES:
            log.error("dead_letter", stream=stream, deliveries=count, error=repr(exc))
            await dead_letter(redis, stream, bodies[i], exc)
            dead += 1
            done.append(ids[i])  # acked: moved to the dead-letter stream
        else:
            log.warning("handler_failed", stream=stream, deliveries=count,
                        error=repr(exc)[:300])
    await acknowledge(redis, stream, group, done, delete)
    return dead


def decode_entry(fields: Mapping[bytes, bytes]) -> tuple[Any, dict[str, Any]]:
    """A stream entry's body and headers: faststream's binary format in ``__data__`` (what
    every publisher here writes, ``outbox.encode``), its JSON decoded (a body that is not
    JSON stays text, for the handler to refuse); an entry of plain fields is their dict."""
    raw = fields.get(_DATA)
    if raw is None:
        return {text(k): text(v) for k, v in fields.items()}, {}
    data, headers = BinaryMessageFormatV1.parse(raw)
    try:
        return orjson.loads(data), headers
    except orjson.JSONDecodeError:
        return data.decode(errors="replace"), headers


class StreamReader:
    """The live reader of ``stream`` for one consumer of ``group``: one XREADGROUP of up to
    ``max_records`` new entries, the batch handled (``handle_batch``), then one XACK (+ XDEL)
    of what succeeded (``settle``). It reads without faststream's subscriber: that path
    costs each read batch several hundred µs of CPU in middlewares, dependency resolution
    and per-message context (``python -m bench --only micro``), paid once per message when
    messages come one at a time; here metrics are counted once per batch. A stop (the task
    cancelled) waits for the batch in hand, so what was handled is also acknowledged."""

    def __init__(self, stream: str, group: str, handler: Handler, settings: Settings,
                 delete: bool) -> None:
        self.stream = stream
        self.group = group
        self.consumer = settings.instance
        self.handler = handler
        self.max_records = settings.max_records
        self.retry_s = settings.read_retry_s
        self.delete = delete
        self._handled = metrics.STREAM_MESSAGES.labels(stream, "handled")
        self._failed = metrics.STREAM_MESSAGES.labels(stream, "failed")
        self._dead = metrics.STREAM_MESSAGES.labels(stream, "dead_letter")
        self._seconds = metrics.STREAM_BATCH_SECONDS.labels(stream)
        self._in_process = metrics.STREAM_IN_PROCESS.labels(stream)

    async def run(self, redis: Client) -> None:
        """Read and handle until cancelled."""
        while True:
            entries = await read_group(redis, self.stream, self.group, self.consumer,
                                       self.max_records, self.retry_s, LIVE_BLOCK_MS)
            if not entries:  # none within the block, or a failed read (retried after a wait)
                continue
            batch = asyncio.ensure_future(self.handle(redis, entries))
            try:
                await asyncio.shield(batch)
            except asyncio.CancelledError:
                while not batch.done():  # a stop: the batch in hand is finished and
                    with contextlib.suppress(asyncio.CancelledError):  # acknowledged first
                        await asyncio.wait((batch,))
                if not batch.cancelled():
                    batch.exception()  # retrieved: what is unacknowledged is reclaimed
                raise
            except Exception as exc:
                # the acknowledgement failed (Valkey restarting): the entries stay pending
                # and are reclaimed and handled again (handlers are idempotent); the reader
                # goes on after the pause a failed read takes
                log.warning("stream_settle_failed", stream=self.stream, error=repr(exc)[:200])
                await asyncio.sleep(self.retry_s)

    async def handle(self, redis: Client, entries: list[tuple[bytes, Any]]) -> None:
        """One read batch: decoded, handled, settled."""
        ids: list[bytes] = []
        bodies: list[Any] = []
        headers: list[Mapping[str, Any]] = []
        for msg_id, fields in entries:
            body, head = decode_entry(fields or {})
            ids.append(msg_id)
            bodies.append(body)
            headers.append(head)
        deliveries = [Delivery(self.stream, self.group, m, self.delete) for m in ids]
        n = len(ids)
        self._in_process.inc(n)
        t0 = time.perf_counter()
        try:
            failed = await handle_batch(self.handler, bodies, self.stream, headers, deliveries)
        finally:
            self._in_process.dec(n)
            self._seconds.observe(time.perf_counter() - t0)
        for exc in failed.values():
            metrics.STREAM_FAILURES.labels(self.stream, type(exc).__name__).inc()
        self._handled.inc(n - len(failed))
        if failed:
            self._failed.inc(len(failed))
        dead = await settle(redis, self.stream, self.group, bodies, failed, ids, deliveries,
                            self.delete)
        if dead:
            self._dead.inc(dead)


def consume(broker: RedisBroker, stream: str, group: str, settings: Settings, handler: Handler,
            *, title: str | None = None, description: str | None = None,
            payload: Any = None, spec: RedisBroker | None = None) -> StreamReader:
    """``handler`` on ``stream`` in ``group``: the live reader returned (the caller runs it,
    ``StreamReader.run``, once the group exists: ``ServiceKit`` does) and its reclaim
    subscriber registered on ``broker``. ``payload`` (a message model or union) with
    ``spec`` (a broker never started) documents the stream's messages in the AsyncAPI
    document (``describe``)."""
    delete = streams.base_of(stream) not in streams.MULTI_GROUP
    reader = StreamReader(stream, group, handler, settings, delete)

    reclaim = StreamSub(stream, group=group, consumer=f"{settings.instance}-reclaim",
                        max_records=settings.max_records,
                        min_idle_time=streams.RECLAIM_IDLE_MS,
                        polling_interval=START_POLL_MS)
    polls = getattr(broker, "_empire_polls", None)
    if polls is None:
        polls = []
        broker._empire_polls = polls  # type: ignore[union-attr,attr-defined]
    polls.append((reclaim, reclaim_poll_ms()))

    documented = payload is not None and spec is not None
    if payload is not None and spec is not None:
        describe(spec, reclaim, title or f"{stream}:{group}", description, payload)

    @broker.subscriber(stream=reclaim, title=title or f"{stream}:{group}",
                       description=description, include_in_schema=not documented,
                       ack_policy=AckPolicy.MANUAL)  # type: ignore[misc,untyped-decorator]
    async def on_reclaim(body: dict[str, Any]) -> None:
        msg = broker.context.get_local("message")
        redis = getattr(msg, "consumer", None)
        ids: list[bytes] = list(msg.raw_message.get("message_ids", ())) if msg else []
        try:
            await handler(body)
        except Exception as exc:
            count = await msg.get_delivery_count()
            if count >= streams.MAX_DELIVERIES:
                log.error("dead_letter", stream=stream, deliveries=count, error=repr(exc))
                await dead_letter(redis, stream, body, exc)
                await acknowledge(redis, stream, group, ids, delete)  # moved to the dlq
                return
            raise  # left pending: reclaimed again after RECLAIM_IDLE_MS
        await acknowledge(redis, stream, group, ids, delete)

    return reader
