"""HTTP metrics and server spans for the gateway's routes (ASGI middleware).

Per request: ``empire_http_requests_total`` and ``empire_http_request_duration_seconds`` by
method, route template (``/api/tables/{table_id}``, never the raw path: no ids, codes or
tokens in a label, and a bounded label set) and status; ``empire_http_requests_in_flight`` by
method. A path no route matches is counted as ``unmatched``. Each request is an OpenTelemetry
server span named ``METHOD template`` (a no-op unless tracing is configured), so a command
sent over HTTP starts the trace the services continue. WebSockets are counted by their own
gauge (``empire_ws_connections``), not here: a socket is not a request with a latency.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from opentelemetry.trace import INVALID_SPAN, SpanKind, Status, StatusCode
from prometheus_client import Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shared.runtime.metrics import REGISTRY
from shared.runtime.tracing import enabled, tracer

REQUESTS = Counter("empire_http_requests_total", "HTTP requests answered, by route template",
                   ["method", "route", "status"], registry=REGISTRY)
LATENCY = Histogram("empire_http_request_duration_seconds",
                    "HTTP request time, first byte in to last byte out, by route template",
                    ["method", "route"], registry=REGISTRY,
                    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
IN_FLIGHT = Gauge("empire_http_requests_in_flight", "HTTP requests being handled",
                  ["method"], registry=REGISTRY)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_of(scope: Scope) -> str:
    """The template of the route that handled ``scope`` (set by the router), or
    ``unmatched``."""
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else "unmatched"


class HttpMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        method = method if method in _METHODS else "OTHER"
        status = 500
        start = time.perf_counter()
        gauge = IN_FLIGHT.labels(method)
        gauge.inc()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        with (tracer().start_as_current_span(method, kind=SpanKind.SERVER) if enabled()
              else contextlib.nullcontext(INVALID_SPAN)) as span:
            try:
                await self.app(scope, receive, sending)
            finally:
                gauge.dec()
                route = route_of(scope)
                REQUESTS.labels(method, route, str(status)).inc()
                LATENCY.labels(method, route).observe(time.perf_counter() - start)
                if span.is_recording():
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.request.method", method)
                    span.set_attribute("http.route", route)
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
