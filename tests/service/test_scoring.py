"""The scoring service's behaviour through its port (no server): the in-memory store of
tests/support/fakes (checked against the Redis store in
tests/integration/test_store_contracts.py)."""

from __future__ import annotations

from typing import Any

import pytest

from services.scoring import core
from services.scoring.service import Scoring
from shared.protocol import internal as im
from tests.support.fakes import FakeScoringStore

pytestmark = pytest.mark.service

PLAYERS = [im.PlayerRef(player_id="p-a", name="ann"), im.PlayerRef(player_id="p-b", name="bob"),
           im.PlayerRef(player_id="b-1", name="bot", bot="heuristic")]


def ended(game_id: str, places: list[int], status: str = "finished") -> dict[str, Any]:
    outcome: dict[str, Any] = {"status": status, "results": [
        {"seat": i, "place": p, "figures": {}} for i, p in enumerate(places)]}
    return im.GameEnded(game_id=game_id, game="duel", players=PLAYERS,
                        outcome=outcome).model_dump(mode="json")


async def test_a_game_is_rated_once_however_often_it_is_delivered() -> None:
    store = FakeScoringStore()
    s = Scoring(store)
    await s.dispatch(ended("g-1", [1, 2, 3]))
    first = store.ratings["duel"]["p-a"]
    await s.dispatch(ended("g-1", [1, 2, 3]))  # a redelivery
    assert store.ratings["duel"]["p-a"] == first
    assert first["games"] == 1 and first["wins"] == 1
    assert store.ratings["duel"]["p-b"]["wins"] == 0
    assert store.results["g-1"]["ratings"] and set(store.leaderboards["duel"]) == {
        "p-a", "p-b", "b-1"}
    assert store.leaderboards["duel"]["p-a"] > store.leaderboards["duel"]["b-1"]
    assert set(store.histories) == {"hist:p-a", "hist:p-b", "hist:b-1", "history:duel"}


async def test_ratings_accumulate_over_games() -> None:
    store = FakeScoringStore()
    s = Scoring(store)
    await s.dispatch(ended("g-1", [1, 2, 3]))
    await s.dispatch(ended("g-2", [3, 1, 2]))
    assert store.ratings["duel"]["p-a"]["games"] == 2
    assert store.ratings["duel"]["p-b"]["wins"] == 1


async def test_an_expired_game_rates_nobody_but_keeps_its_result_and_history() -> None:
    store = FakeScoringStore()
    s = Scoring(store)
    await s.dispatch(ended("g-x", [], status="expired"))
    assert store.ratings.get("duel", {}) == {}
    assert store.results["g-x"]["ratings"] == [] and store.leaderboards["duel"] == {}
    assert "g-x" in store.histories["hist:p-a"]


async def test_histories_keep_the_latest_games_only() -> None:
    store = FakeScoringStore()
    s = Scoring(store)
    for i in range(core.HISTORY_KEEP + 3):
        await s.dispatch(ended(f"g-{i:04d}", [1, 2, 3], status="aborted"))
    assert len(store.histories["history:duel"]) == core.HISTORY_KEEP


async def test_a_malformed_message_changes_nothing() -> None:
    store = FakeScoringStore()
    await Scoring(store).dispatch({"type": "game_ended", "game_id": "g-1"})
    assert store.results == {} and store.scored == {}
