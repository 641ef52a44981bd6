"""The reliability tier: faults, hostile input, secrecy, least privilege, randomness.

``make test`` and ``make test-full`` run it small; ``make reliability`` sets
EMPIRE_RELIABILITY_SCALE=full for the full-size figures. Every test prints its figures and writes
them to test-output/reliability/<name>.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.sdk import ApiError, Client
from services.supervisor import Supervisor
from shared.protocol import streams
from shared.rules.replay import final_state
from shared.runtime.bus import decode_entry
from shared.runtime.settings import Settings
from shared.runtime.valkey import free_port
from tests.support.dir_scope import until_directory_ends

FULL = os.environ.get("EMPIRE_RELIABILITY_SCALE", "small").lower() == "full"
OUT = Path("test-output") / "reliability"


def size(small: int, full: int) -> int:
    """The figure for this run's scale."""
    return full if FULL else small


def report(name: str, figures: dict[str, Any]) -> None:
    """Print a test's figures and keep them in test-output/reliability/<name>.json."""
    figures = {"scale": "full" if FULL else "small", **figures}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"\n[reliability] {name}: {json.dumps(figures, sort_keys=True)}", flush=True)


def start_system(name: str, **kw: Any) -> Supervisor:
    """The whole system as processes; the private Valkey (one ACL user per service) unless
    ``redis_url`` is given."""
    sup = Supervisor(port=free_port(), log_dir=OUT / "logs" / name, **kw)
    try:
        sup.start(wait=240)  # generous: CI machines may be busy
    except Exception:
        sup.stop()
        raise
    return sup


@pytest.fixture(scope="session")
def hall() -> Iterator[Supervisor]:
    """One system shared by the tests that do not kill anything (embedded least privilege)."""
    sup = start_system("hall", metrics=True)
    stop = until_directory_ends(__file__, sup.stop)
    yield sup
    stop()


class RecordingClient(Client):
    """An SDK client that journals every command it sends and every reply it gets."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.sent: dict[str, dict[str, Any]] = {}  # cmd_id -> the command (first send)
        self.sends: dict[str, int] = {}  # cmd_id -> times put on a socket
        self.answers: dict[str, list[dict[str, Any]]] = {}  # cmd_id -> replies, in order
        self.view_cmds: set[str] = set()  # cmd ids named by view updates (applied)

    async def _send(self, msg: dict[str, Any]) -> None:
        cmd = msg.get("cmd_id")
        if isinstance(cmd, str) and msg.get("type") in ("act", "commit"):
            self.sent.setdefault(cmd, msg)
            self.sends[cmd] = self.sends.get(cmd, 0) + 1
        await super()._send(msg)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind in ("accepted", "rejected", "committed") and msg.get("cmd_id"):
            self.answers.setdefault(str(msg["cmd_id"]), []).append(msg)
        elif kind == "view":
            self.view_cmds.update(msg.get("cmd_ids") or [])
        super()._dispatch(msg)


def transient(exc: ApiError) -> bool:
    """A refusal that means "try again": a 5xx, storage or a lobby that did not answer."""
    return (
        exc.code.startswith("http/5")
        or exc.code == "message/unavailable"
        or "did not answer" in exc.message
    )


async def retry(fn: Any, *args: Any, tries: int = 60, delay: float = 0.5, **kw: Any) -> Any:
    """A lobby call that may meet a restarting lobby or gateway: retried on a 5xx answer, a
    lobby that did not answer or a dropped connection; any other refusal is raised."""
    last: Exception | None = None
    for _ in range(tries):
        try:
            return await fn(*args, **kw)
        except ApiError as exc:
            if not transient(exc):
                raise
            last = exc
        except (httpx.TransportError, ValueError) as exc:  # refused, reset, not JSON
            last = exc
        await asyncio.sleep(delay)
    raise AssertionError(f"lobby call kept failing: {last!r}")


def replay(game_name: str, options: dict[str, Any], n_seats: int, log: list[dict[str, Any]]) -> Any:
    """Re-apply a game's move log to a fresh setup; returns the final engine state."""
    return final_state(game_name, options, n_seats, log)


async def until(cond: Any, game: Any, timeout: float = 60) -> None:
    """Wait (on ``game``'s updates, an SDK GameSession) until ``cond()`` holds."""
    await game.wait_until(cond, timeout)


def now() -> float:
    return time.monotonic()


def refusals(admin: Any, cmd_ids: set[str]) -> dict[str, str]:
    """cmd_id -> the code of its refusal, from the gateways' fan-out (its game shards)."""
    out = {}
    for stream in [streams.GW_UPDATES, *streams.update_shards(Settings().gw_shards)]:
        for _, fields in admin.xrange(stream):
            body, _ = decode_entry(fields)
            if isinstance(body, dict) and body.get("cmd_id") in cmd_ids and not body.get("ok"):
                out[body["cmd_id"]] = body.get("code")
    return out


async def until_true(cond: Any, timeout: float = 30.0) -> None:
    """Wait for ``cond()`` to hold, polling every 0.1 s."""
    for _ in range(int(timeout / 0.1)):
        if cond():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")
