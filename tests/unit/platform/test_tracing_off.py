"""Tracing off (no EMPIRE_OTLP_ENDPOINT, shared/runtime/tracing.py): no spans are made, yet a
trace context that arrives in a message's headers goes on in what its handler publishes."""

from __future__ import annotations

import pytest
from opentelemetry import trace

from shared.runtime import tracing

pytestmark = pytest.mark.unit
PARENT = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"


@pytest.fixture
def off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracing, "_configured", [])  # as in a process never configured
    monkeypatch.setattr(tracing.trace, "get_tracer_provider",
                        lambda: trace.ProxyTracerProvider())
    assert not tracing.enabled()


def test_an_incoming_context_is_carried_on(off: None) -> None:
    out: dict[str, str] = {}
    with tracing.message_span("s", {"traceparent": PARENT}):
        tracing.inject(out)
    assert out["traceparent"].split("-")[1] == "ab" * 16  # the same trace


def test_without_one_nothing_is_written(off: None) -> None:
    out: dict[str, str] = {}
    with tracing.message_span("s", {"correlation_id": "x"}), tracing.publish_span("s"):
        tracing.inject(out)
    assert out == {}
    with tracing.command_span("WS command"):
        tracing.inject(out)
    assert out == {}
