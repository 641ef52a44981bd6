"""OpenTelemetry traces across the real services (shared/runtime/tracing.py).

The whole system runs with ``EMPIRE_OTLP_ENDPOINT`` pointed at an OTLP/HTTP receiver in this
test (the exporter the services ship, speaking the real protocol); one bot game is played and
the spans that arrive must hold a trace that starts at the gateway, passes through the
adjudicator, the escrow and the dealer and comes back to the gateway, every span's parent
in the same trace."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from services.supervisor import Supervisor
from shared.protocol import streams
from shared.runtime.valkey import free_port
from tests.e2e.conftest import OUT, play_bot_game, with_db

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # a system of its own: ~100 s (make slow)
TRACES_DB = 8  # its own logical database (db 9 is test_ordered_slot_time's)


@dataclass(frozen=True)
class Span:
    service: str
    trace_id: str
    span_id: str
    parent: str
    name: str


class Receiver(ThreadingHTTPServer):
    spans: list[Span]


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length", "0"))
        req = ExportTraceServiceRequest.FromString(self.rfile.read(size))
        for rs in req.resource_spans:
            service = next((a.value.string_value for a in rs.resource.attributes
                            if a.key == "service.name"), "")
            for ss in rs.scope_spans:
                for s in ss.spans:
                    self.server.spans.append(Span(service, s.trace_id.hex(), s.span_id.hex(),
                                                  s.parent_span_id.hex(), s.name))
        body = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    srv = Receiver(("127.0.0.1", free_port()), _Handler)
    srv.spans = []
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def traced(redis_url: str, receiver: Receiver) -> Iterator[Supervisor]:
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces"
    sup = Supervisor(redis_url=with_db(redis_url, TRACES_DB), port=free_port(),
                     log_dir=OUT / "logs" / "traces",
                     env_extra={"EMPIRE_OTLP_ENDPOINT": endpoint,
                                "OTEL_BSP_SCHEDULE_DELAY": "200"})
    sup.start(wait=240)  # a cold start of seven processes on a busy 2-core machine
    yield sup
    sup.stop()


def journeys(spans: list[Span]) -> dict[str, list[Span]]:
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    return by_trace


def complete(trace: list[Span]) -> bool:
    """Starts at the gateway (its root span), reaches the three services, ends back at the
    gateway (a gw.updates span), and every parent is a span of this trace."""
    ids = {s.span_id for s in trace}
    roots = [s for s in trace if not s.parent]
    services = {s.service for s in trace}
    back = any(s.service == "gateway" and s.name == f"{streams.GW_UPDATES} handle" and s.parent
               for s in trace)
    return (len(roots) == 1 and roots[0].service == "gateway"
            and {"adjudicator", "escrow", "dealer"} <= services and back
            and all(s.parent in ids for s in trace if s.parent))


async def test_one_command_is_one_trace_through_every_service(traced: Supervisor,
                                                              receiver: Receiver) -> None:
    await play_bot_game(traced.url, "duel", 2, {"rounds": 2})
    found: list[list[Span]] = []
    for _ in range(100):  # bounded: the exporters flush every 200 ms
        found = [t for t in journeys(list(receiver.spans)).values() if complete(t)]
        if found:
            break
        await asyncio.sleep(0.1)
    seen = {(s.service, s.name) for s in receiver.spans}
    assert found, f"no complete trace among {len(receiver.spans)} spans: {sorted(seen)[:60]}"
