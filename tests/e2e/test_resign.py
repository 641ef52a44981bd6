"""Resigning a running game through the whole system: the seat goes to a bot that finishes
the game, everyone sees it, the player who left is refused and watches on as a spectator, the
record verifies and ratings rank the resigned seat last; and a table's ``on_expiry: "bot"``."""

from __future__ import annotations

import asyncio
import json

import pytest

from clients.sdk import ApiError, Client
from clients.sdk.bot_player import make_bot, play_with
from services.supervisor import Supervisor
from shared.fairness.verify import verify
from tests.e2e.test_platform import _two_humans, _until

pytestmark = pytest.mark.e2e
WAIT_S = 90  # a generous bound: the machine may be busy; each wait ends with its condition


def handed(record: list[dict[str, object]]) -> list[dict[str, object]]:
    return [e for e in record if e.get("type") == "seat_handed_over"]


async def _result(c: Client, gid: str) -> dict[str, object]:
    for _ in range(300):
        try:
            return dict(await c.result(gid))
        except ApiError:
            await asyncio.sleep(0.1)
    raise AssertionError("no result")


@pytest.mark.parametrize("where", ["system", pytest.param("replicated", marks=pytest.mark.full)])
async def test_a_resigned_seat_is_played_to_the_end_by_a_bot(
        request: pytest.FixtureRequest, where: str) -> None:
    """``replicated``: two adjudicators, escrows and dealers; the escrow told of the hand-over
    may not be the one that takes the bot's commit (it reads the round again before refusing)."""
    system: Supervisor = request.getfixturevalue(where)
    a, b, gid = await _two_humans(system.url, rounds=3)
    eve = Client(system.url)
    try:
        await eve.sign_in("eve")
        ga, gb, gs = await a.watch(gid), await b.watch(gid), await eve.watch(gid)
        for g in (ga, gb):  # the entropy round
            await _until(lambda g=g: g.view["node"]["kind"] == "simultaneous", g,
                         timeout=WAIT_S)
            await g.commit("entropy", f"s{g.seat}", "")
        # both on the same state: the caller's expected_seq is its own session's last seq
        await _until(lambda: ga.view["node"]["kind"] == "turn" and ga.seq == gb.seq, ga,
                     timeout=WAIT_S)
        caller = ga if ga.seat in ga.view["node"]["seats"] else gb
        await caller.act({"type": "call", "stake": 1})
        await _until(lambda: ga.view["node"]["kind"] == "simultaneous"
                     and gb.view["node"]["kind"] == "simultaneous", ga, timeout=WAIT_S)
        await ga.commit("pick:1", f"s{ga.seat}", 4)  # bob resigns with his pick still open
        bob_seat = gb.seat
        with pytest.raises(ApiError) as stranger:
            await eve.resign(gid)
        assert stranger.value.code == "lobby/not_seated"
        out = await b.resign(gid)
        assert out["seat"] == bob_seat and out["bot"]["bot"] == "heuristic"
        assert await b.resign(gid) == out  # twice is once
        # every seat and the spectator see who left and who plays the seat now
        for g in (ga, gs):
            await _until(lambda g=g: handed(g.record), g, timeout=WAIT_S)
            (entry,) = handed(g.record)
            assert entry["seat"] == bob_seat and entry["reason"] == "resigned"
            assert entry["from"]["name"] == b.name  # type: ignore[index]
        # bob watches on as a spectator, and his own commit for the seat is refused
        await _until(lambda: gb.view["seat"] is None, gb, timeout=WAIT_S)
        with pytest.raises(ApiError) as refused:
            await gb.commit("pick:1", f"s{bob_seat}", 9)
        assert refused.value.code in ("game/seat_handed_over", "auth/bad_signature",
                                      "seat/not_seated", "escrow/already_committed")
        # the bot commits the open pick and plays the rest; alice plays her seat
        await asyncio.wait_for(play_with(ga, make_bot("duel", "heuristic")), 3 * WAIT_S)
        assert ga.ended
        await _until(lambda: gb.ended, gb, timeout=WAIT_S)
        # secrecy: once bob watches as a spectator, no view of the seat (the bot's hidden
        # information now) reaches him, however long the game goes on
        views = [f for f in map(json.loads, b.captured or [])
                 if f.get("type") == "view" and f.get("game_id") == gid]
        first = next(i for i, f in enumerate(views) if f["seat"] is None)
        assert all(f["seat"] is None for f in views[first:])
        assert len(views) - first >= 3  # the rest of the game, as a spectator
        # alice's log sentences name the seat's new player once it plays
        texts = [i.get("text", "") for f in map(json.loads, a.captured or [])
                 for i in f.get("records", [f] if f.get("type") == "record" else [])]
        assert any(out["bot"]["name"] in t for t in texts), texts[-6:]
        result = await _result(a, gid)
        (h,) = result["handed_over"]  # type: ignore[misc]
        assert h["seat"] == bob_seat and h["player"]["name"] == b.name
        assert [p["name"] for p in result["players"]] == [a.name, b.name]  # type: ignore[union-attr]
        rec = await a.record(gid)
        problems, counts = verify(rec)
        assert problems == [], problems
        assert counts["signatures"] > 0
        with pytest.raises(ApiError) as over:
            await a.resign(gid)
        assert over.value.code == "game/over"
    finally:
        await a.close()
        await b.close()
        await eve.close()


async def test_on_expiry_bot_hands_a_silent_seat_to_a_bot(system: Supervisor) -> None:
    a, b, gid = await _two_humans(system.url, rounds=2, turn_timeout_ms=1000,
                                  round_timeout_ms=1000, on_expiry="bot")
    try:
        ga = await a.watch(gid)
        # nobody plays: each seat's clock runs out once, then bots finish the game
        await _until(lambda: ga.ended, ga, timeout=3 * WAIT_S)
        reasons = {(e["seat"], e["reason"]) for e in handed(ga.record)}
        assert reasons == {(0, "expired"), (1, "expired")}
        assert verify(await a.record(gid))[0] == []
    finally:
        await a.close()
        await b.close()
