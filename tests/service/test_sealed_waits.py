"""A sealed round waits for the seats that have not committed: the escrow appends a
``SeatCommitted`` to TURNS when it accepts a seat's commit (public: seat, player, round, time;
never a choice, a nonce or a commitment), and the lobby's "My games" (real Valkey store) and
the notifier (real Valkey, a real SMTP server) stop waiting for that seat in that round, while
the other seat still waits. A ``SeatCommitted`` of another round changes nothing; a later
``TurnsChanged`` (higher seq) wins; entries written before ``round_id`` still parse."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.lobby.mygames_service import MyGames
from services.lobby.mygames_store import MyGamesStore
from shared.protocol import streams
from shared.protocol.turns import TURNS, SeatCommitted, TurnsChanged, Waiting
from shared.runtime.settings import Settings
from tests.service.test_escrow import GID, RID, commit, duel, escrow
from tests.support.fakes import FakePublisher
from tests.support.notify_sinks import MailSink
from tests.support.notify_system import ADDR, HOUR, T0, Clock, System, no_secrets, verified

pytestmark = pytest.mark.service

DB = 14  # its own logical database (emptied first)
BOB = "bob@example.org"
DAY = 86_400_000


def sealed(gid: str, seq: int, since: int, round_id: str | None = "pick:1",
           seats: tuple[int, ...] = (0, 1), players: tuple[str, str] = ("p-a", "p-b")
           ) -> dict[str, Any]:
    """The adjudicator's entry for an open sealed round waiting for ``seats``."""
    return TurnsChanged(game_id=gid, game="duel", pace="turn-based", seq=seq, at_ms=since,
                        players=list(players), round_id=round_id,
                        waiting=[Waiting(seat=s, player_id=players[s], since_ms=since,
                                         deadline_ms=since + 10 * HOUR) for s in seats]
                        ).model_dump(mode="json")


def committed(gid: str, seat: int, round_id: str = "pick:1",
              players: tuple[str, str] = ("p-a", "p-b")) -> dict[str, Any]:
    return SeatCommitted(game_id=gid, round_id=round_id, seat=seat, player_id=players[seat],
                         at_ms=T0).model_dump(mode="json")


# --- the escrow appends it --------------------------------------------------------------------


async def test_the_escrow_appends_seat_committed_with_nothing_secret() -> None:
    esc, _, out = escrow()
    await esc.on_open(duel())
    c = commit(0, 7)
    await esc.on_commit(c)
    await esc.on_commit(c)  # redelivered: appended again, the readers apply it once
    await esc.on_commit(commit(0, 8))  # refused (already committed): nothing appended
    entries = [b for s, b in out.sent if s == TURNS]
    # the same entry again, stamped at its own time
    assert len(entries) == 2
    assert {**entries[0], "at_ms": 0} == {**entries[1], "at_ms": 0}
    (entry,) = entries[:1]
    assert set(entry) == set(SeatCommitted.model_fields)
    assert (entry["type"], entry["game_id"], entry["round_id"], entry["seat"]) == (
        "seat_committed", GID, RID, 0)
    text = json.dumps(entry)
    for secret in (c.commitment, '"7"', ": 7", "nonce", "choice", "commitment", "sealed"):
        assert secret not in text, (secret, entry)


@pytest.mark.parametrize("pace", ["real-time", "turn-based"])
async def test_only_a_turn_based_round_tells_the_readers_of_each_commit(pace: str) -> None:
    """A real-time game's readers follow its start, players and end only (its players are at
    its table): its round's commits and its reveal append nothing to TURNS."""
    esc, _, out = escrow()
    await esc.on_open(duel().model_copy(update={"pace": pace}))
    await esc.on_commit(commit(0, 7))
    await esc.on_commit(commit(1, 3))
    assert out.bodies("round_revealed")  # both commits taken, the round closed
    seats = [b["seat"] for s, b in out.sent if s == TURNS]
    assert seats == ([] if pace == "real-time" else [0, 1])


