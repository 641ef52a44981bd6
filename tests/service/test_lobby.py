"""The lobby's tables through its ports (no server): the store and the publisher are the
in-memory fakes of tests/support/fakes (checked against the Redis store in
tests/integration/test_store_contracts.py). Requests carry the identity the gateway stamps
from the token; the accounts are not involved in the table path."""

from __future__ import annotations

from typing import Any

import pytest

from services.lobby.service import Lobby
from shared.protocol import streams
from shared.runtime.settings import Settings
from tests.support.fakes import FakeLobbyStore, FakePublisher

pytestmark = pytest.mark.service


class FlakyPublisher(FakePublisher):
    """The first publish to a stream starting with ``fail_on`` raises, as a broker write lost
    to a Redis blip would."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_on = ""

    async def publish(self, body: Any, /, *, stream: str, maxlen: int | None = None) -> Any:
        if self.fail_on and stream.startswith(self.fail_on):
            self.fail_on = ""
            raise ConnectionError("lost the connection to Redis")
        return await super().publish(body, stream=stream, maxlen=maxlen)


def lobby(**settings: Any) -> tuple[Lobby, FakeLobbyStore, FlakyPublisher]:
    store, out = FakeLobbyStore(), FlakyPublisher()
    return Lobby(Settings(dev=True, **settings), store, None,  # type: ignore[arg-type]
                 out), store, out


async def call(lb: Lobby, who: str, op: str, **kw: Any) -> dict[str, Any]:
    return await lb.handle({"op": op, "player_id": who, "name": who.upper(), **kw})


async def table(lb: Lobby, seats: int = 2, **kw: Any) -> str:
    made = await call(lb, "p-host", "create_table", game="duel", seats=seats, public=True, **kw)
    assert made["ok"], made
    return str(made["table"]["table_id"])


def creates(out: FakePublisher) -> list[dict[str, Any]]:
    return [b for s, b in out.sent if s.startswith(streams.ADJ_CONTROL)]


async def test_create_join_and_start_a_table() -> None:
    lb, store, out = lobby()
    tid = await table(lb)
    assert tid in store.indexes["lobby:open"]  # listed while a seat is free
    joined = await call(lb, "p-two", "join_table", table_id=tid)
    assert [p["player_id"] for p in joined["table"]["players"]] == ["p-host", "p-two"]
    assert tid not in store.indexes["lobby:open"]  # full: off the listing
    started = await call(lb, "p-host", "start_table", table_id=tid)
    gid = started["game_id"]
    assert started["ok"] and started["table"]["status"] == "started"
    (create,) = creates(out)
    assert create["game_id"] == gid and [p["player_id"] for p in create["players"]] == [
        "p-host", "p-two"]
    assert store.metas[gid]["table_id"] == tid and gid in store.indexes["lobby:live"]
    _, games = await store.reservations("p-host")
    assert list(games) == [gid]  # the open table's reservation became a running game's
    assert tid not in store.quota_tables["p-host"]


async def test_join_by_invite_and_the_table_s_refusals() -> None:
    lb, _, _ = lobby()
    tid = await table(lb)
    invite = (await call(lb, "p-host", "get_table", table_id=tid))["table"]["invite"]
    assert (await call(lb, "p-two", "join_table", invite=invite))["ok"]
    full = await call(lb, "p-three", "join_table", table_id=tid)
    assert (full["ok"], full["code"]) == (False, "lobby/table_full")
    not_host = await call(lb, "p-two", "start_table", table_id=tid)
    assert (not_host["ok"], not_host["code"]) == (False, "lobby/not_host")
    nothing = await call(lb, "p-two", "join_table", invite="no-such-code")
    assert (nothing["ok"], nothing["code"]) == (False, "lobby/not_found")


async def test_a_table_short_of_players_does_not_start() -> None:
    lb, _, out = lobby()
    tid = await table(lb)
    early = await call(lb, "p-host", "start_table", table_id=tid)
    assert early["ok"] is False and creates(out) == []
    assert (await call(lb, "p-host", "get_table", table_id=tid))["table"]["status"] == "open"


async def test_the_open_tables_quota_refuses_one_more() -> None:
    lb, _, _ = lobby(quota_open_tables=2)
    await table(lb)
    await table(lb)
    third = await call(lb, "p-host", "create_table", game="duel", seats=2)
    assert third["ok"] is False and third["code"] == "lobby/quota"
    assert "You already have 2 open tables" in third["message"]


@pytest.mark.parametrize("fail_on", [streams.ADJ_CONTROL, streams.BOTS_IN])
async def test_a_start_cut_short_is_finished_by_the_host_s_retry(fail_on: str) -> None:
    lb, store, out = lobby()
    tid = await table(lb)
    assert (await call(lb, "p-host", "add_bot", table_id=tid, kind="random"))["ok"]
    out.fail_on = fail_on
    with pytest.raises(ConnectionError):
        await call(lb, "p-host", "start_table", table_id=tid)
    stranded = (await call(lb, "p-host", "get_table", table_id=tid))["table"]
    assert stranded["status"] == "started" and stranded["game_id"]
    retried = await call(lb, "p-host", "start_table", table_id=tid)
    assert (retried["ok"], retried["game_id"]) == (True, stranded["game_id"])
    gid = retried["game_id"]
    assert creates(out)[-1]["game_id"] == gid
    assert [b["game_id"] for s, b in out.sent if s == streams.BOTS_IN][-1] == gid
    _, games = await store.reservations("p-host")
    assert list(games) == [gid]  # one running game, not two
    again = await call(lb, "p-host", "start_table", table_id=tid)  # a lost reply again
    assert (again["ok"], again["game_id"]) == (True, gid)
    other = await call(lb, "p-two", "start_table", table_id=tid)
    assert (other["ok"], other["code"]) == (False, "lobby/not_host")


async def test_a_finished_game_s_table_is_not_started_again() -> None:
    lb, store, out = lobby()
    tid = await table(lb)
    await call(lb, "p-two", "join_table", table_id=tid)
    gid = (await call(lb, "p-host", "start_table", table_id=tid))["game_id"]
    store.over.add(gid)  # scored and archived meanwhile
    again = await call(lb, "p-host", "start_table", table_id=tid)
    assert (again["ok"], again["game_id"]) == (True, gid) and len(creates(out)) == 1


async def test_bots_join_named_in_words_with_ids_of_their_own() -> None:
    lb, _, _ = lobby()
    tid = await table(lb, seats=4)
    for kind in ("heuristic", "heuristic", "hard"):
        assert (await call(lb, "p-host", "add_bot", table_id=tid, kind=kind))["ok"]
    players = (await call(lb, "p-host", "get_table", table_id=tid))["table"]["players"]
    bots = [p for p in players if p["bot"]]
    assert [p["name"] for p in bots] == ["Heuristic bot", "Heuristic bot 2", "Hard bot"]
    assert all(p["player_id"].startswith("b-") for p in bots)
    assert len({p["player_id"] for p in bots}) == 3
