"""The escrow's store as a port (services/escrow/store.py ``EscrowStore`` is the Redis adapter;
tests/support/fakes ``FakeEscrowStore`` the in-memory one, checked against it in
tests/integration/test_store_contracts.py), with the values it answers (Step, CloseInputs).
Beside the service rather than in shared/runtime/ports.py: it speaks the escrow's own types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from shared.protocol import internal as im
from shared.runtime.ports import TimerRunner
from shared.runtime.tail import Tail


@dataclass(frozen=True)
class CloseInputs:
    """What a close reveals from: the openings by slot key (the slots that committed), the
    commitments by slot key and the round's salts."""

    openings: dict[str, dict[str, Any]] = field(default_factory=dict)
    commits: dict[str, str] = field(default_factory=dict)
    salts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """A commit's or a time-out's outcome: ``status`` ok | closed | dup | order | timed_out |
    committed; ``done`` the slots done so far; ``closing`` set when this was the last slot (the
    round moved to 'closing' in the same step and what the close needs was read)."""

    status: str
    done: int = 0
    closing: CloseInputs | None = None


class EscrowStorePort(Protocol):
    # whether the steps below apply a ``tail`` (shared/runtime/tail.py; else they ignore it:
    # the shell publishes and the bus acknowledges)
    inline: bool

    @property
    def timers(self) -> TimerRunner: ...

    async def seal_key(self, candidate: str) -> str: ...

    async def round_spec(self, game_id: str, round_id: str) -> im.OpenRound | None: ...

    async def hand_over_slot(self, game_id: str, round_id: str, seat: int,
                             player_id: str) -> None: ...

    async def open_round(self, spec: im.OpenRound, timers: dict[str, int], entry: str,
                         salts: str, now_ms: int, ttl_ms: int = 0,
                         tail: Tail | None = None) -> bool: ...

    async def record_commit(self, game_id: str, round_id: str, slot: str, commitment: str,
                            opening: str, previous: str, entry: str,
                            slot_keys: list[str], tail: Tail | None = None) -> Step: ...

    async def time_out_slot(self, game_id: str, round_id: str, slot: str, previous: str,
                            entry: str, slot_keys: list[str]) -> Step: ...

    async def commitment(self, game_id: str, round_id: str, slot: str) -> str | None: ...

    async def slot_done(self, game_id: str, round_id: str, slot: str) -> bool: ...

    async def commit_count(self, game_id: str, round_id: str) -> int: ...

    async def begin_close(self, game_id: str, round_id: str) -> str: ...

    async def close_inputs(self, game_id: str, round_id: str,
                           slot_keys: list[str]) -> CloseInputs: ...

    async def close_round(self, game_id: str, round_id: str, closed: str, revealed: str,
                          reveal: str, ttl_ms: int = 0,
                          tail: Tail | None = None) -> tuple[bool, int | None]: ...

    async def reveal_of(self, game_id: str, round_id: str) -> im.RoundRevealed | None: ...

    async def arm_timer(self, member: str, due_ms: int, keep: bool = False) -> None: ...

