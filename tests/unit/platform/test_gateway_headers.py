"""Every gateway HTTP response carries the security headers; /metrics and the API docs are
off the public port unless the operator enables them (EMPIRE_PUBLIC_METRICS/_DOCS)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.testclient import TestClient

from services.gateway import app as gateway
from services.gateway.security_headers import SecurityHeaders

pytestmark = pytest.mark.unit


def small_app() -> FastAPI:
    app = FastAPI()
    app.mount("/static", StaticFiles(directory=gateway.STATIC), name="static")

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
    assert gateway.app.user_middleware[0].cls is SecurityHeaders  # outermost


def test_the_page_has_no_inline_script_or_style() -> None:
    html = (gateway.STATIC / "index.html").read_text()
    assert "<script>" not in html and "<style" not in html and " style=" not in html


def test_metrics_and_docs_are_off_the_public_port() -> None:
    assert not gateway.settings.public_metrics and not gateway.settings.public_docs
    paths = {getattr(r, "path", "") for r in gateway.app.routes}
    assert not paths & {"/metrics", "/docs", "/redoc", "/openapi.json"}
