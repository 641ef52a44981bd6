"""Games played as a client through the published port (the SDK): this client's seat by the
heuristic bot, the others by the lobby's bots; the finished record verified
(shared.fairness.verify) with this seat's acknowledged receipts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from clients.sdk.session import GameSession
from shared.fairness.verify import verify


@dataclass
class Game:
    client: Client
    game_id: str
    task: asyncio.Task[GameSession]
    record: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def seq(self) -> int:
        session = self.client.games.get(self.game_id)
        return session.seq if session is not None else -1

    async def reach(self, seq: int, timeout: float = 120.0) -> None:
        """Wait until this seat has seen ``seq`` applied moves (the game is under way)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.seq < seq:
            if self.task.done():
                raise AssertionError(f"the game ended at seq {self.seq} before seq {seq}")
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"seq {self.seq} after {timeout} s (waiting for {seq})")
            await asyncio.sleep(0.05)

    async def finish(self, timeout: float = 420.0) -> Game:
        session = await asyncio.wait_for(self.task, timeout)
        assert session.ended
        assert session.verify_reveals() == []
        for _ in range(600):  # the dealer's reveal and the scoring follow the end
            try:
                rec = await self.client.record(self.game_id)
                if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                    self.result = await self.client.result(self.game_id)
                    self.record = rec
                    break
            except Exception:  # a restarting service answers 503 for a moment
                pass
            await asyncio.sleep(0.2)
        else:
            raise AssertionError(f"{self.game_id}: no seed reveal / result after the end")
        self.problems, _ = verify(self.record, receipts=session.receipts_doc())
        return self


async def start_game(client: Client, game: str, seats: int,
                     options: dict[str, Any] | None = None) -> Game:
    t = await client.create_table(game, seats=seats, options=options or {})
    for _ in range(seats - 1):
        await client.add_bot(t["table_id"])
    gid = await client.start(t["table_id"])
    return Game(client, gid, asyncio.create_task(play_seat(client, gid)))


def entries_by_id(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in record["record"]}


def applied_twice(record: dict[str, Any]) -> list[str]:
    """Moves or commitments that appear more than once in a record."""
    seen: set[tuple[str, Any]] = set()
    twice = []
    for e in record["record"]:
        key: tuple[str, Any] | None = None
        if e.get("type") == "event" and "seq" in e:
            key = ("event", (e["seq"], e.get("event")))
        elif e.get("type") == "committed":
            key = ("committed", (e["round_id"], e["slot"]))
        elif e.get("cmd_id"):
            key = ("cmd", e["cmd_id"])
        if key is None:
            continue
        if key in seen:
            twice.append(f"{key}: {e['id']}")
        seen.add(key)
    return twice
