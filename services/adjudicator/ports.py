"""The adjudicator's store as a port (services/adjudicator/store.py is the Redis adapter;
tests/support/fakes ``FakeAdjudicatorStore`` the in-memory one, checked against it in
tests/integration/test_store_contracts.py), with the values it answers (CommitResult). Beside
the service rather than in shared/runtime/ports.py: it speaks the adjudicator's own types.
The shell's other ports are shared: a publisher, the archive (shared/runtime/archive.py
``Archive``) and the lobby's session-key registry (shared/runtime/ports.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from services.adjudicator.core import GameDoc
from shared.protocol.turns import TurnsChanged
from shared.runtime.ports import TimerRunner
from shared.runtime.tail import Tail


@dataclass
class CommitResult:
    """A commit's outcome: ``ok`` when it applied; else ``duplicate`` when the command id was
    applied before, or the stored seq moved on (``current_seq``, -1 when there is no game)."""

    ok: bool
    duplicate: bool = False
    current_seq: int = -1


class AdjudicatorStorePort(Protocol):
    # whether ``commit`` applies a ``tail`` (shared/runtime/tail.py; else it ignores it)
    inline: bool

    @property
    def timers(self) -> TimerRunner: ...

    def cached(self, game_id: str) -> GameDoc | None: ...

    async def load(self, game_id: str) -> GameDoc | None: ...

    async def command_known(self, game_id: str, seat: int, cmd_id: str) -> bool: ...

    async def remember_rejection(self, game_id: str, seat: int, cmd_id: str) -> bool: ...

    async def commit(self, expected_seq: int, doc: GameDoc, log: list[dict[str, Any]],
                     records: list[dict[str, Any]], views: dict[int | None, dict[str, Any]],
                     cmd_id: str = "", seat: int | None = None,
                     turns: TurnsChanged | None = None, tail: Tail | None = None
                     ) -> CommitResult: ...

    async def resend_turns(self, turns: TurnsChanged) -> None: ...

    async def arm_timer(self, game_id: str, seq: int | str, due_ms: int,
                        keep: bool = False) -> None: ...

    async def drop_timer(self, member: str) -> None: ...

    async def game_for_archive(self, game_id: str, seats: int
                               ) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]],
                                          Any, Any]: ...

    async def chat_for_archive(self, game_id: str, table_id: str | None
                               ) -> dict[str, list[dict[str, Any]]]: ...

    async def expire_live(self, game_id: str, seats: int, ttl_ms: int) -> None: ...
