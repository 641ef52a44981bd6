"""What a client holds of one game it watches: the latest view, the public record, its own
receipts; the checks a seat can make on its own (every reveal against the commitment it saw
before the round closed) and the receipts file ``python -m shared.fairness.verify --receipts``
reads."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from clients.sdk.errors import ApiError
from shared.fairness.commitments import commitment

# CANCEL_SAFE: the SDK's waits use ``asyncio.timeout``, never ``asyncio.wait_for``: on Python
# 3.11 wait_for returns the awaited result when a cancel lands after it completed but before
# the waiting task resumed, and the cancelled task plays on (a bot seat the runner stopped, a
# player a test stopped: tests/clients/test_sdk_cancel.py)


@dataclass
class Receipt:
    """What a seat keeps after committing: enough to prove its choice later."""

    round_id: str
    slot: str
    choice: Any
    nonce: str
    commitment: str
    acknowledged: bool = False
    escrow_key: str | None = None  # the key the opening was sealed to (verify --receipts)


class SeatClient(Protocol):
    """What a game session asks of the client that watches it (``Client``): its moves."""

    async def act(self, game_id: str, action: Any, expected_seq: int | None,
                  seat: int | None = None) -> str: ...

    async def commit(self, game: GameSession, round_id: str, slot: str, choice: Any,
                     public: dict[str, Any] | None = None) -> Receipt: ...


@dataclass
class GameSession:
    game_id: str
    client: SeatClient  # the Client that watches it
    seat: int | None = None
    view: dict[str, Any] | None = None  # the latest ViewUpdate message
    seq: int = -1
    record: list[dict[str, Any]] = field(default_factory=list)
    record_id: str = "0-0"
    events: list[dict[str, Any]] = field(default_factory=list)
    receipts: dict[str, Receipt] = field(default_factory=dict)  # "<round>/<slot>" -> receipt
    commitments_seen: dict[str, str] = field(default_factory=dict)  # before close
    escrow_keys: dict[str, str] = field(default_factory=dict)  # round -> its round_opened key
    closed_rounds: set[str] = field(default_factory=set)
    rejections: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    seen_seqs: list[int] = field(default_factory=list)  # every view seq received, in order
    resumed_from: list[int] = field(default_factory=list)  # after_seq of each resume
    gaps: int = 0  # resumes answered with a fresh snapshot (the resume point was too old)
    # the seq of the latest view that brought a public event: the record (which carries
    # every public event with its seq) has caught up with the game once it reaches it
    public_event_seq: int = -1

    @property
    def ended(self) -> bool:
        return bool(self.view and self.view["node"].get("kind") == "terminal")

    def on_view(self, msg: dict[str, Any]) -> None:
        if msg["seq"] <= self.seq and not msg.get("gap"):
            return
        self.view, self.seq = msg, msg["seq"]
        self.seat = msg["seat"]
        self.seen_seqs.append(msg["seq"])
        if msg.get("gap"):
            self.gaps += 1
        self.events.extend(msg.get("events", []))
        if any(not e.get("private") for e in msg.get("events", ())):
            self.public_event_seq = msg["seq"]
        self.changed.set()

    def on_record(self, msg: dict[str, Any]) -> None:
        if stream_id(msg["id"]) <= stream_id(self.record_id):
            return  # already held (a repeated watch or resume)
        entry = msg["entry"]
        self.record.append(entry)
        self.record_id = msg["id"]
        if entry.get("type") == "committed":
            self.commitments_seen[f"{entry['round_id']}/{entry['slot']}"] = entry["commitment"]
        elif entry.get("type") == "round_opened" and isinstance(entry.get("escrow_key"), str):
            self.escrow_keys[entry["round_id"]] = entry["escrow_key"]
        elif entry.get("type") == "round_closed":
            self.closed_rounds.add(entry["round_id"])
        self.changed.set()

    def committed_slots(self, round_id: str) -> dict[str, dict[str, Any]]:
        """slot -> the record entry that made the slot done, for a round: ``committed``, or
        ``slot_timed_out`` when a fixed-order slot let its own time pass (ruling P-S1; its
        ``public`` is the default's). Public parts included."""
        return {
            e["slot"]: e
            for e in self.record
            if e.get("type") in ("committed", "slot_timed_out") and e["round_id"] == round_id
        }

    def verify_reveals(self) -> list[str]:
        """Check every revealed choice against the commitment seen before close.

        Returns a list of problems (empty = all verified)."""
        problems = []
        for e in self.record:
            if e.get("type") != "round_revealed":
                continue
            for o in e["openings"]:
                key = f"{e['round_id']}/{o['slot']}"
                seen = self.commitments_seen.get(key)
                if o["defaulted"]:
                    if seen is not None:
                        problems.append(f"{key}: committed but shown as defaulted")
                    continue
                c = commitment(
                    self.game_id, e["round_id"], o["slot"], o["seat"], o["choice"], o["nonce"]
                )
                if seen is None or c != seen or c != o["commitment"]:
                    problems.append(f"{key}: reveal does not match the commitment")
                mine = self.receipts.get(key)
                if mine is not None and (mine.commitment != c or mine.choice != o["choice"]):
                    problems.append(f"{key}: my choice was altered")
        return problems

    def receipts_doc(self) -> dict[str, Any]:
        """This seat's receipts in the format ``python -m shared.fairness.verify --receipts
        FILE`` reads (docs/fairness.md): only commits the escrow acknowledged (an unanswered
        one may never have been stored)."""
        return {"game_id": self.game_id, "seat": self.seat, "receipts": [
            {"round_id": r.round_id, "slot": r.slot, "choice": r.choice, "nonce": r.nonce,
             "commitment": r.commitment, "escrow_key": r.escrow_key}
            for r in self.receipts.values() if r.acknowledged]}

    def save_receipts(self, path: str | Path) -> Path:
        """Write ``receipts_doc()`` to ``path`` (for ``verify --receipts``); returns it."""
        out = Path(path)
        out.write_text(json.dumps(self.receipts_doc(), indent=1), encoding="utf-8")
        return out

    async def wait(self, timeout: float = 30.0) -> None:
        """Until something changed since the last wait returned (TimeoutError after
        ``timeout`` s). The flag is consumed on waking, never cleared before waiting: an update
        that arrived while the caller was busy (e.g. its own commit's record entry, which
        makes its next fixed-order slot its turn) wakes the next wait at once instead of
        being lost for the whole timeout."""
        async with asyncio.timeout(timeout):  # see CANCEL_SAFE
            await self.changed.wait()
        self.changed.clear()

    async def wait_until(self, cond: Callable[[], bool], timeout: float = 30.0) -> None:
        """Wait for updates until ``cond()`` holds; TimeoutError after ``timeout`` s."""

        async def loop() -> None:
            while not cond():
                with contextlib.suppress(TimeoutError):
                    await self.wait(0.5)

        async with asyncio.timeout(timeout):  # see CANCEL_SAFE
            await loop()

    async def act(self, action: Any, expected_seq: int | None = None) -> str:
        return await self.client.act(
            self.game_id, action, self.seq if expected_seq is None else expected_seq,
            seat=self.seat,
        )

    async def commit(
        self, round_id: str, slot: str, choice: Any, public: dict[str, Any] | None = None
    ) -> Receipt:
        return await self.client.commit(self, round_id, slot, choice, public)


async def escrow_key_of(game: GameSession, round_id: str, timeout_s: float = 10.0) -> str:
    """The escrow key of a round, from its ``round_opened`` record entry. That entry may
    arrive a little after the view that offers the round: until it does, the key of the
    game's latest round (the escrow has one key; were it another, the escrow would refuse
    the commit with escrow/bad_seal, and ``verify --receipts`` shows the key used); in the
    game's first round, wait for it (escrow/no_round if it never comes)."""
    for _ in range(int(timeout_s / 0.02)):
        key = game.escrow_keys.get(round_id)
        if key is None and game.escrow_keys:
            key = next(reversed(game.escrow_keys.values()))
        if key is not None:
            return key
        await asyncio.sleep(0.02)
    raise ApiError("escrow/no_round", f"round {round_id} was never opened by the escrow")


def stream_id(sid: str) -> tuple[int, int]:
    ms, _, n = sid.partition("-")
    return int(ms), int(n or 0)


async def updates(game: GameSession) -> AsyncIterator[dict[str, Any]]:
    """Yield each new view of a game until it ends."""
    last = -1
    while True:
        if game.view is not None and game.seq != last:
            last = game.seq
            yield game.view
            if game.ended:
                return
        with contextlib.suppress(asyncio.TimeoutError):
            await game.wait(1.0)
