"""Resigning a running game and a private table's invite link, through the lobby's ports (no
server): the in-memory store and publisher of tests/support/fakes."""

from __future__ import annotations

from typing import Any

import pytest

from shared.protocol import streams
from tests.service.test_lobby import call, lobby

pytestmark = pytest.mark.service


async def started(private: bool = False, **kw: Any) -> tuple[Any, Any, Any, str]:
    lb, store, out = lobby(**kw)
    made = await call(lb, "p-host", "create_table", game="duel", seats=2, public=not private)
    tid = made["table"]["table_id"]
    invite = made["table"]["invite"]
    assert (await call(lb, "p-two", "join_table", invite=invite))["ok"]
    gid = (await call(lb, "p-host", "start_table", table_id=tid))["game_id"]
    out.sent.clear()
    return lb, store, out, gid


def hand_overs(out: Any) -> list[dict[str, Any]]:
    return [b for s, b in out.sent
            if s.startswith(streams.ADJ_CONTROL) and b.get("type") == "hand_over"]


async def test_resigning_hands_the_seat_to_a_bot_in_the_metadata_and_tells_the_adjudicator(
        ) -> None:
    lb, store, out, gid = await started()
    answer = await call(lb, "p-two", "resign", game_id=gid)
    assert answer["ok"] and answer["seat"] == 1 and answer["reason"] == "resigned"
    bot = answer["bot"]
    assert bot["player_id"].startswith("b-") and bot["bot"] == "heuristic"
    meta = store.metas[gid]
    assert meta["players"][1]["player_id"] == bot["player_id"]  # the gateway seats the bot
    assert meta["handed_over"][0]["player"]["player_id"] == "p-two"
    (msg,) = hand_overs(out)
    assert (msg["seat"], msg["from_player"], msg["to"]["player_id"], msg["reason"]) == (
        1, "p-two", bot["player_id"], "resigned")
    assert msg["token"]  # the bot's seat token, for the bot runner


async def test_resigning_twice_is_once() -> None:
    lb, store, out, gid = await started()
    first = await call(lb, "p-two", "resign", game_id=gid)
    second = await call(lb, "p-two", "resign", game_id=gid)
    assert second == first
    assert len(store.metas[gid]["handed_over"]) == 1
    # the same hand-over is sent again (a lost first send is made good; applied once)
    a, b = hand_overs(out)
    assert a["to"] == b["to"] and a["from_player"] == b["from_player"]


async def test_resign_refusals_are_typed() -> None:
    lb, store, _, gid = await started()
    stranger = await call(lb, "p-stranger", "resign", game_id=gid)
    assert (stranger["ok"], stranger["code"]) == (False, "lobby/not_seated")
    missing = await call(lb, "p-two", "resign", game_id="g-nope")
    assert (missing["ok"], missing["code"]) == (False, "lobby/not_found")
    store.over.add(gid)
    over = await call(lb, "p-two", "resign", game_id=gid)
    assert (over["ok"], over["code"]) == (False, "game/over")
    assert "handed_over" not in store.metas[gid]
    bad = await call(lb, "p-two", "resign", game_id="")
    assert (bad["ok"], bad["code"]) == (False, "lobby/bad_request")


async def test_an_expired_seat_is_handed_over_once_and_never_a_bot_s() -> None:
    lb, store, out, gid = await started()
    first = await lb.handle({"op": "hand_over_seat", "game_id": gid, "seat": 0,
                             "from_player": "p-host"})
    assert first["ok"] and first["handed_over"]
    assert store.metas[gid]["handed_over"][0]["reason"] == "expired"
    again = await lb.handle({"op": "hand_over_seat", "game_id": gid, "seat": 0,
                             "from_player": "p-host"})
    assert again["ok"] and not again["handed_over"]
    bot_id = store.metas[gid]["players"][0]["player_id"]
    of_bot = await lb.handle({"op": "hand_over_seat", "game_id": gid, "seat": 0,
                              "from_player": bot_id})
    assert not of_bot["handed_over"]  # a bot's clock: the bot stays
    assert len(hand_overs(out)) == 1


async def test_the_table_s_on_expiry_reaches_the_game() -> None:
    lb, _, out = lobby()
    made = await call(lb, "p-host", "create_table", game="duel", seats=2, on_expiry="bot")
    assert made["table"]["on_expiry"] == "bot"
    tid = made["table"]["table_id"]
    await call(lb, "p-host", "add_bot", table_id=tid)
    await call(lb, "p-host", "start_table", table_id=tid)
    (create,) = [b for s, b in out.sent if b.get("type") == "create_game"]
    assert create["on_expiry"] == "bot"
    bad = await call(lb, "p-host", "create_table", game="duel", seats=2, on_expiry="later")
    assert (bad["ok"], bad["code"]) == (False, "lobby/bad_request")


# --- the invite link --------------------------------------------------------------------


async def test_the_invite_link_is_shown_with_the_invite_only() -> None:
    lb, _, _ = lobby(page_url="https://empire.example/")
    made = await call(lb, "p-host", "create_table", game="duel", seats=3, public=False)
    t = made["table"]
    assert t["invite_url"] == f"https://empire.example/#/join/{t['invite']}"
    tid = t["table_id"]
    stranger = (await call(lb, "p-stranger", "get_table", table_id=tid))["table"]
    assert stranger["invite"] == "" and "invite_url" not in stranger
    refused = await call(lb, "p-stranger", "join_table", table_id=tid)
    assert refused["code"] == "lobby/invite_required"
    joined = (await call(lb, "p-two", "join_table", invite=t["invite"]))["table"]
    assert joined["invite_url"] == t["invite_url"]  # a seated player may pass it on
    seated = (await call(lb, "p-two", "get_table", table_id=tid))["table"]
    assert seated["invite_url"] == t["invite_url"]
    listing = await call(lb, "p-stranger", "list_tables")
    assert all("invite_url" not in x for x in listing["tables"])


async def test_the_invite_link_s_address_falls_back_to_the_gateway_s() -> None:
    lb, _, _ = lobby(host="127.0.0.1", port=8123)
    t = (await call(lb, "p-host", "create_table", game="duel", seats=2, public=False))["table"]
    assert t["invite_url"].startswith("http://127.0.0.1:8123/#/join/")
