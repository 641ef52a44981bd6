"""The ports several services share, as Protocols: a publisher (faststream's broker or
shared/runtime/outbox.py), the lobby's session-key registry and the deadline timers. Each
service's own stores are ports in its services/<service>/ports.py. tests/support/fakes has
in-memory adapters for all of them, so a service's behaviour is tested in milliseconds without
a server (tests/service), beside the integration tests that run the real adapters against
Valkey."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class Publisher(Protocol):
    """Appends a message to a stream (the broker, or the pipelining outbox)."""

    async def publish(self, body: Any, /, *, stream: str, maxlen: int | None = None) -> Any: ...


class KeyRegistry(Protocol):
    """Whether ``key`` is a session key the lobby registered for ``player_id`` and unexpired
    at ``now_ms`` (shared/runtime/session_keys.py: Registered, over the lobby's registry)."""

    async def __call__(self, player_id: str, key: str, now_ms: int) -> bool: ...


class TimerRunner(Protocol):
    """shared/runtime/timers.py ``Timers.run``: fires each due timer through ``handle``."""

    async def run(self, handle: Callable[[str], Awaitable[bool]], poll_s: float,
                  now: Callable[[], int]) -> None: ...
