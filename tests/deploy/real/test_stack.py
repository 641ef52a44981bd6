"""The shipped docker-compose.yml, up for real on our own engine, played through the published
port, and hurt the ways a host hurts it: Valkey SIGKILLed mid-game, each service's container
killed mid-game, a service scaled up mid-game, a backup restored into a fresh volume, the stack
taken down and up again, Valkey stopped under running services. Figures go to stdout (-s) and
test-output/deploy-real.json. In priority order; each test needs only the stack."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any

import pytest

from clients.sdk import Client
from tests.deploy.real.compose import ROOT, ComposeStack
from tests.deploy.real.games import Game, applied_twice, entries_by_id, start_game

pytestmark = pytest.mark.containers

# a long game (hundreds of moves, ~20 s): faults land mid-game; MID is a move well inside it
LONG = ("empire-nyc", 3)
MID = 60
FIGURES: dict[str, Any] = {}
OUT = ROOT / "test-output" / "deploy-real.json"
SERVICES = ("adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "notifier", "gateway")


def note(key: str, value: Any) -> None:
    FIGURES[key] = value
    print(f"deploy-real: {key} = {value}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(FIGURES, indent=1))


def check(game: Game) -> None:
    assert game.problems == [], game.problems
    assert game.result["outcome"]["results"], game.result
    assert applied_twice(game.record) == []


def lost(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Entries of ``before`` (acknowledged: the gateway served them) missing or changed."""
    now = entries_by_id(after)
    return [i for i, e in entries_by_id(before).items() if now.get(i) != e]


def test_every_container_is_healthy_after_up(stack: ComposeStack) -> None:
    rows = stack.containers()
    states = {r["Name"]: (r["State"], stack.health(r["Name"])) for r in rows}
    note("up to all healthy", {"containers": len(rows), "seconds": round(stack.up_seconds, 1)})
    assert states and all(s == ("running", "healthy") for s in states.values()), states


async def test_two_titles_played_to_the_end_and_verified(stack: ComposeStack) -> None:
    async with Client(stack.url) as c:
        await c.sign_in("deploy-two-titles")
        for game, seats in (("duel", 2), LONG):
            t = time.monotonic()
            played = await (await start_game(c, game, seats)).finish()
            check(played)
            note(f"played {game}", {"seconds": round(time.monotonic() - t, 1),
                                    "entries": len(played.record["record"])})


async def test_valkey_sigkill_mid_game_loses_no_acknowledged_move(stack: ComposeStack) -> None:
    async with Client(stack.url) as c:
        await c.sign_in("deploy-valkey-kill")
        game = await start_game(c, *LONG)
        await game.reach(MID)
        before = await c.record(game.game_id)
        seq = game.seq
        stack.compose("kill", "-s", "SIGKILL", "valkey")
        t = time.monotonic()
        stack.compose("start", "valkey")
        back = stack.wait_health("valkey", "healthy")
        check(await game.finish())
        assert lost(before, game.record) == []
        note("valkey SIGKILL", {"at_seq": seq, "acknowledged_entries": len(before["record"]),
                                "lost": 0, "healthy_again_s": round(back, 1),
                                "game_finished_s": round(time.monotonic() - t, 1)})


@pytest.mark.parametrize("service", SERVICES)
async def test_each_service_container_killed_mid_game(stack: ComposeStack, service: str) -> None:
    async with Client(stack.url) as c:
        await c.sign_in(f"deploy-kill-{service}")
        game = await start_game(c, *LONG)
        await game.reach(MID)
        before = await c.record(game.game_id)
        victim = sorted(r["Name"] for r in stack.containers(service))[0]
        stack.engine.docker("kill", "-s", "KILL", victim)
        t = time.monotonic()
        stack.compose("start", service)
        check(await game.finish())
        assert lost(before, game.record) == []
        stack.wait_health(service, "healthy")
        note(f"kill {victim}", {"game_finished_s": round(time.monotonic() - t, 1)})


async def test_a_service_scaled_up_mid_game_applies_nothing_twice(stack: ComposeStack) -> None:
    async with Client(stack.url) as c:
        await c.sign_in("deploy-scale")
        game = await start_game(c, *LONG)
        await game.reach(MID)
        await asyncio.to_thread(stack.compose, "up", "-d", "--no-recreate",
                                "--scale", "adjudicator=3", "--scale", "scoring=2")
        check(await game.finish())
        assert len(stack.containers("adjudicator")) == 3
        note("scaled mid-game", {"adjudicator": 3, "scoring": 2, "applied_twice": 0})
        await asyncio.to_thread(stack.compose, "up", "-d", "--no-recreate",
                                "--scale", "adjudicator=2", "--scale", "scoring=1")


async def test_down_then_up_keeps_accounts_ratings_and_finished_games(
        stack: ComposeStack) -> None:
    name, password = f"deploy-{secrets.token_hex(4)}", secrets.token_urlsafe(18)
    async with Client(stack.url) as c:
        me = await c.sign_in(name)
        await c.set_password(password)
        played = await (await start_game(c, "duel", 2)).finish()
        check(played)
        for _ in range(100):  # scoring rates the game after its end
            board = await c.leaderboard("duel")
            if any(e.get("player_id") == me["player_id"] for e in board):
                break
            await asyncio.sleep(0.2)
    stack.down()
    took = stack.up()
    async with Client(stack.url) as c:
        again = await c.sign_in_password(name, password)
        assert again["player_id"] == me["player_id"]
        assert (await c.record(played.game_id))["record"] == played.record["record"]
        assert await c.result(played.game_id) == played.result
        mine = [e for e in board if e.get("player_id") == me["player_id"]]
        assert mine, board
        assert [e for e in await c.leaderboard("duel")
                if e.get("player_id") == me["player_id"]] == mine
    note("down/up", {"up_to_healthy_s": round(took, 1), "account": "kept",
                     "finished game": "kept", "rating entries kept": len(mine)})


def test_services_turn_unhealthy_without_valkey_and_healthy_again(stack: ComposeStack) -> None:
    stack.compose("stop", "valkey")
    try:
        down = stack.wait_health("lobby", "unhealthy", timeout=180)
    finally:
        stack.compose("start", "valkey")
    stack.wait_health("valkey", "healthy")
    up = stack.wait_health("lobby", "healthy", timeout=180)
    for service in SERVICES:
        stack.wait_health(service, "healthy", timeout=180)
    note("health without Valkey", {"lobby_unhealthy_after_s": round(down, 1),
                                   "healthy_again_after_s": round(up, 1)})
