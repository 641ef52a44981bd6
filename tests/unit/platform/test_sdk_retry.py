"""The SDK sends again a request that is safe to repeat when its connection dies under it (a
gateway replica killed mid-request: the SIGKILL chaos test's session-key registration), and
never one that is not."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from clients.sdk import connection as sdk
from clients.sdk.client import WATCH_TRIES, Client, GameSession

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


@pytest.mark.parametrize("code", ["message/unavailable", "message/rate_limited",
                                  "game/not_found"])
def test_a_watch_refused_by_a_refusal_that_may_pass_is_sent_again(code: str) -> None:
    """A ``watch`` answered with a refusal that may pass (a backend hiccup, the connection's
    rate, a game not yet visible; the gateway names the game) is sent again from where the
    session stands, instead of waiting out the timeout for a view (the faults scenario's
    seat that stalled 30 s and let its entropy round default)."""
    async def run() -> list[dict[str, Any]]:
        c = Client("http://gateway.test")
        c.ws = object()  # type: ignore[assignment]  # "connected": watch() sends at once
        sent: list[dict[str, Any]] = []

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)
            game = c.games["g-1"]
            if len(sent) == 1:
                c._dispatch({"type": "rejected", "v": 1, "cmd_id": None, "game_id": "g-1",
                             "code": code, "message": "retry"})
            else:
                game.view = {"node": {"kind": "turn"}}
                game.changed.set()

        c._send = send  # type: ignore[method-assign]
        async with asyncio.timeout(5):
            game = await c.watch("g-1", timeout=30)
        assert game.view is not None
        return sent

    sent = asyncio.run(run())
    assert [m["type"] for m in sent] == ["watch", "watch"], sent
    assert sent[1]["game_id"] == "g-1" and "after_seq" in sent[1], sent


def test_a_watch_refused_for_good_is_not_sent_again() -> None:
    async def run() -> list[dict[str, Any]]:
        c = Client("http://gateway.test")
        c.ws = object()  # type: ignore[assignment]
        sent: list[dict[str, Any]] = []

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)
            c._dispatch({"type": "rejected", "v": 1, "cmd_id": None, "game_id": "g-1",
                         "code": "auth/forbidden", "message": "no"})

        c._send = send  # type: ignore[method-assign]
        with pytest.raises(TimeoutError):
            await c.watch("g-1", timeout=1.5)
        return sent

    assert len(asyncio.run(run())) == 1


def _refusal(code: str = "message/unavailable") -> dict[str, Any]:
    return {"type": "rejected", "v": 1, "cmd_id": None, "game_id": "g-1", "code": code,
            "message": "storage unavailable"}


def test_a_resumed_watch_refused_after_a_reconnect_is_sent_again() -> None:
    """The faults scenario's hang (network loss + a 2 s gateway partition): the client
    reconnected, its resumed ``watch`` met a gateway cut off from storage and was refused
    with ``message/unavailable``; nothing sent it again, so the seat never heard of its game
    again and every one of its turns waited out the 60 s deadline. Any watch refused by a
    refusal that may pass is now sent again, not only ``watch()``'s own."""
    async def run() -> tuple[list[dict[str, Any]], Client]:
        c = Client("http://gateway.test")
        game = c.games.setdefault("g-1", GameSession(game_id="g-1", client=c))
        game.view, game.seq, game.record_id = {"node": {"kind": "turn"}}, 7, "5-0"
        sent: list[dict[str, Any]] = []

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)
            if len(sent) < 3:
                c._dispatch(_refusal())  # still cut off: refused again

        c._send = send  # type: ignore[method-assign]
        c._dispatch(_refusal())  # the reconnect's resumed watch, refused
        async with asyncio.timeout(5):
            while len(sent) < 3 or c._rewatch:
                await asyncio.sleep(0.02)
        return sent, c

    sent, c = asyncio.run(run())
    assert [m["type"] for m in sent] == ["watch"] * 3, sent
    assert all(m["after_seq"] == 7 and m["after_record"] == "5-0" for m in sent), sent
    assert c.games["g-1"].rejections == [] and c.rewatched == 3


def test_a_watch_refused_again_and_again_gives_up_and_tells_the_caller() -> None:
    """The re-sends are bounded (WATCH_TRIES in a row); then the refusal reaches the
    session's rejections, as a refusal for good does. A frame of the game resets the count."""
    async def run() -> tuple[list[dict[str, Any]], Client]:
        c = Client("http://gateway.test")
        game = c.games.setdefault("g-1", GameSession(game_id="g-1", client=c))
        sent: list[dict[str, Any]] = []

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)
            if len(sent) == 2:  # a frame of the game between refusals: the count starts over
                c._dispatch({"type": "record", "game_id": "g-1", "id": "9-0",
                             "entry": {"type": "event"}})
            c._dispatch(_refusal("game/not_found"))

        c._send = send  # type: ignore[method-assign]
        sdk.WATCH_BACKOFF_S, backoff = (0.0,), sdk.WATCH_BACKOFF_S
        try:
            c._dispatch(_refusal("game/not_found"))
            async with asyncio.timeout(5):
                while not game.rejections:
                    await asyncio.sleep(0.01)
        finally:
            sdk.WATCH_BACKOFF_S = backoff
        await asyncio.sleep(0.05)
        return sent, c

    sent, c = asyncio.run(run())
    # 1 try, then a frame resets the count: WATCH_TRIES more, the last refusal kept
    assert len(sent) == 2 + WATCH_TRIES, len(sent)
    assert c.games["g-1"].rejections[-1]["code"] == "game/not_found"
    assert not c._rewatch
