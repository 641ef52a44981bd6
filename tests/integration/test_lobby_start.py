"""Starting a table against a real server when a step fails part-way: the
table is frozen as started first, so a failure while creating its game must leave a start
the host's retry finishes with the same game id, never a table stranded as started."""

from __future__ import annotations

from typing import Any

import pytest

from services.lobby.app import lobby_on
from services.lobby.service import Lobby
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration


class FlakySink:
    """Publishes into a list; the first publish to a stream starting with ``fail_on``
    raises, as a broker write lost to a Redis blip would."""

    def __init__(self, fail_on: str = "") -> None:
        self.fail_on = fail_on
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        if self.fail_on and stream.startswith(self.fail_on):
            self.fail_on = ""
            raise ConnectionError("lost the connection to Redis")
        self.sent.append((stream, body))



async def call(lobby: Lobby, who: dict[str, Any], op: str, **kw: Any) -> dict[str, Any]:
    return await lobby.handle({"op": op, "player_id": who["player_id"], "name": who["name"],
                               **kw})


async def ready_table(lobby: Lobby) -> tuple[dict[str, Any], str]:
    """A two-seat table: a host and a bot seat (so the start also seats a bot)."""
    host = await lobby.handle({"op": "create_player", "name": "hostess"})
    assert host["ok"], host
    made = await call(lobby, host, "create_table", game="duel", seats=2, public=True)
    tid = made["table"]["table_id"]
    assert (await call(lobby, host, "add_bot", table_id=tid, kind="random"))["ok"]
    return host, tid


def creates(sink: FlakySink) -> list[str]:
    return [b["game_id"] for s, b in sink.sent if s.startswith(streams.ADJ_CONTROL)
            and b["type"] == "create_game"]


def seated_bots(sink: FlakySink) -> list[str]:
    return [b["game_id"] for s, b in sink.sent if s == streams.BOTS_IN]


@pytest.mark.parametrize("fail_on", [streams.ADJ_CONTROL, streams.BOTS_IN])
async def test_a_start_whose_publish_failed_is_finished_by_the_retry(
        r: Any, fail_on: str) -> None:
    sink = FlakySink()
    lobby = lobby_on(Settings(dev=True), r, sink)
    host, tid = await ready_table(lobby)
    sink.fail_on = fail_on
    with pytest.raises(ConnectionError):
        await call(lobby, host, "start_table", table_id=tid)
    stranded = (await call(lobby, host, "get_table", table_id=tid))["table"]
    assert stranded["status"] == "started" and stranded["game_id"]
    retried = await call(lobby, host, "start_table", table_id=tid)
    assert retried["ok"], retried
    gid = retried["game_id"]
    assert gid == stranded["game_id"]
    assert creates(sink)[-1] == gid and seated_bots(sink)[-1] == gid
    meta = loads(await r.get(Keys(gid).meta))
    assert meta["table_id"] == tid and len(meta["players"]) == 2
    assert await lobby.store.games_over([gid]) == {gid: False}
    # the quota holds one running game for it, not two
    _, games = await lobby.store.reservations(host["player_id"])
    assert list(games) == [gid]
    # a third start (a reply lost again) answers the same game
    again = await call(lobby, host, "start_table", table_id=tid)
    assert (again["ok"], again["game_id"]) == (True, gid)


async def test_a_start_whose_metadata_write_failed_is_finished_by_the_retry(
        r: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    sink = FlakySink()
    lobby = lobby_on(Settings(dev=True), r, sink)
    host, tid = await ready_table(lobby)
    real = lobby.store.put_meta
    failed: list[str] = []

    async def put_meta_once(game_id: str, meta: dict[str, Any]) -> None:
        if not failed:
            failed.append(game_id)
            raise ConnectionError("lost the connection to Redis")
        await real(game_id, meta)

    monkeypatch.setattr(lobby.store, "put_meta", put_meta_once)
    with pytest.raises(ConnectionError):
        await call(lobby, host, "start_table", table_id=tid)
    assert creates(sink) == []
    retried = await call(lobby, host, "start_table", table_id=tid)
    assert retried["ok"], retried
    assert retried["game_id"] == failed[0] and creates(sink) == [failed[0]]
    assert await r.exists(Keys(failed[0]).meta)


async def test_only_the_host_finishes_a_start(r: Any) -> None:
    sink = FlakySink(fail_on=streams.ADJ_CONTROL)
    lobby = lobby_on(Settings(dev=True), r, sink)
    host, tid = await ready_table(lobby)
    other = await lobby.handle({"op": "create_player", "name": "other"})
    with pytest.raises(ConnectionError):
        await call(lobby, host, "start_table", table_id=tid)
    refused = await call(lobby, other, "start_table", table_id=tid)
    assert (refused["ok"], refused["code"]) == (False, "lobby/not_host")
    assert creates(sink) == []
