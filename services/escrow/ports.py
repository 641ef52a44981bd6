"""The escrow's store as a port (services/escrow/store.py ``EscrowStore`` is the Redis adapter;
tests/support/fakes.py ``FakeEscrowStore`` the in-memory one, checked against it in
tests/integration/test_store_contracts.py). Beside the service rather than in
shared/runtime/ports.py: it speaks the escrow's own types (Step, CloseInputs)."""

from __future__ import annotations

from typing import Protocol

from services.escrow.store import CloseInputs, Step
from shared.protocol import internal as im
from shared.runtime.ports import TimerRunner


class EscrowStorePort(Protocol):
    @property
    def timers(self) -> TimerRunner: ...

    async def seal_key(self, candidate: str) -> str: ...

    async def round_spec(self, game_id: str, round_id: str) -> im.OpenRound | None: ...

    async def open_round(self, spec: im.OpenRound, timers: dict[str, int], entry: str,
                         salts: str, now_ms: int) -> bool: ...

    async def record_commit(self, game_id: str, round_id: str, slot: str, commitment: str,
                            opening: str, previous: str, entry: str,
                            slot_keys: list[str]) -> Step: ...

    async def time_out_slot(self, game_id: str, round_id: str, slot: str, previous: str,
                            entry: str, slot_keys: list[str]) -> Step: ...

    async def commitment(self, game_id: str, round_id: str, slot: str) -> str | None: ...

    async def commit_count(self, game_id: str, round_id: str) -> int: ...

    async def begin_close(self, game_id: str, round_id: str) -> str: ...

    async def close_inputs(self, game_id: str, round_id: str,
                           slot_keys: list[str]) -> CloseInputs: ...

    async def close_round(self, game_id: str, round_id: str, closed: str, revealed: str,
                          reveal: str) -> tuple[bool, int | None]: ...

    async def reveal_of(self, game_id: str, round_id: str) -> im.RoundRevealed | None: ...

    async def arm_timer(self, member: str, due_ms: int, keep: bool = False) -> None: ...

    async def extend_ttl(self, game_id: str, round_id: str, ttl_ms: int) -> None: ...
