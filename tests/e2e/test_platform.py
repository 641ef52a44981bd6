"""Platform acceptance through the gateway's WebSocket with the reference game."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from clients.sdk import ApiError, Client
from services.supervisor import Supervisor
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.e2e


async def test_bots_play_to_a_verified_scored_result(system: Supervisor) -> None:
    played = await play_bot_game(system.url, "duel", 3, {"rounds": 3})
    assert played.problems == []
    assert played.counts["draws"] >= 4 and played.counts["commitments"] >= 9
    assert len(played.result["outcome"]["results"]) == 3
    out = subprocess.run([sys.executable, "-m", "shared.fairness.verify", system.url,
                          played.game_id], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stdout + out.stderr


async def test_lobby_calls_reuse_the_gateways_connections(system: Supervisor,
                                                           redis_url: str) -> None:
    """Every lobby call goes over lobby:rpc with its reply on the gateway's one reply channel:
    no new Redis connection (and AUTH) per HTTP call, as a subscription per request had."""
    admin = aioredis.Redis.from_url(redis_url)
    try:
        async with Client(system.url) as c:
            await c.sign_in("many-calls")
            t = await c.create_table("duel", seats=2)
            await c.get_table(t["table_id"])  # warm: the gateway's pool has what it needs
            before = (await admin.info("stats"))["total_connections_received"]
            for _ in range(60):
                assert (await c.get_table(t["table_id"]))["table_id"] == t["table_id"]
            after = (await admin.info("stats"))["total_connections_received"]
        assert after - before < 20, f"{after - before} new connections for 60 lobby calls"
    finally:
        await admin.aclose()


async def test_replicas_play_to_a_verified_result(replicated: Supervisor) -> None:
    results = await asyncio.gather(*[play_bot_game(replicated.url, "duel", 2, {"rounds": 4})
                                     for _ in range(4)])
    assert all(p.problems == [] for p in results)


async def _two_humans(url: str, rounds: int = 1, **table: object) -> tuple[Client, Client, str]:
    a, b = Client(url, capture=True), Client(url, capture=True)
    await a.sign_in("alice")
    await b.sign_in("bob")
    t = await a.create_table("duel", seats=2, options={"rounds": rounds}, **table)
    await b.join(t["table_id"])
    gid = await a.start(t["table_id"])
    return a, b, gid


async def _until(cond: object, game: object, timeout: float = 20) -> None:
    async def loop() -> None:
        while not cond():  # type: ignore[operator]
            with contextlib.suppress(TimeoutError):
                await game.wait(0.5)  # type: ignore[attr-defined]
    await asyncio.wait_for(loop(), timeout)


async def test_refusals_are_typed_and_leave_state_unchanged(system: Supervisor) -> None:
    a, b, gid = await _two_humans(system.url)
    try:
        ga, gb = await a.watch(gid), await b.watch(gid)
        spectator = Client(system.url)
        await spectator.sign_in("eve")
        gs = await spectator.watch(gid)
        for g in (ga, gb):  # entropy round
            await _until(lambda g=g: g.view["node"]["kind"] == "simultaneous", g)
            await g.commit("entropy", f"s{g.seat}", "")
        await _until(lambda: ga.view["node"]["kind"] == "turn", ga)
        caller = ga if ga.seat in ga.view["node"]["seats"] else gb
        other = gb if caller is ga else ga
        await _until(lambda: ga.seq == gb.seq == gs.seq, ga)
        seq = caller.seq

        async def refused(coro: object) -> str:
            with pytest.raises(ApiError) as e:
                await coro  # type: ignore[misc]
            return e.value.code

        # out of turn / wrong seat: the other seat tries the caller's action
        other.rejections.clear()
        await other.act({"type": "call", "stake": 1}, expected_seq=None)
        await _until(lambda: other.rejections, other)
        assert other.rejections[-1]["code"] == "action/not_your_turn"
        # illegal move
        caller.rejections.clear()
        await caller.act({"type": "call", "stake": 7}, expected_seq=seq)
        await _until(lambda: caller.rejections, caller)
        assert caller.rejections[-1]["code"] == "action/illegal"
        # stale seq
        caller.rejections.clear()
        await caller.act({"type": "call", "stake": 1}, expected_seq=seq - 1)
        await _until(lambda: caller.rejections, caller)
        assert caller.rejections[-1]["code"] == "action/stale_seq"
        # a spectator (no seat) cannot act
        assert await refused(gs.act({"type": "call", "stake": 1})) == "seat/not_seated"
        # malformed message
        bad = await caller.client._command({"type": "act", "cmd_id": "x!", "game_id": gid})
        assert bad["type"] == "rejected" and bad["code"] == "message/malformed"
        await asyncio.sleep(0.5)
        assert caller.seq == seq and other.seq == seq and gs.seq == seq  # nothing changed
        # a legal move, then the same command id replayed
        cmd = "replay-1"
        await caller.client._command({"type": "act", "cmd_id": cmd, "game_id": gid,
                                      "expected_seq": seq,
                                      "action": {"type": "call", "stake": 2}})
        await _until(lambda: caller.seq == seq + 1, caller)
        caller.rejections.clear()
        await caller.client._command({"type": "act", "cmd_id": cmd, "game_id": gid,
                                      "expected_seq": None,
                                      "action": {"type": "call", "stake": 2}})
        await _until(lambda: caller.rejections, caller)
        assert caller.rejections[-1]["code"] == "command/duplicate"
        await asyncio.sleep(0.3)
        assert caller.seq == seq + 1 and gs.seq == seq + 1
        await spectator.close()
    finally:
        await a.close()
        await b.close()


async def test_sealed_choices_never_reach_others_before_close(system: Supervisor) -> None:
    a, b, gid = await _two_humans(system.url, rounds=1)
    spectator = Client(system.url, capture=True)
    try:
        await spectator.sign_in("eve")
        ga, gb = await a.watch(gid), await b.watch(gid)
        gs = await spectator.watch(gid)
        for g in (ga, gb):
            await _until(lambda g=g: g.view["node"]["kind"] == "simultaneous", g)
            await g.commit("entropy", f"s{g.seat}", "")
        await _until(lambda: ga.view["node"]["kind"] == "turn" and ga.seq == gb.seq, ga)
        caller = ga if ga.seat in ga.view["node"]["seats"] else gb
        await caller.act({"type": "call", "stake": 1})
        await _until(lambda: ga.view["node"]["kind"] == "simultaneous", ga)
        receipt = await ga.commit("pick:1", f"s{ga.seat}", 7)
        await _until(lambda: len(gb.committed_slots("pick:1")) >= 1, gb)
        await asyncio.sleep(0.3)
        # before bob commits, the round is open: alice's opening must appear nowhere else
        for frames in (b.captured, spectator.captured):
            assert frames is not None
            assert not any(receipt.nonce in f for f in frames)
            assert not any('"pick:1"' in f and '"choice"' in f for f in frames)
            assert not any('"picks_revealed"' in f for f in frames)
        assert "pick:1" not in gb.closed_rounds
        await gb.commit("pick:1", f"s{gb.seat}", 3)
        await _until(lambda: "pick:1" in gb.closed_rounds and any(
            e.get("type") == "round_revealed" and e["round_id"] == "pick:1"
            for e in gb.record), gb)
        assert any(receipt.nonce in f for f in b.captured or [])  # revealed after close
        assert ga.verify_reveals() == [] and gb.verify_reveals() == []
        assert gs.verify_reveals() == []
        # no log line of any service ever carries an opening's nonce
        logs = "".join(p.read_text() for p in Path("test-output/logs/single").glob("*.log"))
        assert receipt.nonce not in logs
    finally:
        await a.close()
        await b.close()
        await spectator.close()


async def test_timeouts_apply_the_rules_defaults(system: Supervisor) -> None:
    a, b, gid = await _two_humans(system.url, rounds=1, turn_timeout_ms=1000,
                                  round_timeout_ms=1000)
    try:
        ga = await a.watch(gid)
        await _until(lambda: ga.ended, ga, timeout=30)
        ends = [e for e in ga.record if e.get("type") == "round_closed"]
        assert ends and all(e["defaulted"] for e in ends)
    finally:
        await a.close()
        await b.close()
