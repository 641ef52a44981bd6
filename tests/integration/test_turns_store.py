"""The turns stream and "My games" on a real server: the adjudicator's commit appends the
``TurnsChanged`` in its own step, in the format a faststream subscriber reads; the lobby's My
games store keeps each game's newest entry (by seq) and each player's games as its in-memory
fake does (tests/support/fakes); the quota counts each pace against its own limit."""

from __future__ import annotations

from typing import Any

import pytest
from faststream.redis.parser import BinaryMessageFormatV1

from services.adjudicator import turns as adj_turns
from services.adjudicator.core import GameDoc
from services.adjudicator.store import Store as AdjudicatorStore
from services.lobby.mygames_store import MyGamesStore
from services.lobby.store import LobbyStore
from shared.protocol import keys as lobby_keys
from shared.protocol.internal import PlayerRef
from shared.protocol.turns import TURNS, TurnsChanged, Waiting
from shared.runtime.outbox import _DATA_KEY
from tests.support.fakes import FakeLobbyStore, FakeMyGamesStore

pytestmark = pytest.mark.integration


def turns(gid: str, seq: int, at: int, waiting: list[int], ended: bool = False,
          players: tuple[str, ...] = ("p-a", "p-b")) -> TurnsChanged:
    return TurnsChanged(game_id=gid, game="duel", pace="turn-based", seq=seq, at_ms=at,
                        players=list(players), ended=ended,
                        waiting=[Waiting(seat=s, player_id=players[s], since_ms=at,
                                         deadline_ms=at + 1000) for s in waiting])


@pytest.fixture(params=["fake", "redis"])
def my_games_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeMyGamesStore() if request.param == "fake" else MyGamesStore(r)


async def test_my_games_store_contract(my_games_store: Any) -> None:
    s = my_games_store
    assert await s.record(turns("g-1", 3, 100, [0]), 60_000)
    assert not await s.record(turns("g-1", 3, 100, [0]), 60_000)  # a redelivery
    assert not await s.record(turns("g-1", 2, 90, [1]), 60_000)  # older
    assert await s.record(turns("g-1", 3, 100, [], ended=True), 60_000)  # the end, same seq
    assert not await s.record(turns("g-1", 3, 100, [0]), 60_000)
    assert await s.record(turns("g-2", 1, 200, [1]), 60_000)
    await s.add(["p-a", "p-b"], "g-1", 100, 10, 60_000)
    await s.add(["p-a"], "g-2", 200, 10, 60_000)
    await s.add(["p-a"], "g-1", 50, 10, 60_000)  # an older entry never moves it back
    assert [e["game_id"] for e in await s.games_of("p-a", 10)] == ["g-2", "g-1"]
    assert [e["game_id"] for e in await s.games_of("p-b", 10)] == ["g-1"]
    assert (await s.games_of("p-b", 10))[0]["ended"] is True
    for i in range(5):
        assert await s.record(turns(f"h-{i}", 1, 1000 + i, [0]), 60_000)
        await s.add(["p-c"], f"h-{i}", 1000 + i, 3, 60_000)  # at most 3: the oldest go
    assert [e["game_id"] for e in await s.games_of("p-c", 10)] == ["h-4", "h-3", "h-2"]
    assert await s.games_of("nobody", 10) == []
    assert await s.not_erased(["p-a", "p-b"]) == ["p-a", "p-b"]
    if isinstance(s, FakeMyGamesStore):
        s.erased.add("p-b")
    else:
        await s.redis.sadd(lobby_keys.LOBBY_ERASED, "p-b")
    assert await s.not_erased(["p-a", "p-b"]) == ["p-a"] and await s.not_erased([]) == []


async def test_my_games_store_replaces_an_entry_only_as_read(my_games_store: Any) -> None:
    """A sealed round's committed seats, and the compare-and-set that takes one off."""
    s = my_games_store
    assert await s.entry("g-s") is None
    assert await s.record(turns("g-s", 4, 100, [0, 1]), 60_000)
    read = await s.entry("g-s")
    assert read is not None
    assert not await s.replace("g-s", read + " ", read)  # not what is stored: refused
    assert await s.replace("g-s", read, read.replace('"seq":4', '"seq":4 '))
    assert not await s.replace("g-s", read, read)  # changed in between: refused
    assert await s.committed("g-s", "pick:1") == set()
    await s.mark_committed("g-s", "pick:1", 1, 60_000)
    await s.mark_committed("g-s", "pick:1", 1, 60_000)
    await s.mark_committed("g-s", "pick:2", 0, 60_000)
    assert await s.committed("g-s", "pick:1") == {1}


