"""Trace context across stream hops, in one process with an in-memory span exporter
(shared/runtime/tracing.py, outbox.py, bus.py).

The path of a command, each hop through the piece the real service uses: a publish through
the outbox outside any span (the gateway's WebSocket command) -> a batch consumer that
publishes through the outbox (adjudicator, escrow) -> a batch consumer that publishes with
``broker.publish`` (the dealer; faststream's telemetry middleware) -> the gateway's fan-out
subscriber (``tracing.received``). Every span must land in the one trace the first publish
started, each child of the one before."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from faststream.redis import StreamSub
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from shared.runtime import bus, tracing
from shared.runtime.outbox import Outbox
from shared.runtime.redis import client, ensure_group
from shared.runtime.settings import Settings
from shared.runtime.tasks import cancel_and_wait
from tests.e2e.conftest import with_db

pytestmark = pytest.mark.integration
DB = 10  # its own logical database (11-14: test_storage_bounds flushes them)
EXPORTER = InMemorySpanExporter()


def _provider() -> None:
    current = trace.get_tracer_provider()
    if not isinstance(current, TracerProvider):
        tracing.install(TracerProvider())
        current = trace.get_tracer_provider()
    assert isinstance(current, TracerProvider), "another tracer provider is installed"
    assert tracing.enabled()
    current.add_span_processor(SimpleSpanProcessor(EXPORTER))


def chain(spans: list[ReadableSpan], last: ReadableSpan) -> list[str]:
    """The names from the root down to ``last``, following parents."""
    by_id = {s.context.span_id: s for s in spans}
    out: list[str] = []
    node: ReadableSpan | None = last
    for _ in range(len(spans)):  # bounded
        if node is None:
            break
        out.append(node.name)
        node = by_id.get(node.parent.span_id) if node.parent else None
    return out[::-1]


async def test_a_command_is_one_trace_across_outbox_batch_consumers_and_broker_publish(
        redis_url: str) -> None:
    _provider()
    EXPORTER.clear()
    tag = secrets.token_hex(3)
    a, b, c = f"t-{tag}-a", f"t-{tag}-b", f"t-{tag}-c"
    url = with_db(redis_url, DB)
    settings = Settings(redis_url=url, instance=f"trace-{tag}", max_records=10)
    broker = bus.make_broker(settings)
    redis = client(settings)
    out = Outbox(redis)
    back: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def adjudicator(body: dict[str, Any]) -> None:
        await out.publish({**body, "hop": 2}, stream=b)

    async def dealer(body: dict[str, Any]) -> None:
        await broker.publish({**body, "hop": 3}, stream=c)

    readers = [bus.consume(broker, a, "g-adj", settings, adjudicator),
               bus.consume(broker, b, "g-dealer", settings, dealer)]

    @broker.subscriber(stream=StreamSub(c, last_id="0", batch=True, max_records=10))  # type: ignore[misc]
    async def gateway(bodies: list[dict[str, Any]]) -> None:
        tracing.received(c, tracing.batch_headers(broker))
        for body in bodies:
            back.put_nowait(body)

    for stream, group in ((a, "g-adj"), (b, "g-dealer")):
        await ensure_group(redis, stream, group)
    await broker.start()
    live = [asyncio.create_task(r.run(redis)) for r in readers]
    try:
        await out.publish({"type": "act", "game_id": "g1", "hop": 1}, stream=a)
        assert (await asyncio.wait_for(back.get(), 30))["hop"] == 3
        spans: list[ReadableSpan] = []
        for _ in range(100):  # bounded: the last span ends right after the queue put
            spans = [s for s in EXPORTER.get_finished_spans()
                     if tag in str(s.attributes or {}) or tag in s.name]
            if any(s.name == f"{c} handle" for s in spans):
                break
            await asyncio.sleep(0.05)
    finally:
        await cancel_and_wait(live)
        await broker.stop()
        await redis.delete(a, b, c)
        await redis.aclose()
    [last] = [s for s in spans if s.name == f"{c} handle"]
    path = chain(spans, last)
    ours = [s for s in spans if s.context.trace_id == last.context.trace_id]
    assert path[0] == f"{a} publish", path  # the trace starts at the first publish
    assert [n for n in path if n.endswith(" handle")] == [f"{a} handle", f"{b} handle",
                                                          f"{c} handle"], path
    assert f"{c} publish" in {s.name for s in ours}  # faststream's publish span joined it
