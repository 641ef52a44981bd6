"""Every gateway HTTP response carries the security headers; /metrics and the API docs are
off the public port unless the operator enables them (EMPIRE_PUBLIC_METRICS/_DOCS)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.edge.security_headers import SecurityHeaders
from services.gateway.routes.web import STATIC
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit


def small_app() -> FastAPI:
    app = FastAPI()
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/x")
    async def x() -> JSONResponse:
        return JSONResponse({"ok": False}, status_code=429, headers={"Retry-After": "1"})

    app.add_middleware(SecurityHeaders)
    return app


@pytest.mark.parametrize("path", ["/static/index.html", "/static/app.js", "/api/x", "/nope"])
def test_every_response_has_the_security_headers(path: str) -> None:
    res = TestClient(small_app()).get(path)
    csp = res.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert res.headers["x-content-type-options"] == "nosniff"
    assert res.headers["referrer-policy"] == "no-referrer"


def test_the_gateway_wraps_everything_in_the_headers() -> None:
    assert create_app(Settings()).user_middleware[0].cls is SecurityHeaders  # outermost


def test_the_page_has_no_inline_script_or_style() -> None:
    html = (STATIC / "index.html").read_text()
    assert "<script>" not in html and "<style" not in html and " style=" not in html


def offline(monkeypatch: pytest.MonkeyPatch, **fields: bool) -> Settings:
    """Settings whose gateway never reaches a Valkey: the rate limits off (they count in
    Valkey), and a Redis address nothing listens on; no lifespan runs, so nothing connects."""
    monkeypatch.setenv("EMPIRE_RATE_LIMITS", "0")
    return Settings(redis_url="redis://127.0.0.1:1/0", **fields)


def test_metrics_and_docs_are_off_the_public_port(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not Settings().public_metrics and not Settings().public_docs  # the defaults
    client = TestClient(create_app(offline(monkeypatch)))
    for path in ("/metrics", "/docs", "/redoc", "/openapi.json"):
        assert client.get(path).status_code == 404, path


def test_the_operator_puts_metrics_and_docs_on_the_public_port(
        monkeypatch: pytest.MonkeyPatch) -> None:
    client = TestClient(create_app(offline(monkeypatch, public_metrics=True, public_docs=True)))
    for path in ("/metrics", "/docs", "/redoc", "/openapi.json"):
        assert client.get(path).status_code == 200, path


def test_each_app_has_its_own_parts_and_the_module_holds_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import services.gateway.app as module

    one, two = create_app(offline(monkeypatch)), create_app(offline(monkeypatch))
    a, b = one.state.gateway, two.state.gateway
    assert a.hub is not b.hub and a.broker is not b.broker and a.store is not b.store
    assert not {"app", "hub", "broker", "redis", "settings"} & set(vars(module))
