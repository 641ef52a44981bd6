"""Turn-based tables and "My games" in the lobby, through its ports (in-memory fakes, checked
against the Redis stores in tests/integration/test_turns_store.py): a table's pace and clocks
(hostile values refused typed, nothing created), the quota per pace, and My games from the
turns stream: waiting for the player first, oldest wait first, each change pushed once to that
player only."""

from __future__ import annotations

from typing import Any

import pytest

from services.lobby.mygames_service import MyGames
from services.lobby.service import Lobby
from shared.protocol import streams
from shared.protocol.turns import TurnsChanged, Waiting
from shared.runtime.settings import Settings
from tests.support.fakes import FakeLobbyStore, FakeMyGamesStore, FakePublisher

pytestmark = pytest.mark.service

DAY = 86_400_000
FOURTEEN_DAYS = 14 * DAY


def lobby(**settings: Any) -> tuple[Lobby, FakeLobbyStore, FakePublisher, FakeMyGamesStore]:
    store, out, mine = FakeLobbyStore(), FakePublisher(), FakeMyGamesStore()
    s = Settings(secret="x" * 64, dev=True, **settings)
    return (Lobby(s, store, None, out, MyGames(s, mine, out)),  # type: ignore[arg-type]
            store, out, mine)


async def call(lb: Lobby, who: str, op: str, **kw: Any) -> dict[str, Any]:
    return await lb.handle({"op": op, "player_id": who, "name": who.upper(), **kw})


async def create(lb: Lobby, who: str = "p-host", **kw: Any) -> dict[str, Any]:
    return await call(lb, who, "create_table", game="duel", seats=2, **kw)


@pytest.mark.parametrize("body", [
    {"pace": "x"},
    {"pace": "turn-based", "turn_timeout_ms": FOURTEEN_DAYS + 1},
    {"pace": "turn-based", "round_timeout_ms": FOURTEEN_DAYS + 1},
    {"pace": "turn-based", "time_bank_ms": FOURTEEN_DAYS + 1},
    {"pace": "real-time", "turn_timeout_ms": 2 * DAY},
    {"turn_timeout_ms": DAY + 1},  # real-time is the default pace
    {"pace": "real-time", "time_bank_ms": 2 * DAY},
    {"pace": "turn-based", "time_bank_ms": -1},
    {"pace": "turn-based", "turn_timeout_ms": 999},
    {"pace": ["turn-based"]},
])
async def test_a_clock_beyond_the_pace_is_refused_typed_and_creates_nothing(
        body: dict[str, Any]) -> None:
    lb, store, _, _ = lobby()
    out = await create(lb, **body)
    assert (out["ok"], out["code"]) == (False, "lobby/bad_request"), out
    assert store.tables == {} and store.quota_tables == {}


async def test_a_turn_based_table_takes_fourteen_days_a_move_and_shows_its_pace() -> None:
    lb, _, _, _ = lobby()
    made = await create(lb, pace="turn-based", turn_timeout_ms=FOURTEEN_DAYS,
                        round_timeout_ms=FOURTEEN_DAYS, time_bank_ms=DAY)
    assert made["ok"], made
    t = made["table"]
    assert (t["pace"], t["turn_timeout_ms"], t["round_timeout_ms"], t["time_bank_ms"]) == (
        "turn-based", FOURTEEN_DAYS, FOURTEEN_DAYS, DAY)
    # shown to anyone: the table itself and the listing
    got = await call(lb, "p-other", "get_table", table_id=t["table_id"])
    assert got["table"]["pace"] == "turn-based"
    listed = await call(lb, "p-other", "list_tables")
    assert [x["pace"] for x in listed["tables"]] == ["turn-based"]
    # a turn-based table that names no clock gets a day per move; real-time the default
    tb = (await create(lb, "p-2", pace="turn-based"))["table"]
    rt = (await create(lb, "p-3"))["table"]
    assert tb["turn_timeout_ms"] == DAY and rt["turn_timeout_ms"] == Settings().turn_timeout_ms
    assert rt["pace"] == "real-time"


async def test_the_game_gets_the_table_s_pace_and_time_bank() -> None:
    lb, _, out, _ = lobby()
    tid = (await create(lb, pace="turn-based", turn_timeout_ms=3 * DAY,
                        time_bank_ms=DAY))["table"]["table_id"]
    await call(lb, "p-two", "join_table", table_id=tid)
    await call(lb, "p-host", "start_table", table_id=tid)
    (game,) = [b for s, b in out.sent if s.startswith(streams.ADJ_CONTROL)]
    assert (game["pace"], game["turn_timeout_ms"], game["time_bank_ms"]) == (
        "turn-based", 3 * DAY, DAY)