@pytest.fixture(params=["fake", "redis"])
def quota_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeLobbyStore() if request.param == "fake" else LobbyStore(r)


async def test_each_pace_counts_against_its_own_running_games_quota(quota_store: Any) -> None:
    s, limits = quota_store, (10, 2, 10)
    for i in range(2):
        assert await s.reserve("p", "table", f"t{i}", 1, limits) == ""
        assert await s.reserve("p", "start", f"t{i}", 1, limits, f"g{i}", 0) == ""
    assert await s.reserve("p", "table", "t2", 1, limits) == ""
    assert await s.reserve("p", "start", "t2", 1, limits, "g2", 0) == "running_games"
    tb = (10, 3, 10)  # the turn-based limit in its place
    for i in range(3, 6):
        assert await s.reserve("p", "table", f"t{i}", 1, tb) == ""
        assert await s.reserve("p", "start", f"t{i}", 1, tb, f"g{i}", 0, True) == ""
    assert await s.reserve("p", "table", "t6", 1, tb) == ""
    assert await s.reserve("p", "start", "t6", 1, tb, "g6", 0, True) == "turn_based_games"
    assert await s.reserve("p", "unstart", "t5", 1, tb, "g5") == ""  # back to an open table
    tables, games = await s.reservations("p")
    assert tables["t5"] == "0:1" and len(games) == 4
    assert sum(v.endswith(":t") for v in games.values()) == 2


async def test_the_commit_appends_who_the_game_waits_for_in_its_step(r: Any) -> None:
    store = AdjudicatorStore(r)
    doc = GameDoc(game_id="g-t", game="duel", options={}, engine={},
                  players=[PlayerRef(player_id="p-a", name="A"),
                           PlayerRef(player_id="p-b", name="B")],
                  turn_timeout_ms=1000, round_timeout_ms=1000, pace="turn-based")
    entry = turns("g-t", 0, 5, [1])
    views: dict[int | None, dict[str, Any]] = {None: {"seq": 0}, 0: {"seq": 0}, 1: {"seq": 0}}
    assert (await store.commit(-1, doc, [], [], views, turns=entry)).ok
    assert not (await store.commit(-1, doc, [], [], views, turns=entry)).ok  # CAS: not again
    rows = await r.xrange(TURNS)
    assert len(rows) == 1
    data, _ = BinaryMessageFormatV1.parse(rows[0][1][_DATA_KEY.encode()])
    assert TurnsChanged.model_validate_json(data) == entry  # as a faststream reader gets it
    assert len(await r.xrange("g:{g-t}:v:1")) == 1  # in the step that wrote the views
    assert adj_turns.turns_of(doc, 5).players == ["p-a", "p-b"]


async def test_a_started_table_is_kept_as_long_as_its_pace_needs(r: Any) -> None:
    from services.lobby.service import Lobby
    from shared.protocol import lobby as lm
    from shared.runtime.settings import Settings

    store = LobbyStore(r)
    lb = Lobby(Settings(secret="x" * 64, dev=True), store, None, None)  # type: ignore[arg-type]
    for tid, pace in (("t-rt", "real-time"), ("t-tb", "turn-based")):
        await store.create(lm.Table(table_id=tid, game="duel", seats=2, host="p", invite=tid,
                                    turn_timeout_ms=1000, round_timeout_ms=1000, created_ms=1,
                                    pace=pace))  # type: ignore[arg-type]
        await store.update(tid, lambda t: t.model_copy(update={"status": "started"}),
                           lb.expire_for)
    s = Settings()
    assert 0 < await r.ttl("lobby:table:t-rt") <= s.game_lifetime_s + s.archive_live_ttl_s
    assert await r.ttl("lobby:table:t-tb") > 300 * 86400  # a turn-based game may run a year
    assert await r.ttl("lobby:invite:t-tb") > 300 * 86400
