"""Typed ports: what a service's shell needs from the outside, as Protocols. The real
adapters are faststream's broker / shared/runtime/outbox.py (Publisher) and each service's
store.py over Redis; tests/support/fakes.py has in-memory ones, so a service's behaviour is
tested in milliseconds without a server (tests/service), beside the integration tests that
run the real adapters against Valkey."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

Rows = dict[str, dict[str, Any]]
Decide = Callable[[list[dict[str, Any] | None]], tuple[Rows, dict[str, Any]]]


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


class DealerStorePort(Protocol):
    """services/dealer/store.py."""

    async def commit_seed(self, game_id: str, seed_hex: str, rules_version: str,
                          commitment: str, entry: str) -> bool: ...

    async def commitment(self, game_id: str) -> str: ...

    async def fields(self, game_id: str) -> dict[str, str]: ...

    async def fix_client_seeds(self, game_id: str, seeds: str) -> bool: ...

    async def store_draw(self, game_id: str, label: str, record: str) -> str | None: ...

    async def order(self, game_id: str) -> list[str]: ...

    async def reveal(self, game_id: str, entry: str, ttl_ms: int) -> bool: ...


class ScoringStorePort(Protocol):
    """services/scoring/store.py."""

    async def rate_once(self, game: str, game_id: str, ids: list[str], decide: Decide
                        ) -> tuple[dict[str, Any], bool]: ...

    async def publish(self, record: dict[str, Any], leaderboard: dict[str, float],
                      keep: int) -> None: ...


class BotsStorePort(Protocol):
    """services/bots/store.py: the seats to take (``bots:in``, read only while the runner has
    room), the seats being played (``bots:active``) and each seat's lease."""

    async def keep(self, seat_key: str, seat: str) -> None: ...

    async def forget(self, seat_key: str) -> None: ...

    async def active_page(self, cursor: int, count: int = 200) -> tuple[int, list[Any]]: ...

    async def lease(self, seat_key: str) -> bool: ...

    async def renew(self, seat_key: str) -> None: ...

    async def release(self, seat_key: str) -> None: ...

    async def read(self, count: int, retry_s: float) -> list[Any]: ...

    async def reclaim(self, count: int) -> list[Any]: ...

    async def done(self, ids: list[bytes]) -> None: ...

    async def dead_letter(self, body: Any, exc: Exception) -> None: ...