async def test_a_seat_with_two_slots_is_committed_when_both_are() -> None:
    from shared.protocol import internal as im

    esc, _, out = escrow()
    spec = im.OpenRound(game_id=GID, game="duel", round_id=RID, deadline_ms=10**13,
                        slots=[im.SlotSpec(seat=0, key=k, allowed=list(range(10)), default=5)
                               for k in ("a", "b")]
                        + [im.SlotSpec(seat=1, key="c", allowed=list(range(10)), default=5)])
    await esc.on_open(spec)
    await esc.on_commit(commit(0, 1, slot="a"))
    assert [b for s, b in out.sent if s == TURNS] == []  # slot b still open
    await esc.on_commit(commit(0, 2, slot="b"))
    assert [(b["seat"], b["round_id"]) for s, b in out.sent if s == TURNS] == [(0, RID)]


async def test_an_ordered_slot_that_times_out_leaves_the_seat_s_wait_too() -> None:
    """P-S1: a fixed-order slot whose own time passed defaults; the round no longer waits for
    its seat (SeatCommitted for seat 0), while the later seat still does."""
    from shared.protocol import internal as im

    esc, _, out = escrow()
    spec = im.OpenRound(game_id=GID, game="duel", round_id=RID, deadline_ms=10**13,
                        ordered=True, slot_timeout_ms=60_000,
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", player_id=f"p{i}",
                                           allowed=list(range(10)), default=5)
                               for i in range(2)])
    await esc.on_open(spec)
    await esc.on_timer(f"{GID}|{RID}|s0")
    await esc.on_timer(f"{GID}|{RID}|s0")  # fired twice: the slot is timed out once
    entries = [b for s, b in out.sent if s == TURNS]
    assert [(b["type"], b["seat"], b["player_id"], b["round_id"]) for b in entries] == [
        ("seat_committed", 0, "p0", RID)]
    assert set(entries[0]) == set(SeatCommitted.model_fields)  # not the default it took


# --- My games -----------------------------------------------------------------------------------


def my_games(r: Any) -> tuple[MyGames, FakePublisher]:
    out = FakePublisher()
    return MyGames(Settings(secret="x" * 64, dev=True), MyGamesStore(r), out), out


def pushed(out: FakePublisher) -> list[tuple[str, bool]]:
    return [(b["player_id"], b["game"]["my_turn"])
            for s, b in out.sent if s == streams.GW_UPDATES and b["type"] == "my_game"]


async def mine(mg: MyGames, player: str, gid: str = "g-s") -> dict[str, Any]:
    return next(g for g in (await mg.listing(player))["games"] if g["game_id"] == gid)


async def test_a_committed_seat_leaves_my_games_waiting_the_other_still_waits(r: Any) -> None:
    mg, out = my_games(r)
    await mg.on_turns(sealed("g-s", 4, T0))
    assert [(await mine(mg, p))["my_turn"] for p in ("p-a", "p-b")] == [True, True]
    await mg.on_turns(committed("g-s", 0))
    assert (await mine(mg, "p-a"))["my_turn"] is False
    assert (await mine(mg, "p-b"))["my_turn"] is True
    assert [w["seat"] for w in (await mine(mg, "p-b"))["waiting"]] == [1]
    assert pushed(out)[2:] == [("p-a", False), ("p-b", True)]  # the push frames went out
    await mg.on_turns(committed("g-s", 0))  # redelivered: nothing new
    await mg.on_turns(sealed("g-s", 4, T0))  # the round's entry again: the seat stays off
    assert len(pushed(out)) == 4 and (await mine(mg, "p-a"))["my_turn"] is False
    # the next round (a higher seq) waits for both again
    await mg.on_turns(sealed("g-s", 6, T0 + HOUR, round_id="pick:2"))
    assert (await mine(mg, "p-a"))["my_turn"] is True


async def test_a_stale_seat_committed_changes_nothing_in_my_games(r: Any) -> None:
    mg, out = my_games(r)
    await mg.on_turns(sealed("g-s", 6, T0, round_id="pick:2"))
    await mg.on_turns(committed("g-s", 1, round_id="pick:1"))  # the round before: late
    await mg.on_turns(committed("g-none", 0))  # a game it has no entry for
    assert (await mine(mg, "p-b"))["my_turn"] is True
    assert len(pushed(out)) == 2
    await mg.on_turns({"type": "seat_committed", "game_id": "g-s", "seat": "x"})  # malformed
    assert len(pushed(out)) == 2