async def start(lb: Lobby, host: str, **kw: Any) -> dict[str, Any]:
    made = await create(lb, host, **kw)
    assert made["ok"], made
    tid = made["table"]["table_id"]
    assert (await call(lb, f"{host}-guest", "join_table", table_id=tid))["ok"]
    return await call(lb, host, "start_table", table_id=tid)


async def test_each_pace_has_its_own_running_games_quota() -> None:
    lb, _, _, _ = lobby(quota_running_games=1, quota_turn_based_games=2, quota_open_tables=9)
    assert (await start(lb, "p-h"))["ok"]
    refused = await start(lb, "p-h")
    assert refused["code"] == "lobby/quota"
    assert refused["message"].startswith("You already have 1 running games")
    for _ in range(2):  # the real-time game does not count here
        assert (await start(lb, "p-h", pace="turn-based"))["ok"]
    over = await start(lb, "p-h", pace="turn-based")
    assert over["code"] == "lobby/quota"
    assert over["message"].startswith("You already have 2 running turn-based games")


# --- My games ----------------------------------------------------------------------------


def turns(gid: str, seq: int, at: int, waiting: dict[int, int], ended: bool = False,
          players: tuple[str, ...] = ("p-a", "p-b"), pace: str = "turn-based"
          ) -> dict[str, Any]:
    """A turns stream entry; ``waiting``: seat -> since (deadline: since + a day)."""
    return TurnsChanged(game_id=gid, game="duel", pace=pace, seq=seq,  # type: ignore[arg-type]
                        at_ms=at, players=list(players), ended=ended,
                        waiting=[Waiting(seat=s, player_id=players[s], since_ms=since,
                                         deadline_ms=since + DAY)
                                 for s, since in waiting.items()]).model_dump(mode="json")


def pushed(out: FakePublisher) -> list[tuple[str, str, bool]]:
    return [(b["player_id"], b["game"]["game_id"], b["game"]["my_turn"])
            for s, b in out.sent if s == streams.GW_UPDATES and b["type"] == "my_game"]


async def test_my_games_lists_the_games_waiting_for_me_first_oldest_wait_first() -> None:
    lb, _, out, _ = lobby()
    mg = lb.my_games
    assert mg is not None
    await mg.on_turns(turns("g-run", 4, 500, {1: 500}))  # waits for p-b
    await mg.on_turns(turns("g-new", 2, 400, {0: 400}))  # waits for p-a since 400
    await mg.on_turns(turns("g-old", 7, 300, {0: 100}))  # waits for p-a since 100
    await mg.on_turns(turns("g-end", 9, 600, {}, ended=True))
    await mg.on_turns(turns("g-bot", 1, 50, {0: 50}, players=("p-a", "b-0123")))
    got = await call(lb, "p-a", "my_games")
    assert got["ok"] and isinstance(got["now_ms"], int)
    assert [(g["game_id"], g["my_turn"]) for g in got["games"]] == [
        ("g-bot", True), ("g-old", True), ("g-new", True), ("g-run", False),
        ("g-end", False)]
    old = got["games"][1]
    assert (old["since_ms"], old["deadline_ms"], old["seat"], old["pace"]) == (
        100, 100 + DAY, 0, "turn-based")
    assert got["games"][-1]["ended"] is True
    # another player sees its own view of the same games; a bot seat has no list
    assert [g["game_id"] for g in (await call(lb, "p-b", "my_games"))["games"]][:1] == [
        "g-run"]
    assert (await call(lb, "b-0123", "my_games"))["games"] == []
    assert not any(p.startswith("b-") for p, _, _ in pushed(out))


async def test_each_change_is_pushed_once_to_its_players_only() -> None:
    lb, _, out, _ = lobby()
    mg = lb.my_games
    assert mg is not None
    entry = turns("g-1", 3, 100, {0: 100})
    await mg.on_turns(entry)
    await mg.on_turns(entry)  # a redelivery: nothing new to push
    await mg.on_turns(turns("g-1", 2, 90, {1: 90}))  # an older one, late: ignored
    assert pushed(out) == [("p-a", "g-1", True), ("p-b", "g-1", False)]
    await mg.on_turns(turns("g-1", 4, 200, {1: 200}))
    assert pushed(out)[2:] == [("p-a", "g-1", False), ("p-b", "g-1", True)]
    got = await call(lb, "p-b", "my_games")
    assert got["games"][0]["seq"] == 4  # the newest entry only
    await mg.on_turns({"type": "turns_changed", "game_id": 5})  # malformed: dropped, logged
    assert len(pushed(out)) == 4


async def test_a_deleted_player_s_games_are_not_kept_for_it() -> None:
    lb, _, out, mine = lobby()
    mine.erased.add("p-b")
    assert lb.my_games is not None
    await lb.my_games.on_turns(turns("g-1", 1, 100, {1: 100}))
    assert pushed(out) == [("p-a", "g-1", False)]  # nothing kept or pushed for p-b
    assert "p-b" not in mine.lists
