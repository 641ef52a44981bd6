"""A cancelled SDK wait is never lost (the siege victims' run failed on it): on Python 3.11
``asyncio.wait_for`` returns the awaited result when the cancel lands after the awaited thing
completed but before the waiting task resumed, so a bot seat (or a test's player) cancelled
while a view arrives plays on. ``GameSession.wait`` and ``Client._request`` use
``asyncio.timeout`` instead, which re-raises the cancel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.sdk import Client, GameSession

pytestmark = pytest.mark.clients


async def _cancel_while_waking(start: Any, wake: Any, lag: int) -> str:
    """Start a wait, wake it, let ``lag`` loop iterations pass, cancel it: how it ended."""
    task = asyncio.create_task(start())
    await asyncio.sleep(0)  # the task is suspended in its wait
    wake()
    for _ in range(lag):
        await asyncio.sleep(0)
    if task.done():
        return "done before the cancel"
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "cancelled"
    return "returned (the cancel was lost)"


async def test_a_wait_cancelled_as_its_view_arrives_is_cancelled() -> None:
    session = GameSession(game_id="g-1", client=None)  # type: ignore[arg-type]
    ends = [await _cancel_while_waking(lambda: session.wait(5.0), session.changed.set, lag)
            for lag in range(6)]
    assert "cancelled" in ends, ends
    assert "returned (the cancel was lost)" not in ends, ends


async def test_a_command_cancelled_as_its_reply_arrives_is_cancelled() -> None:
    client = Client("http://127.0.0.1:9")
    sent: list[dict[str, Any]] = []

    async def send(msg: dict[str, Any]) -> None:
        sent.append(msg)

    client._send = send  # type: ignore[method-assign]

    def reply() -> None:
        for fut in list(client.replies.values()):
            fut.set_result({"type": "accepted", "cmd_id": "x"})

    ends = [await _cancel_while_waking(
        lambda lag=lag: client._request({"type": "ping", "cmd_id": f"c{lag}"}, 5.0),
        reply, lag)
        for lag in range(6)]
    assert "cancelled" in ends, ends
    assert "returned (the cancel was lost)" not in ends, ends
