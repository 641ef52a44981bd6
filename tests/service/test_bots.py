"""The bot runner's capacity and back-pressure through its ports (no server, no gateway):
the store is the in-memory fake of tests/support/fakes and each seat "plays" until the
test lets it finish."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest

from services.bots.service import BotRunner
from shared.protocol import internal as im
from shared.runtime.jsonutil import dumps
from shared.runtime.settings import Settings
from tests.support.fakes import FakeBotsStore

pytestmark = pytest.mark.service


class Seats:
    """Seats that play until released one by one (``finish``)."""

    def __init__(self) -> None:
        self.playing: list[str] = []
        self.played: list[str] = []
        self._gates: dict[str, asyncio.Event] = {}

    async def play(self, seat: im.SeatBot) -> None:
        key = f"{seat.game_id}:{seat.seat}"
        self.playing.append(key)
        gate = self._gates.setdefault(key, asyncio.Event())
        try:
            await gate.wait()
        finally:
            self.playing.remove(key)
        self.played.append(key)

    def finish(self, key: str) -> None:
        self._gates.setdefault(key, asyncio.Event()).set()


def seat(game: str, n: int = 0) -> dict[str, object]:
    return im.SeatBot(game_id=game, seat=n, player_id=f"b-{game}-{n}", token="t",
                      kind="random").model_dump(mode="json")


async def until(cond: Callable[[], bool], rounds: int = 2000) -> None:
    for _ in range(rounds):
        if cond():
            return
        await asyncio.sleep(0)
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")


@contextlib.asynccontextmanager
async def running(*loops: Callable[[], object]) -> AsyncIterator[None]:
    tasks = [asyncio.create_task(loop()) for loop in loops]  # type: ignore[arg-type]
    try:
        yield
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t


def runner(capacity: int) -> tuple[BotRunner, FakeBotsStore, Seats]:
    store, seats = FakeBotsStore(), Seats()
    return BotRunner(Settings(bots_max_seats=capacity), store, play=seats.play), store, seats


async def test_a_runner_reads_only_as_many_seats_as_it_has_room_for() -> None:
    bots, store, seats = runner(capacity=2)
    for g in ("g1", "g2", "g3", "g4", "g5"):
        store.add(seat(g))
    async with running(bots.read_loop):
        await until(lambda: len(seats.playing) == 2)
        for _ in range(20):  # full: it reads nothing more, however long it waits
            await asyncio.sleep(0.001)
        assert store.waiting() == 3 and max(store.reads) <= 2
        assert sorted(store.active) == ["g1:0", "g2:0"]
        seats.finish("g1:0")  # a seat ends: room for exactly one more
        await until(lambda: "g3:0" in seats.playing)
        assert len(seats.playing) == 2 and store.waiting() == 2
        assert "g1:0" not in store.active and "g1:0" not in store.leases  # done, let go
    assert max(store.reads) <= 2 and 1 in store.reads  # with one seat free it asked for one


async def test_a_seat_held_by_another_runner_waits_for_its_lease() -> None:
    bots, store, seats = runner(capacity=4)
    store.leases["g1:0"] = "runner-2"  # another replica plays it
    store.add(seat("g1"))
    async with running(bots.read_loop):
        await until(lambda: store.waiting() == 0 and "g1:0" in store.active)
    async with running(bots.resume_loop):  # a pass over bots:active while runner-2 lives
        for _ in range(20):
            await asyncio.sleep(0.001)
        assert seats.playing == []  # stored (durable), not played twice
    del store.leases["g1:0"]  # runner-2 died: its lease lapsed
    async with running(bots.resume_loop):  # the next pass adopts it
        await until(lambda: seats.playing == ["g1:0"])


async def test_a_malformed_entry_goes_to_the_dead_letters_and_the_rest_play() -> None:
    bots, store, seats = runner(capacity=4)
    store.add({"type": "seat_bot", "game_id": "g1"})  # no seat, no token
    store.add(seat("g2"))
    async with running(bots.read_loop):
        await until(lambda: seats.playing == ["g2:0"])
    assert len(store.dead) == 1 and store.stream == [] and store.active == {
        "g2:0": dumps(im.SeatBot.model_validate(seat("g2")).model_dump())}


async def test_entries_of_a_dead_runner_are_reclaimed_only_with_room() -> None:
    bots, store, seats = runner(capacity=1)
    bots.reclaim_s = 0.001  # look at once
    store.orphans = [(b"7-0", {b"d": dumps(seat("g7")).encode()}),
                     (b"8-0", {b"d": dumps(seat("g8")).encode()})]
    async with running(bots.reclaim_loop):
        await until(lambda: seats.playing == ["g7:0"])
        for _ in range(20):
            await asyncio.sleep(0.001)
        assert bots.free == 0 and len(store.orphans) == 1  # no room: g8 stays with the group
        seats.finish("g7:0")
        await until(lambda: seats.playing == ["g8:0"])


class SlowRenewals(FakeBotsStore):
    """A renewal already on the wire: its SET lands ``delay`` seconds later, whether or not
    the task that sent it is cancelled meanwhile (as with a command written to the socket)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.in_flight = 0

    async def _land(self, seat_key: str) -> None:
        await asyncio.sleep(self.delay)
        self.leases[seat_key] = self.instance
        self.in_flight -= 1

    async def renew(self, seat_key: str) -> None:
        self.in_flight += 1
        await asyncio.shield(self._land(seat_key))


async def test_a_finished_seat_leaves_no_lease_behind_even_mid_renewal() -> None:
    """The lease is deleted only after the last renewal has landed: a renewal cancelled in
    flight that landed after the delete would make the runner look as if it held the seat
    for 10 s more (tests/reliability/test_lobby_limits.py counts leases)."""
    store, seats = SlowRenewals(delay=0.05), Seats()
    bots = BotRunner(Settings(bots_max_seats=2), store, play=seats.play)
    bots.renew_s = 0.001
    store.add(seat("g1"))
    async with running(bots.read_loop):
        await until(lambda: seats.playing == ["g1:0"] and store.in_flight > 0)
        seats.finish("g1:0")
        await until(lambda: not bots.tasks)
        assert store.leases == {}
        await asyncio.sleep(0.1)  # any renewal still in flight would have landed by now
        assert store.leases == {} and store.in_flight == 0
