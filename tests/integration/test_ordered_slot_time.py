"""Ruling P-S1: in a fixed-order sealed round every slot has its own time. A seat
that lets it pass defaults alone; the seats after it keep their full time and their choices.
The control test below runs the same order with one round deadline and no time per slot: an
idle first seat then makes every later seat default too."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings
from shared.runtime.tasks import cancel_and_wait
from tests.support.sealing import sealed_commit

pytestmark = pytest.mark.integration
# the escrow's mechanics, driven in process as the gateway would: signed commits are
# tests/reliability/test_forged_seats.py's (and tests/service/test_signed_commands.py's)
UNSIGNED = Settings(require_signatures=False)

RID = "pick:1"


class Sink:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        self.sent.append((stream, body))

    def codes(self) -> list[str | None]:
        return [b.get("code") for _, b in self.sent if b.get("type") == "reply" and not b["ok"]]

    def reveals(self) -> list[dict[str, Any]]:
        return [b for _, b in self.sent if b.get("type") == "round_revealed"]


DB = 9  # its own logical database: no other tier's escrow polls these timers



def spec(game_id: str, slot_timeout_ms: int | None, deadline_ms: int = 10**13) -> im.OpenRound:
    return im.OpenRound(game_id=game_id, game="duel", round_id=RID, ordered=True,
                        deadline_ms=deadline_ms, slot_timeout_ms=slot_timeout_ms,
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)),
                                           default=5) for i in range(3)])


def commit(game_id: str, seat: int, choice: int) -> im.CommitChoice:
    return sealed_commit(game_id, RID, f"s{seat}", seat, choice, cmd_id=f"k{seat}-{choice}")


async def record_types(r: Any, game_id: str) -> list[str]:
    return [json.loads(e[b"d"])["type"] for _, e in await r.xrange(Keys(game_id).record)]


async def test_an_idle_first_seat_defaults_alone(r: Any) -> None:
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    s = spec("g-idle", slot_timeout_ms=60_000)
    await esc.on_open(s)
    # the first slot's own timer is armed at open, beside the round's deadline
    assert await esc.store.timers.due("g-idle|pick:1|s0") is not None
    assert await esc.store.timers.due("g-idle|pick:1") == 10**13
    await esc.on_commit(commit("g-idle", 1, 7))  # not seat 1's turn yet
    assert sink.codes() == ["escrow/out_of_order"]
    await esc.skip(s, "s0")  # what the timer loop does when s0's own time has passed
    assert await esc.store.timers.due("g-idle|pick:1|s1") is not None  # s1's turn
    await esc.on_commit(commit("g-idle", 0, 3))  # too late: s0's default stands
    await esc.on_commit(commit("g-idle", 1, 7))
    assert await esc.store.timers.due("g-idle|pick:1|s2") is not None
    await esc.on_commit(commit("g-idle", 2, 8))
    assert sink.codes() == ["escrow/out_of_order", "escrow/slot_timed_out"]
    (reveal,) = sink.reveals()
    assert reveal["choices"] == {"s0": 5, "s1": 7, "s2": 8}
    assert reveal["defaulted"] == ["s0"]
    assert await record_types(r, "g-idle") == [
        "round_opened", "slot_timed_out", "committed", "committed", "round_closed",
        "round_revealed"]
    opened = json.loads((await r.xrange(Keys("g-idle").record))[0][1][b"d"])
    assert opened["slot_timeout_ms"] == 60_000


async def test_a_timer_that_fires_twice_or_after_a_commit_changes_nothing(r: Any) -> None:
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    s = spec("g-race", slot_timeout_ms=60_000)
    await esc.on_open(s)
    await esc.on_commit(commit("g-race", 0, 4))
    await esc.skip(s, "s0")  # s0 committed first: no time-out
    await esc.skip(s, "s1")
    await esc.skip(s, "s1")  # a second firing (a redelivered timer)
    await esc.skip(s, "s2")
    (reveal,) = sink.reveals()
    assert reveal["choices"] == {"s0": 4, "s1": 5, "s2": 5}
    assert reveal["defaulted"] == ["s1", "s2"]
    assert await record_types(r, "g-race") == [
        "round_opened", "committed", "slot_timed_out", "slot_timed_out", "round_closed",
        "round_revealed"]


async def test_a_slot_cannot_time_out_before_its_turn(r: Any) -> None:
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    s = spec("g-early", slot_timeout_ms=60_000)
    await esc.on_open(s)
    await esc.skip(s, "s2")  # s0 and s1 have not had their turn
    assert await record_types(r, "g-early") == ["round_opened"]


async def test_the_timer_loop_runs_the_order_on_its_own(r: Any) -> None:
    """Nobody commits: each slot times out after its own time, one after the other, and the
    last one closes the round (well before the round's own deadline)."""
    sink = Sink()
    esc = Escrow(Settings(timer_poll_ms=20, require_signatures=False), EscrowStore(r), sink,
                 Registered(r))
    s = spec("g-loop", slot_timeout_ms=150)
    await esc.on_open(s)
    loop = asyncio.create_task(esc.timer_loop())
    try:
        for _ in range(1200):  # bounded (a loaded machine): 3 slots of 0.15 s, polled every 20 ms
            if sink.reveals():
                break
            await asyncio.sleep(0.05)
    finally:
        # gone before the next test (its timers are in the same database), even if something
        # under it swallows a cancel (the CI hang of stop 31: shared/runtime/tasks.py)
        assert await cancel_and_wait(loop) == [], "the timer loop would not stop"
    (reveal,) = sink.reveals()
    assert reveal["defaulted"] == ["s0", "s1", "s2"]
    assert (await record_types(r, "g-loop")).count("slot_timed_out") == 3


async def test_control_without_a_time_per_slot_an_idle_first_seat_defaults_everyone(
        r: Any) -> None:
    """The shape before P-S1 (one deadline for the whole order): seat 1 and seat 2 cannot
    commit while seat 0 idles, and the deadline defaults all three."""
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    s = spec("g-old", slot_timeout_ms=None, deadline_ms=0)
    await esc.on_open(s)
    assert await esc.store.timers.due("g-old|pick:1|s0") is None
    await esc.on_commit(commit("g-old", 1, 7))
    await esc.on_commit(commit("g-old", 2, 8))
    await esc.skip(s, "s0")  # no time per slot: nothing happens
    await esc.close(s)  # the round's deadline
    assert sink.codes() == ["escrow/out_of_order", "escrow/out_of_order"]
    (reveal,) = sink.reveals()
    assert reveal["defaulted"] == ["s0", "s1", "s2"]
