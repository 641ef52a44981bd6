"""The gateway's HTTP metrics (services/gateway/edge/http_metrics.py): labelled by route template,
never by the raw path, with status, latency and in-flight requests."""

from __future__ import annotations

import secrets

import pytest
from fastapi import FastAPI, HTTPException
from fastapi.testclient import TestClient

from services.gateway.edge.http_metrics import IN_FLIGHT, LATENCY, HttpMetrics
from shared.runtime.metrics import REGISTRY, render

pytestmark = pytest.mark.unit


def _app() -> FastAPI:
    app = FastAPI()
    app.add_middleware(HttpMetrics)

    @app.get("/zz-items/{item_id}")
    async def item(item_id: str) -> dict[str, str]:
        if item_id == "gone":
            raise HTTPException(404)
        return {"id": item_id}

    @app.get("/zz-in-flight")
    async def in_flight() -> dict[str, float]:
        return {"now": IN_FLIGHT.labels("GET")._value.get()}

    return app


def _count(route: str, status: str) -> float:
    return REGISTRY.get_sample_value("empire_http_requests_total",
                                     {"method": "GET", "route": route, "status": status}) or 0.0


def test_requests_are_counted_by_route_template_and_status() -> None:
    secret = secrets.token_hex(8)
    before_ok = _count("/zz-items/{item_id}", "200")
    before_gone = _count("/zz-items/{item_id}", "404")
    before_unmatched = _count("unmatched", "404")
    with TestClient(_app()) as client:
        assert client.get(f"/zz-items/{secret}").status_code == 200
        assert client.get("/zz-items/gone").status_code == 404
        assert client.get(f"/nowhere/{secret}").status_code == 404
    assert _count("/zz-items/{item_id}", "200") == before_ok + 1
    assert _count("/zz-items/{item_id}", "404") == before_gone + 1
    assert _count("unmatched", "404") == before_unmatched + 1
    assert LATENCY.labels("GET", "/zz-items/{item_id}")._sum.get() > 0
    assert secret not in render().decode()  # ids in paths never become labels


def test_a_request_is_in_flight_while_it_is_handled() -> None:
    with TestClient(_app()) as client:
        assert client.get("/zz-in-flight").json()["now"] >= 1
    assert IN_FLIGHT.labels("GET")._value.get() == 0
