"""The bot runner's capacity and back-pressure through its ports (no server, no gateway):
the store is the in-memory fake of tests/support/fakes and each seat "plays" until the
test lets it finish."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

import pytest

from services.bots import parking
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


# -- a full runner parks its stillest seat for a waiting one (services/bots/parking.py) -----


class Game:
    """A seat's game as the runner watches it: its seq moves when the test says so."""

    def __init__(self) -> None:
        self.seq = 1


def parking_runner(capacity: int, idle_s: float = 0.05
                   ) -> tuple[BotRunner, FakeBotsStore, Seats]:
    store, seats = FakeBotsStore(), Seats()
    settings = Settings(bots_max_seats=capacity, bots_park_idle_s=idle_s, bots_park_max_s=0.2)
    return BotRunner(settings, store, play=seats.play), store, seats


def add_now(store: FakeBotsStore, body: dict[str, object]) -> None:
    """XADD as the lobby does it now (the entry's id carries the time)."""
    store.stream.append((f"{int(time.time() * 1000)}-{len(store.stream)}".encode(),
                         {b"d": dumps(body).encode()}))


def watch(bots: BotRunner, key: str) -> Game:
    game = Game()
    bots.watched[key] = game
    return game


async def test_a_full_runner_parks_its_stillest_seat_for_a_new_one() -> None:
    bots, store, seats = parking_runner(capacity=2)
    for g in ("g1", "g2"):
        add_now(store, seat(g))
    async with running(bots.read_loop):
        await until(lambda: len(seats.playing) == 2)
        watch(bots, "g2:0")
        moving = watch(bots, "g1:0")
        bots.observe()  # their first views
        await asyncio.sleep(0.1)  # both still past the bound: g2 moves now, g1 stays still
        moving.seq += 1
        bots.observe()
        add_now(store, seat("g3"))
        # the new seat starts before the parked one's lease is dropped: wait for both
        await until(lambda: "g3:0" in seats.playing and "g2:0" not in store.leases)
        assert sorted(seats.playing) == ["g1:0", "g3:0"]  # the still one gave its place
        assert "g2:0" in store.active and "g2:0" not in store.leases  # parked, not forgotten
        note = parking.Parked.loads(store.notes["g2:0"])
        assert note.parks == 1 and note.seq == 1 and note.until_ms > note.since_ms


async def test_seats_whose_games_move_keep_their_places() -> None:
    bots, store, seats = parking_runner(capacity=2, idle_s=0.3)
    for g in ("g1", "g2"):
        add_now(store, seat(g))

    games: list[Game] = []

    async def moving() -> None:
        while True:
            for game in games:
                game.seq += 1
            await asyncio.sleep(0.01)

    async with running(bots.read_loop, bots.observe_loop, moving):
        await until(lambda: len(seats.playing) == 2)
        games += [watch(bots, "g1:0"), watch(bots, "g2:0")]
        bots.observe()  # their first views
        await asyncio.sleep(0.4)  # past the bound, but their games moved all along
        add_now(store, seat("g3"))
        await asyncio.sleep(0.4)
        await bots.resume_once()
        # no room: g3 waits in the stream for any replica with room
        assert sorted(seats.playing) == ["g1:0", "g2:0"] and store.waiting() == 1
        assert bots.room() == 0 and store.notes == {}


async def test_the_seats_of_one_wave_do_not_push_each_other_out() -> None:
    """Seats queued before the still ones started wait for a free place; a later game's
    seat takes the stillest place at once; the parked seat comes back when a place frees."""
    bots, store, seats = parking_runner(capacity=1)
    store.add(seat("g1"))  # queued long ago (ids 1-0, 2-0)
    store.add(seat("g2"))
    async with running(bots.read_loop):
        await until(lambda: seats.playing == ["g1:0"] and "g2:0" in store.notes)
        watch(bots, "g1:0")
        await asyncio.sleep(0.1)
        await bots.resume_once()  # g2 was queued before g1 went still: no place for it
        assert seats.playing == ["g1:0"]
        add_now(store, seat("g3"))
        await until(lambda: seats.playing == ["g3:0"])
    assert parking.Parked.loads(store.notes["g1:0"]).parks == 1
    seats.finish("g3:0")
    await until(lambda: not bots.tasks)
    await asyncio.sleep(0.1)  # g1's pause is over
    await bots.resume_once()
    await until(lambda: len(seats.playing) == 1)
    assert seats.playing[0] in ("g1:0", "g2:0") and len(bots.tasks) == 1
    await bots.close()
