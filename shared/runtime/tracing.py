"""OpenTelemetry traces that follow one command across the services.

- Off by default: without ``EMPIRE_OTLP_ENDPOINT`` no SDK is installed and every span is the
  API's no-op (a context lookup). With it, ``configure_tracing`` installs a tracer provider
  (resource ``service.name`` = the service) that batches spans to that OTLP/HTTP endpoint.
- The trace context travels in the stream entries' headers (W3C ``traceparent``):
  faststream's ``RedisTelemetryMiddleware`` (every broker, shared/runtime/bus.py) writes and
  reads it for ``broker.publish`` and single-message subscribers; the outbox injects it
  itself (``inject``); the batch consumers open one span per message (``<stream> handle``),
  child of the context that message carries (``message_span``), since faststream gives a
  batch one root span of its own that only links to its messages.
- A publish made outside any span (a gateway's WebSocket command) starts the trace with a
  producer span of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from faststream.redis import RedisBroker
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind

TRACER_NAME = "empire-hall"
_configured: list[Any] = []


_TRACER = trace.get_tracer(TRACER_NAME)  # a proxy: follows the provider installed later


def tracer() -> trace.Tracer:
    return _TRACER


def configure_tracing(service: str, endpoint: str) -> bool:
    """Install the SDK with an OTLP/HTTP exporter to ``endpoint`` (once per process); with no
    endpoint, nothing (traces stay no-op). Returns whether spans are exported."""
    if not endpoint or _configured:
        return bool(_configured)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    install(provider)
    return True


def install(provider: Any) -> None:
    """Make ``provider`` (an SDK tracer provider) the process's and record spans with it
    (``configure_tracing``; a test's in-memory exporter)."""
    trace.set_tracer_provider(provider)
    _configured.append(trace.get_tracer_provider())


def enabled() -> bool:
    """Spans are recorded: a tracer provider was installed (``configure_tracing`` or
    ``install``). Otherwise the helpers below only carry an incoming trace context along.
    A list read, not the API's provider lookup (an environment lookup per call: ~3 us a
    message on the hot path)."""
    return bool(_configured)


def inject(headers: MutableMapping[str, str]) -> None:
    """Write the current trace context into ``headers`` (nothing when no span is current)."""
    if trace.get_current_span().get_span_context().is_valid:
        propagate.inject(headers)


@contextlib.contextmanager
def publish_span(stream: str) -> Iterator[None]:
    """A producer span for a publish, when the caller is in none (a trace starts here);
    inside a span already, nothing (the publish belongs to it)."""
    if not enabled() or trace.get_current_span().get_span_context().is_valid:
        yield
        return
    with tracer().start_as_current_span(f"{stream} publish", kind=SpanKind.PRODUCER,
                                        attributes={"messaging.system": "redis",
                                                    "messaging.destination.name": stream}):
        yield


@contextlib.contextmanager
def message_span(stream: str, headers: Mapping[str, Any] | None) -> Iterator[None]:
    """A consumer span for one message of a batch, child of the context its headers carry.
    Tracing off: no span, only the incoming context (if any) made current, so what this
    message causes still carries its trace on (a few microseconds; a no-op span cost ~45)."""
    if not enabled():
        if not headers or "traceparent" not in headers:
            yield
            return
        token = otel_context.attach(propagate.extract(headers))
        try:
            yield
        finally:
            otel_context.detach(token)
        return
    parent = propagate.extract(headers) if headers else otel_context.Context()
    with tracer().start_as_current_span(f"{stream} handle", context=parent,
                                        kind=SpanKind.CONSUMER,
                                        attributes={"messaging.system": "redis",
                                                    "messaging.destination.name": stream}):
        yield


def received(stream: str, headers: Sequence[Mapping[str, Any]]) -> None:
    """One consumer span per message of a batch handled as a whole (the gateway's fan-out of
    updates), each child of the context its message carries: the trace comes back here."""
    for h in headers:
        with message_span(stream, h):
            pass


def batch_headers(broker: RedisBroker) -> Sequence[Mapping[str, Any]]:
    """The headers of each message of the batch being handled (faststream's context)."""
    msg = broker.context.get_local("message")
    return getattr(msg, "batch_headers", None) or ()


@contextlib.contextmanager
def command_span(name: str) -> Iterator[None]:
    """A span for one command a client sent on a long-lived connection (a WebSocket frame):
    the root of its own trace, linked to the connection's span, so a trace is one command
    and not a whole game."""
    if not enabled():
        yield
        return
    here = trace.get_current_span().get_span_context()
    links = [trace.Link(here)] if here.is_valid else None
    with tracer().start_as_current_span(name, context=otel_context.Context(),
                                        kind=SpanKind.SERVER, links=links):
        yield
