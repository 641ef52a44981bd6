"""services/escrow/ports.py ``EscrowStorePort`` in memory."""

from __future__ import annotations

from typing import Any

from services.escrow import core
from services.escrow.ports import CloseInputs, Step, Tail
from shared.protocol import internal as im
from shared.runtime.jsonutil import loads
from tests.support.fakes.common import FakeTimers


class FakeEscrowStore:
    """services/escrow/store.py: its Lua scripts' rules over dicts. Per (game, round): the
    status (open | closing | closed), the round hash (spec, '#salts', '#opened', '#reveal',
    '#skip/<slot>', '#skipped'), the commitments and the openings; per game the record (a
    list of entries: the escrow's and, to end a game, the adjudicator's game_ended)."""

    inline = False  # no tail applied: the shell publishes, the bus acknowledges

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}  # esc:keys
        self.status: dict[tuple[str, str], str] = {}
        self.rounds: dict[str, dict[str, str]] = {}  # game id -> its round hash
        self.commits: dict[tuple[str, str], dict[str, str]] = {}
        self.openings: dict[str, dict[str, str]] = {}  # game id -> '<round>/<slot>' -> JSON
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.ttl_ms: dict[str, int] = {}  # game id -> the longest TTL asked for its keys
        self._timers = FakeTimers()

    @property
    def timers(self) -> FakeTimers:
        return self._timers

    async def seal_key(self, candidate: str) -> str:
        return self.keys.setdefault("x25519", candidate)

    async def round_spec(self, game_id: str, round_id: str) -> im.OpenRound | None:
        raw = self.rounds.get(game_id, {}).get(round_id)
        if raw is None:
            return None
        fields = self.rounds.get(game_id, {})
        handed = {i: fields[f] for i in range(core.MAX_SEATS)
                  if (f := core.handed_field(round_id, i)) in fields}
        return core.with_handed(im.OpenRound.model_validate(loads(raw)), handed)

    async def hand_over_slot(self, game_id: str, round_id: str, seat: int,
                             player_id: str) -> None:
        self.rounds.setdefault(game_id, {})[core.handed_field(round_id, seat)] = player_id

    async def open_round(self, spec: im.OpenRound, timers: dict[str, int], entry: str,
                         salts: str, now_ms: int, ttl_ms: int = 0,
                         tail: Tail | None = None) -> bool:
        for member, due in timers.items():
            await self._timers.arm(member, due)
        key = (spec.game_id, spec.round_id)
        if key in self.status or self._ended(spec.game_id):
            return False
        self.status[key] = "open"
        rid = spec.round_id
        self.rounds.setdefault(spec.game_id, {}).update({
            rid: spec.model_dump_json(), rid + "#salts": salts, rid + "#opened": str(now_ms)})
        self.records.setdefault(spec.game_id, []).append(loads(entry))
        self._extend(spec.game_id, ttl_ms)
        return True

    def _ended(self, game_id: str) -> bool:
        return any(e.get("type") == "game_ended" for e in self.records.get(game_id, [])[-3:])

    def _done(self, game_id: str, round_id: str, slot: str) -> bool:
        return (slot in self.commits.get((game_id, round_id), {})
                or f"{round_id}#skip/{slot}" in self.rounds.get(game_id, {}))

    def _step(self, game_id: str, round_id: str, slot_keys: list[str]) -> Step:
        h = self.rounds.setdefault(game_id, {})
        n = len(self.commits.get((game_id, round_id), {})) + int(h.get(round_id + "#skipped", 0))
        if n < len(slot_keys):
            return Step("ok", n)
        self.status[(game_id, round_id)] = "closing"
        return Step("ok", n, self._inputs(game_id, round_id, slot_keys))

    def _inputs(self, game_id: str, round_id: str, slot_keys: list[str]) -> CloseInputs:
        opened = self.openings.get(game_id, {})
        return CloseInputs(
            {k: loads(opened[f"{round_id}/{k}"]) for k in slot_keys
             if f"{round_id}/{k}" in opened},
            dict(self.commits.get((game_id, round_id), {})),
            loads(self.rounds.get(game_id, {}).get(round_id + "#salts") or "{}"))

    async def record_commit(self, game_id: str, round_id: str, slot: str, commitment: str,
                            opening: str, previous: str, entry: str,
                            slot_keys: list[str], tail: Tail | None = None) -> Step:
        if self.status.get((game_id, round_id)) != "open" or self._ended(game_id):
            return Step("closed")
        if previous and not self._done(game_id, round_id, previous):
            return Step("order")
        if f"{round_id}#skip/{slot}" in self.rounds.get(game_id, {}):
            return Step("timed_out")
        commits = self.commits.setdefault((game_id, round_id), {})
        if slot in commits:
            return Step("dup")
        commits[slot] = commitment
        self.openings.setdefault(game_id, {})[f"{round_id}/{slot}"] = opening
        self.records.setdefault(game_id, []).append(loads(entry))
        return self._step(game_id, round_id, slot_keys)

    async def time_out_slot(self, game_id: str, round_id: str, slot: str, previous: str,
                            entry: str, slot_keys: list[str]) -> Step:
        if self.status.get((game_id, round_id)) != "open" or self._ended(game_id):
            return Step("closed")
        if slot in self.commits.get((game_id, round_id), {}):
            return Step("committed")
        if previous and not self._done(game_id, round_id, previous):
            return Step("order")
        h = self.rounds.setdefault(game_id, {})
        if f"{round_id}#skip/{slot}" in h:
            return Step("dup")
        h[f"{round_id}#skip/{slot}"] = "1"
        h[round_id + "#skipped"] = str(int(h.get(round_id + "#skipped", 0)) + 1)
        self.records.setdefault(game_id, []).append(loads(entry))
        return self._step(game_id, round_id, slot_keys)

    async def commitment(self, game_id: str, round_id: str, slot: str) -> str | None:
        return self.commits.get((game_id, round_id), {}).get(slot)

    async def slot_done(self, game_id: str, round_id: str, slot: str) -> bool:
        return self._done(game_id, round_id, slot)

    async def commit_count(self, game_id: str, round_id: str) -> int:
        return len(self.commits.get((game_id, round_id), {}))

    async def begin_close(self, game_id: str, round_id: str) -> str:
        st = self.status.get((game_id, round_id), "")
        if st == "open":
            self.status[(game_id, round_id)] = st = "closing"
        return st

    async def close_inputs(self, game_id: str, round_id: str,
                           slot_keys: list[str]) -> CloseInputs:
        return self._inputs(game_id, round_id, slot_keys)

    async def close_round(self, game_id: str, round_id: str, closed: str, revealed: str,
                          reveal: str, ttl_ms: int = 0,
                          tail: Tail | None = None) -> tuple[bool, int | None]:
        await self._timers.drop(f"{game_id}|{round_id}")
        h = self.rounds.setdefault(game_id, {})
        raw = h.get(round_id + "#opened")
        opened = None if raw is None else int(raw)
        if self.status.get((game_id, round_id)) != "closing":
            return False, opened
        self.status[(game_id, round_id)] = "closed"
        h[round_id + "#reveal"] = reveal
        self._extend(game_id, ttl_ms)
        if not self._ended(game_id):
            self.records.setdefault(game_id, []).extend([loads(closed), loads(revealed)])
        return True, opened

    async def reveal_of(self, game_id: str, round_id: str) -> im.RoundRevealed | None:
        raw = self.rounds.get(game_id, {}).get(round_id + "#reveal")
        return None if raw is None else im.RoundRevealed.model_validate(loads(raw))

    async def arm_timer(self, member: str, due_ms: int, keep: bool = False) -> None:
        await self._timers.arm(member, due_ms, keep)

    def _extend(self, game_id: str, ttl_ms: int) -> None:
        """The open and close scripts' lifetime: only ever extended (0: nothing)."""
        if ttl_ms > 0:
            self.ttl_ms[game_id] = max(self.ttl_ms.get(game_id, 0), ttl_ms)
