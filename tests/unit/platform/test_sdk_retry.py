"""The SDK sends again a request that is safe to repeat when its connection dies under it (a
gateway replica killed mid-request: the SIGKILL chaos test's session-key registration), and
never one that is not."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import httpx
import pytest

from clients.sdk.client import Client

pytestmark = pytest.mark.unit


def _flaky(fail_first: int) -> tuple[httpx.MockTransport, list[str]]:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if len(seen) <= fail_first:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return httpx.Response(200, json={"player_id": "p-1", "ok": True})

    return httpx.MockTransport(handler), seen


async def _through(fail_first: int, call: Callable[[Client], Awaitable[object]]) -> list[str]:
    """Run ``call`` on a signed-in client whose first ``fail_first`` requests die unanswered;
    the requests the server saw."""
    transport, seen = _flaky(fail_first)
    c = Client("http://gateway.test")
    c.http = httpx.AsyncClient(base_url="http://gateway.test", transport=transport)
    c.token = "t"
    try:
        await call(c)
    finally:
        await c.http.aclose()
    return seen


def test_a_session_key_registration_goes_again_after_a_dead_connection() -> None:
    seen = asyncio.run(_through(2, lambda c: c.register_session_key()))
    assert seen == ["POST /api/session-keys"] * 3


def test_a_request_not_safe_to_repeat_is_sent_once() -> None:
    async def create(c: Client) -> None:
        with pytest.raises(httpx.RemoteProtocolError):
            await c._call("POST", "/api/tables", json.loads('{"game": "duel"}'))

    assert asyncio.run(_through(1, create)) == ["POST /api/tables"]
