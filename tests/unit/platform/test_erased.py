"""A deleted player anonymized at read time (services/gateway/fanout/erased.py): the seat keeps its
place and fields, the id and name become "deleted" / "deleted player", and a real finished
game anonymized as the gateway serves it (the document's ``players`` and ``game_created``
alike) still verifies, with the engine replay too."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from services.gateway.fanout import erased
from shared.fairness.verify import check, verify
from tests.support import tamper

pytestmark = pytest.mark.unit


def served(doc: dict[str, Any], gone: set[str]) -> dict[str, Any]:
    """The document as /api/matches/{id}/record and /audit serve it."""
    return {**doc, "players": erased.seats(doc["players"], gone),
            "record": erased.record(doc["record"], gone)}


def test_a_deleted_seat_is_anonymized_and_the_others_kept() -> None:
    rows = [{"player_id": "p-a", "name": "ada", "bot": False},
            {"player_id": "b-1", "name": "Bot 1", "bot": True}, "not a row"]
    out = erased.seats(rows, {"p-a"})
    assert out[0] == {"player_id": "deleted", "name": "deleted player", "bot": False}
    assert out[1:] == rows[1:]
    assert erased.seats(rows, set()) is rows  # nobody deleted: the rows as they are
    assert erased.names(rows[:2], {"p-a"}) == ["deleted player", "Bot 1"]
    assert erased.row_ids(rows) == ["p-a", "b-1"]


def test_only_game_created_names_players_in_a_record() -> None:
    created: dict[str, Any] = {"id": "1-0", "type": "game_created", "game": "duel",
                               "players": [{"player_id": "p-a", "name": "ada"}]}
    other = {"id": "2-0", "type": "event", "event": "x", "data": {"player_id": "p-a"}}
    assert erased.record_ids([created, other]) == ["p-a"]
    out = erased.record([created, other], {"p-a"})
    assert out[0]["players"] == [{"player_id": "deleted", "name": "deleted player"}]
    assert {k: v for k, v in out[0].items() if k != "players"} == \
        {k: v for k, v in created.items() if k != "players"}
    assert out[1] is other
    assert created["players"][0]["name"] == "ada"  # the stored entry is not changed


@pytest.mark.parametrize("game", ["duel-defaults", "empire-engine"])
def test_a_finished_game_with_a_deleted_seat_still_verifies(game: str) -> None:
    doc = tamper.load(game)
    gone = {doc["players"][0]["player_id"]}
    anon = served(copy.deepcopy(doc), gone)
    assert anon["players"][0]["name"] == "deleted player"
    created = next(e for e in anon["record"] if e["type"] == "game_created")
    assert created["players"] == anon["players"]
    problems, counts = verify(anon)
    assert problems == [], problems
    assert counts["applied"] >= 2
    if tamper.rules_apply(game):  # the engine replay binds seats, not names
        assert check(anon, None, rules=True).ok
    # anonymizing one copy only would break verification: both are served anonymized
    half = {**doc, "players": erased.seats(doc["players"], gone)}
    assert any("players differ" in str(p) for p in verify(half)[0])


class FakeSet:
    def __init__(self, members: set[str]) -> None:
        self.members = members
        self.calls: list[list[str]] = []

    async def smismember(self, key: str, ids: list[str]) -> list[int]:
        assert key == erased.ERASED
        self.calls.append(ids)
        return [int(i in self.members) for i in ids]


def test_the_lookup_asks_once_and_only_for_real_ids() -> None:
    import asyncio

    r = FakeSet({"p-a"})
    got = asyncio.run(erased.erased(r, ["p-b", "p-a", "p-a", None, "deleted", 3]))
    assert got == {"p-a"} and r.calls == [["p-a", "p-b"]]
    assert asyncio.run(erased.erased(r, ["deleted", None])) == set()
    assert len(r.calls) == 1  # nothing to ask: no round trip


def test_a_table_hides_a_deleted_seat_and_host() -> None:
    t = {"table_id": "t-1", "host": "p-a", "players": [{"player_id": "p-a", "name": "ada"},
                                                      {"player_id": "p-b", "name": "bo"}]}
    assert erased.table_ids(t) == ["p-a", "p-b", "p-a"]
    out = erased.table(t, {"p-a"})
    assert out["host"] == "deleted" and out["players"][0]["name"] == "deleted player"
    assert out["players"][1] == t["players"][1]
    assert erased.table(t, {"p-b"})["host"] == "p-a"
    assert erased.table(None, {"p-a"}) is None and erased.table_ids(None) == []
