"""In-memory adapters of the ports several services share (shared/runtime/ports.py): a
publisher that records, the lobby's session-key registry, the deadline timers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


class FakeKeyRegistry:
    """The lobby's session-key registry (shared/runtime/ports.KeyRegistry): the keys
    ``register``ed for a player, unexpiring."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, str]] = set()

    def register(self, player_id: str, key: str) -> None:
        self.keys.add((player_id, key))

    async def __call__(self, player_id: str, key: str, now_ms: int) -> bool:
        return (player_id, key) in self.keys


class FakePublisher:
    """Records what a service publishes: (stream, body) in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def publish(self, body: Any, /, *, stream: str, maxlen: int | None = None) -> Any:
        self.sent.append((stream, body))
        return None

    def bodies(self, type_: str) -> list[dict[str, Any]]:
        return [b for _, b in self.sent if isinstance(b, dict) and b.get("type") == type_]


class FakeTimers:
    """shared/runtime/timers.py in a dict: member -> due ms; ``poll_once`` runs the due ones."""

    def __init__(self) -> None:
        self.due: dict[str, int] = {}

    async def arm(self, member: str, due_ms: int, keep: bool = False) -> None:
        if not (keep and member in self.due):
            self.due[member] = due_ms

    async def drop(self, member: str) -> None:
        self.due.pop(member, None)

    async def poll_once(self, handle: Callable[[str], Awaitable[bool]], now_ms: int) -> int:
        """Each member due by ``now_ms`` claimed for a lease and run through ``handle``;
        dropped when it answers True unless it re-armed itself meanwhile; one that raises
        stays claimed (due again when the lease ends)."""
        fired = 0
        for member, due in sorted(self.due.items(), key=lambda kv: kv[1]):
            if due <= now_ms:
                self.due[member] = lease = now_ms + 10_000
                fired += 1
                try:
                    finished = await handle(member)
                except Exception:
                    continue
                if finished and self.due.get(member) == lease:
                    del self.due[member]
        return fired

    async def run(self, handle: Callable[[str], Awaitable[bool]], poll_s: float,
                  now: Callable[[], int]) -> None:
        while True:
            await self.poll_once(handle, now())
            await asyncio.sleep(poll_s)
