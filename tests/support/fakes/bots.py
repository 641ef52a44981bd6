"""services/bots/ports.py ``BotsStorePort`` in memory."""

from __future__ import annotations

import asyncio
from typing import Any

from shared.runtime.jsonutil import dumps


class FakeBotsStore:
    """services/bots/store.py: ``bots:in`` as a list of entries (id, fields), each delivered
    to the group once; ``bots:active`` and the leases (SET NX) as dicts. ``orphans``: entries
    a dead runner read and never stored (what ``reclaim`` hands over)."""

    def __init__(self, instance: str = "runner-1") -> None:
        self.instance = instance
        self.stream: list[tuple[bytes, dict[bytes, bytes]]] = []
        self.delivered: set[bytes] = set()
        self.orphans: list[tuple[bytes, dict[bytes, bytes]]] = []
        self.active: dict[str, str] = {}
        self.leases: dict[str, str] = {}  # seat key -> the runner holding it
        self.notes: dict[str, str] = {}  # bots:parked
        self.dead: list[tuple[Any, str]] = []
        self.reads: list[int] = []  # the count asked by every read: the back-pressure's trace
        self._added = 0

    def add(self, body: dict[str, Any]) -> bytes:
        """XADD to ``bots:in`` (the lobby's SeatBot)."""
        self._added += 1
        msg_id = f"{self._added}-0".encode()
        self.stream.append((msg_id, {b"d": dumps(body).encode()}))
        return msg_id

    def waiting(self) -> int:
        """Entries of ``bots:in`` no runner has read yet."""
        return sum(1 for msg_id, _ in self.stream if msg_id not in self.delivered)

    async def keep(self, seat_key: str, seat: str) -> None:
        self.active[seat_key] = seat

    async def forget(self, seat_key: str) -> None:
        self.active.pop(seat_key, None)
        self.notes.pop(seat_key, None)

    async def park(self, seat_key: str, note: str) -> None:
        self.notes[seat_key] = note

    async def unpark(self, seat_key: str) -> None:
        self.notes.pop(seat_key, None)

    async def parked(self) -> dict[str, str]:
        return dict(self.notes)

    async def active_page(self, cursor: int, count: int = 200) -> tuple[int, list[Any]]:
        return 0, list(self.active.values())

    async def lease(self, seat_key: str) -> bool:
        if seat_key in self.leases:
            return False
        self.leases[seat_key] = self.instance
        return True

    async def renew(self, seat_key: str) -> None:
        self.leases[seat_key] = self.instance

    async def release(self, seat_key: str) -> None:
        self.leases.pop(seat_key, None)

    async def read(self, count: int, retry_s: float) -> list[Any]:
        self.reads.append(count)
        batch = [e for e in self.stream if e[0] not in self.delivered][:count]
        self.delivered.update(msg_id for msg_id, _ in batch)
        if not batch:
            await asyncio.sleep(0.001)  # XREADGROUP BLOCK: the reader waits a moment
        return batch

    async def reclaim(self, count: int) -> list[Any]:
        taken, self.orphans = self.orphans[:count], self.orphans[count:]
        return taken

    async def done(self, ids: list[bytes]) -> None:
        gone = set(ids)
        self.stream = [e for e in self.stream if e[0] not in gone]

    async def dead_letter(self, body: Any, exc: Exception) -> None:
        self.dead.append((body, repr(exc)))
