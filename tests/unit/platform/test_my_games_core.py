"""The pure parts of "My games" and turn-based clocks: the lobby's entry per player and order
(services/lobby/mygames.py), who a stored game waits for (services/adjudicator/turns.py),
the time bank, and the clocks as the SDK and the terminal client write and read them."""

from __future__ import annotations

import pytest

from clients.sdk.my_games import clock_text, ordered
from clients.tui.mygames import parse_clock
from services.adjudicator import turns
from services.adjudicator.core import GameDoc
from services.adjudicator.turns import Awaited
from services.lobby import mygames
from shared.protocol.internal import PlayerRef
from shared.protocol.turns import SeatCommitted, TurnsChanged, Waiting

pytestmark = pytest.mark.unit

DAY = 86_400_000


@pytest.mark.parametrize(("ms", "text"), [
    (None, "no clock"), (-5, "0 s"), (999, "0 s"), (45_000, "45 s"), (60_000, "1 min"),
    (3_599_999, "59 min"), (3_600_000, "1 h"), (2 * 3_600_000 + 59 * 60_000, "2 h 59 min"),
    (DAY, "1 day"), (DAY + 3_600_000, "1 day 1 h"), (14 * DAY, "14 days"),
    (431_998_000, "4 days 23 h"),  # never "431998 s left"
])
def test_clocks_read_in_days_hours_and_minutes(ms: int | None, text: str) -> None:
    assert clock_text(ms) == text


@pytest.mark.parametrize(("typed", "ms"), [
    ("90s", 90_000), ("30m", 1_800_000), ("30 min", 1_800_000), ("12h", 43_200_000),
    ("3d", 3 * DAY), ("1d 12h", DAY + 43_200_000), ("", None)])
def test_a_typed_clock_is_read(typed: str, ms: int | None) -> None:
    assert parse_clock(typed) == ms


@pytest.mark.parametrize("typed", ["3", "3 days", "d3", "1x", "3d!"])
def test_a_clock_that_is_no_clock_is_refused(typed: str) -> None:
    with pytest.raises(ValueError):
        parse_clock(typed)


def entry(gid: str, seq: int, at: int, waiting: dict[int, int], ended: bool = False
          ) -> dict[str, object]:
    players = ["p-a", "p-b"]
    return TurnsChanged(game_id=gid, game="duel", pace="turn-based", seq=seq, at_ms=at,
                        players=players, ended=ended,
                        waiting=[Waiting(seat=s, player_id=players[s], since_ms=since,
                                         deadline_ms=since + DAY)
                                 for s, since in waiting.items()]).model_dump(mode="json")


def test_the_order_is_waiting_oldest_first_then_running_then_ended() -> None:
    stored = [entry("g-run", 1, 900, {1: 900}), entry("g-end", 1, 950, {}, ended=True),
              entry("g-new", 1, 800, {0: 800}), entry("g-old", 1, 700, {0: 100}),
              entry("g-run2", 1, 990, {})]
    mine = [mygames.entry_for(e, "p-a") for e in stored]
    got = [e["game_id"] for e in mygames.order(mine)]
    assert got == ["g-old", "g-new", "g-run2", "g-run", "g-end"]
    assert [g["game_id"] for g in ordered(mine)] == got  # the SDK orders as the server
    old = mine[3]
    assert (old["my_turn"], old["since_ms"], old["deadline_ms"], old["seat"]) == (
        True, 100, 100 + DAY, 0)
    ended = mygames.entry_for(entry("g-x", 2, 5, {0: 5}, ended=True), "p-a")
    assert ended["my_turn"] is False  # an ended game waits for nobody


def test_a_newer_entry_replaces_an_older_one_and_the_end_wins_at_one_seq() -> None:
    t = TurnsChanged.model_validate(entry("g", 4, 10, {0: 10}))
    assert mygames.newer(None, t)
    assert mygames.newer(entry("g", 3, 5, {}), t)
    assert not mygames.newer(entry("g", 4, 10, {0: 10}), t)
    assert not mygames.newer(entry("g", 5, 11, {}), t)
    assert mygames.newer(entry("g", 4, 10, {0: 10}),
                         TurnsChanged.model_validate(entry("g", 4, 10, {}, ended=True)))
    assert mygames.humans(TurnsChanged(game_id="g", game="duel", seq=1, at_ms=1,
                                       players=["p-a", "b-1", "p-a", ""])) == ["p-a"]


def doc(**kw: object) -> GameDoc:
    base: dict[str, object] = dict(
        game_id="g", game="duel", options={}, engine={}, turn_timeout_ms=5_000,
        round_timeout_ms=5_000, players=[PlayerRef(player_id=f"p{i}", name=f"n{i}")
                                         for i in range(2)])
    return GameDoc.model_validate({**base, **kw})


