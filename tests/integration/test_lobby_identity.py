"""Handles and table permissions against a real server: the lobby's handler as
the gateway calls it, and the gateway's spectator check."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.gateway.fanout.hub import Hub
from services.lobby.app import lobby_on
from services.lobby.service import LIVE_GAMES, Lobby
from shared.runtime.jsonutil import dumps
from shared.runtime.settings import Settings

pytestmark = pytest.mark.integration


class Sink:
    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        pass


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[Any]:
    client = aioredis.Redis.from_url(redis_url)
    await client.flushall()
    yield client
    await client.aclose()


@pytest.fixture
def lobby(r: Any) -> Lobby:
    return lobby_on(Settings(dev=True), r, Sink())


async def sign_in(lobby: Lobby, name: str, **kw: Any) -> dict[str, Any]:
    return await lobby.handle({"op": "create_player", "name": name, **kw})


async def call(lobby: Lobby, who: dict[str, Any], op: str, **kw: Any) -> dict[str, Any]:
    return await lobby.handle({"op": op, "player_id": who["player_id"], "name": who["name"],
                               **kw})


async def test_look_alike_guests_get_distinct_displays(lobby: Lobby) -> None:
    first = await sign_in(lobby, "victim")
    assert first["ok"] and first["name"] == "victim"
    others = [await sign_in(lobby, n) for n in ("Victim", "v\u0456ctim", "\uff56ictim")]
    names = [o["name"] for o in others]
    assert all(o["ok"] for o in others) and len({first["name"], *names}) == 4
    assert all("#" in n for n in names)  # "Victim#0042": never shown as plain "victim"
    refused = await sign_in(lobby, "VICTIM", exact=True)
    assert (refused["ok"], refused["code"]) == (False, "lobby/name_taken")
    for bad in ("victim\u200b", "\u202eadmin", "   ", "bot-heuristic-1a2b", "[bot] x"):
        out = await sign_in(lobby, bad)
        assert (out["ok"], out["code"]) == (False, "lobby/bad_name"), bad


async def test_private_tables_need_the_invite_and_hide_it(lobby: Lobby, r: Any) -> None:
    host, guest, other = [await sign_in(lobby, n) for n in ("hostess", "guest", "other")]
    made = await call(lobby, host, "create_table", game="duel", seats=2, public=False)
    t = made["table"]
    assert t["invite"] and t["spectators"] == "players"
    by_id = await call(lobby, guest, "join_table", table_id=t["table_id"])
    assert (by_id["ok"], by_id["code"]) == (False, "lobby/invite_required")
    seen = await call(lobby, other, "get_table", table_id=t["table_id"])
    assert seen["table"]["invite"] == ""
    joined = await call(lobby, guest, "join_table", invite=t["invite"])
    assert joined["ok"] and joined["table"]["invite"] == t["invite"]
    listing = await call(lobby, other, "list_tables")
    assert all(x["table_id"] != t["table_id"] for x in listing["tables"])
    started = await call(lobby, host, "start_table", table_id=t["table_id"])
    assert started["ok"]
    assert await r.zscore(LIVE_GAMES, started["game_id"]) is None  # not in live games
    assert started["game_id"] not in (await call(lobby, other, "list_tables"))["live_games"]


async def test_kick_and_host_handover(lobby: Lobby) -> None:
    host, ann, bob = [await sign_in(lobby, n) for n in ("host2", "ann", "bob")]
    t = (await call(lobby, host, "create_table", game="duel", seats=2))["table"]
    assert (await call(lobby, ann, "join_table", table_id=t["table_id"]))["ok"]
    not_host = await call(lobby, ann, "kick_player", table_id=t["table_id"],
                          target=host["player_id"])
    assert not_host["code"] == "lobby/not_host"
    kicked = await call(lobby, host, "kick_player", table_id=t["table_id"],
                        target=ann["player_id"])
    assert kicked["ok"] and [p["player_id"] for p in kicked["table"]["players"]] == [
        host["player_id"]]
    back = await call(lobby, ann, "join_table", table_id=t["table_id"])
    assert back["code"] == "lobby/kicked"
    assert (await call(lobby, bob, "join_table", table_id=t["table_id"]))["ok"]
    left = await call(lobby, host, "leave_table", table_id=t["table_id"])
    assert left["table"]["host"] == bob["player_id"] and left["table"]["status"] == "open"
    gone = await call(lobby, bob, "leave_table", table_id=t["table_id"])
    assert gone["table"]["status"] == "closed"


async def test_only_players_watch_a_players_only_game(r: Any) -> None:
    players = [{"player_id": "p-1", "name": "a"}]
    await r.set("g:{g-priv}:meta", dumps({"players": players, "spectators": "players"}))
    await r.set("g:{g-pub}:meta", dumps({"players": players}))  # older games: anyone
    hub = Hub(r)
    assert not await hub.spectators_allowed("g-priv")
    assert await hub.spectators_allowed("g-pub")
    assert await hub.seat_of("g-priv", "p-1") == (True, 0)
