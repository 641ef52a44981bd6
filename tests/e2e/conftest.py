"""The whole system as separate processes (the supervisor `make run` uses) on a real server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.fairness.verify import verify
from shared.runtime.valkey import free_port
from tests.support.dir_scope import until_directory_ends

OUT = Path("test-output")


def with_db(url: str, db: int) -> str:
    """The same server, another logical database (so two systems never share streams)."""
    base, _, last = url.rpartition("/")
    return f"{base}/{db}" if last.isdigit() and base.count("/") >= 2 else f"{url}/{db}"


def start_system(redis_url: str, name: str, **kw: Any) -> Supervisor:
    sup = Supervisor(redis_url=redis_url, port=free_port(), log_dir=OUT / "logs" / name, **kw)
    sup.start()
    return sup


@pytest.fixture(scope="session")
def system(redis_url: str) -> Iterator[Supervisor]:
    sup = start_system(redis_url, "single")
    stop = until_directory_ends(__file__, sup.stop)
    yield sup
    stop()


@pytest.fixture(scope="session")
def replicated(redis_url: str) -> Iterator[Supervisor]:
    sup = start_system(with_db(redis_url, 1), "replicas",
                       replicas={"adjudicator": 2, "escrow": 2, "dealer": 2})
    stop = until_directory_ends(__file__, sup.stop)
    yield sup
    stop()


@dataclass
class Played:
    game_id: str
    seq: int
    record: dict[str, Any]
    result: dict[str, Any]
    problems: list[str]
    counts: dict[str, int]


async def play_bot_game(url: str, game: str, seats: int, options: dict[str, Any] | None = None,
                        timeout: float = 300.0, **table: Any) -> Played:
    """A table with this client's seat played by the heuristic bot through the WebSocket and
    the other seats by the lobby's bots; returns the verified record."""
    async with Client(url) as c:
        await c.sign_in(f"tester-{game}")
        t = await c.create_table(game, seats=seats, options=options or {}, **table)
        for _ in range(seats - 1):
            await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])
        session = await asyncio.wait_for(play_seat(c, gid), timeout)
        assert session.ended
        assert session.verify_reveals() == []
        for _ in range(100):  # the dealer's reveal and the scoring follow the end
            rec = await c.record(gid)
            if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                try:
                    result = await c.result(gid)
                    break
                except Exception:
                    pass
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("no seed reveal / result after the end")
        problems, counts = verify(rec)
        OUT.mkdir(exist_ok=True)
        (OUT / f"record-{game}-{gid}.json").write_text(json.dumps(rec))
        return Played(gid, session.seq, rec, result, problems, counts)