def test_the_bank_is_spent_only_by_an_awaited_seat_past_its_move_s_clock() -> None:
    d = doc(bank=[10_000, 10_000], armed_ms=0, waiting=[Awaited(seat=0, since_ms=0)])
    assert turns.draw_bank(d, 0, 4_000).bank == [10_000, 10_000]  # within the clock
    assert turns.draw_bank(d, 0, 8_000).bank == [7_000, 10_000]
    assert turns.draw_bank(d, 0, 90_000).bank == [0, 10_000]  # never below nothing
    assert turns.draw_bank(d, 1, 8_000).bank == [10_000, 10_000]  # not awaited: no draw
    assert turns.empty_banks(d, {1}).bank == [10_000, 0]
    assert turns.bank_for(d, [0, 1]) == 10_000 and turns.bank_for(doc(), [0]) == 0


def test_the_longest_clock_covers_an_ordered_round_of_every_seat() -> None:
    assert turns.longest_clock_ms(DAY, DAY, 0, 4) == 5 * DAY
    assert turns.longest_clock_ms(10 * DAY, DAY, 4 * DAY, 2) == 14 * DAY


def simultaneous(round_id: str) -> dict[str, object]:
    return {"kind": "simultaneous", "round_id": round_id,
            "order": [{"seat": 0, "key": "s0"}, {"seat": 1, "key": "s1"}]}


def test_a_new_sealed_round_is_published_even_when_its_seats_and_clock_are_the_same() -> None:
    d = doc(stage="playing", deadline_ms=9_000, pace="turn-based")
    first, t1 = turns.track(None, d, 0, simultaneous("pick:1"))
    assert t1 is not None and t1.round_id == "pick:1" and [w.seat for w in t1.waiting] == [0, 1]
    same, t2 = turns.track(first, first, 10, simultaneous("pick:1"))
    assert t2 is None  # nothing changed for the readers
    _, t3 = turns.track(same, same, 20, simultaneous("pick:2"))
    assert t3 is not None and t3.round_id == "pick:2"  # the next round: its SeatCommitted match
    _, t4 = turns.track(same, same, 30, {"kind": "turn", "seats": [1]})
    assert t4 is not None and t4.round_id is None


def test_a_real_time_game_is_published_as_it_starts_changes_players_and_ends() -> None:
    d = doc(stage="playing", deadline_ms=9_000)  # real-time, the default pace
    first, t1 = turns.track(None, d, 0, simultaneous("pick:1"))
    assert t1 is not None and t1.waiting == [] and t1.round_id is None
    assert [w.seat for w in first.waiting] == [0, 1]  # the document still knows its waits
    nxt, t2 = turns.track(first, first, 10, simultaneous("pick:2"))
    assert t2 is None  # a new round: followed at its table, not in My games
    _, t3 = turns.track(nxt, nxt, 20, {"kind": "turn", "seats": [1]})
    assert t3 is None
    bot = nxt.model_copy(update={"players": [nxt.players[0],
                                             PlayerRef(player_id="b-1", name="bot")]})
    _, t4 = turns.track(nxt, bot, 30, {"kind": "turn", "seats": [1]})
    assert t4 is not None and t4.players == ["p0", "b-1"] and t4.waiting == []
    ended = bot.model_copy(update={"stage": "ended"})
    _, t5 = turns.track(bot, ended, 40, {"kind": "terminal"})
    assert t5 is not None and t5.ended and t5.waiting == []
    assert turns.turns_of(first, 50).waiting == []  # a redrive says the same


def test_a_committed_seat_leaves_the_stored_entry_of_its_round_only() -> None:
    entry = TurnsChanged(game_id="g", game="duel", seq=4, at_ms=0, players=["p-a", "p-b"],
                         round_id="pick:1",
                         waiting=[Waiting(seat=s, player_id=p, since_ms=0, deadline_ms=DAY)
                                  for s, p in enumerate(("p-a", "p-b"))])
    stored = entry.model_dump(mode="json")
    seat0 = SeatCommitted(game_id="g", round_id="pick:1", seat=0, player_id="p-a", at_ms=1)
    after = mygames.drop_committed(stored, seat0)
    assert after is not None and [w["seat"] for w in after["waiting"]] == [1]
    assert mygames.drop_committed(after, seat0) is None  # once
    stale = seat0.model_copy(update={"round_id": "pick:0"})
    assert mygames.drop_committed(stored, stale) is None
    assert mygames.drop_committed({**stored, "ended": True}, seat0) is None
    assert [w.seat for w in mygames.without_committed(entry, {1}).waiting] == [0]
    old = entry.model_copy(update={"round_id": None})
    assert mygames.without_committed(old, {0, 1}) == old  # no round: nothing to match
    assert mygames.committed_kept_ms(stored, 0, 1_000) == DAY + 1_000
    assert mygames.committed_kept_ms(None, 0, 1_000) == 1_000
    assert mygames.committed_kept_ms(stored, 10 * DAY, 1_000) == 1_000  # past its deadline
