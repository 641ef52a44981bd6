"""No gateway route runs in a worker thread: FastAPI runs a sync endpoint or a sync
dependency through ``run_in_threadpool`` on every request (a thread hop and two lock
handoffs; the ``gateway`` dependency alone was ~10% of the gateway's busy CPU in the
lifecycle benchmark). Every endpoint and dependency of the app is a coroutine."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute

from services.gateway.app import create_app
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit


def _sync_calls(dependant: Any, where: str) -> list[str]:
    found = []
    call = dependant.call
    if call is not None and not (inspect.iscoroutinefunction(call)
                                 or inspect.iscoroutinefunction(type(call).__call__)):
        found.append(f"{where}: {getattr(call, '__qualname__', call)!r}")
    for sub in dependant.dependencies:
        found += _sync_calls(sub, where)
    return found


def _routes(routes: list[Any]) -> list[Any]:
    """The app's API and WebSocket routes, through included routers (FastAPI keeps an
    included router as one route that holds the original)."""
    found = []
    for r in routes:
        if isinstance(r, APIRoute | APIWebSocketRoute):
            found.append(r)
        elif hasattr(r, "original_router"):
            found += _routes(r.original_router.routes)
    return found


def test_every_endpoint_and_dependency_is_a_coroutine() -> None:
    app = create_app(Settings(redis_url="redis://127.0.0.1:1/0"))
    routes = _routes(app.routes)
    assert len(routes) > 20  # the API is all there
    sync = [s for r in routes for s in _sync_calls(r.dependant, r.path)]
    assert sync == [], sync