async def test_a_commit_read_before_its_round_s_entry_still_counts(r: Any) -> None:
    mg, _ = my_games(r)
    await mg.on_turns(committed("g-s", 1))
    await mg.on_turns(sealed("g-s", 4, T0))
    assert (await mine(mg, "p-b"))["my_turn"] is False
    assert (await mine(mg, "p-a"))["my_turn"] is True


async def test_an_entry_written_before_round_ids_still_parses(r: Any) -> None:
    mg, _ = my_games(r)
    old = sealed("g-s", 2, T0, round_id=None)
    del old["round_id"]
    await mg.on_turns(old)
    await mg.on_turns(committed("g-s", 0))  # its round is unknown: nothing to match
    assert (await mine(mg, "p-a"))["my_turn"] is True


# --- the notifier -------------------------------------------------------------------------------


def turn_mails(smtp: MailSink, addr: str, gid: str) -> list[str]:
    return [m.msg["Subject"] for m in smtp.to(addr) if gid in m.msg["Subject"]]


async def test_a_committed_seat_gets_no_turn_mail_nor_reminder_the_other_does(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url, turn_mail_delay_s=600)
    await verified(sys, smtp, ADDR, "p-a")
    await verified(sys, smtp, BOB, "p-b")
    await sys.notifier.dispatch(sealed("g-n", 3, T0))
    await sys.notifier.dispatch(committed("g-n", 0))
    await sys.notifier.dispatch(sealed("g-n", 3, T0))  # redelivered: p-a stays off
    await sys.notifier.dispatch(committed("g-n", 1, round_id="pick:0"))  # stale: nothing
    for step in (HOUR, 9 * HOUR):  # past the turn mail's delay, then the reminder's time
        clock.now = T0 + step
        await sys.poll()
        await sys.poll()
    assert turn_mails(smtp, ADDR, "g-n") == []
    bob = turn_mails(smtp, BOB, "g-n")
    assert len(bob) == 2 and any("Reminder" in s for s in bob), bob
    no_secrets(*(m.raw for m in smtp.mails))


async def test_the_notifier_still_parses_an_entry_without_a_round(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url, turn_mail_delay_s=600)
    await verified(sys, smtp, ADDR, "p-a")
    old = sealed("g-o", 1, T0, round_id=None, seats=(0,))
    del old["round_id"]
    await sys.notifier.dispatch(old)
    await sys.notifier.dispatch(committed("g-o", 0))  # no round to match: the wait stands
    clock.now = T0 + HOUR
    await sys.poll()
    assert len(turn_mails(smtp, ADDR, "g-o")) == 1


# --- what is kept, and for how long -------------------------------------------------------------


async def test_committed_seats_are_kept_while_their_round_can_be_open(
        r: Any, smtp: MailSink) -> None:
    import time

    now = int(time.time() * 1000)
    mg, _ = my_games(r)
    await mg.on_turns(sealed("g-k", 4, now))  # the round's deadline: now + 10 h
    await mg.on_turns(committed("g-k", 0))
    ttl = await r.pttl("lobby:mg:sealed:g-k:pick:1")
    assert 10 * HOUR < ttl <= 10 * HOUR + DAY
    await mg.on_turns(committed("g-unknown", 0))  # read before any entry: a day at most
    assert 0 < await r.pttl("lobby:mg:sealed:g-unknown:pick:1") <= DAY
    # the notifier keeps them for a followed (turn-based) game only
    clock = Clock()
    clock.now = now
    sys = System(r, clock, smtp.url, turn_mail_delay_s=600)
    await sys.notifier.dispatch(sealed("g-k", 4, now))
    await sys.notifier.dispatch(committed("g-k", 1))
    assert 10 * HOUR // 1000 < await r.ttl("notify:sealed:g-k:pick:1") <= (10 * HOUR + DAY) // 1000
    await sys.notifier.dispatch(committed("g-realtime", 0))
    assert not await r.exists("notify:sealed:g-realtime:pick:1")
