"""Boards of past steps (GET /api/matches/{id}/replay): the gateway re-applies a finished game's
log with the engine; the board after the last step must be exactly what each seat and the
spectator last received live, the board at step 0 the setup, and nothing is served before the
game has ended (the log, with every hidden outcome, is public only then)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from clients.sdk import ApiError, Client
from services.supervisor import Supervisor
from shared.protocol.streams import Keys
from shared.rules import registry
from shared.runtime.jsonutil import loads
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.e2e


async def _last_view(r: Any, key: str) -> dict[str, Any]:
    (_, fields), = await r.xrevrange(key, count=1)
    return dict(loads(fields[b"d"])["view"])


async def test_boards_replay_the_log_to_the_views_players_saw(system: Supervisor,
                                                              redis_url: str) -> None:
    played = await play_bot_game(system.url, "empire-engine", 3)
    gid, game = played.game_id, registry.get("empire-engine")
    steps = len(played.record["log"])
    r = aioredis.Redis.from_url(redis_url)
    async with Client(system.url) as c:
        try:
            await c.sign_in("replayer")
            first = await c.board_at(gid, 0)
            assert first["steps"] == steps and first["seat"] is None
            assert first["view"] == game.view(game.setup({}, 3), None)
            k = Keys(gid)
            last = await c.board_at(gid, steps)
            assert last["view"] == await _last_view(r, k.spectator)
            for seat in range(3):  # each seat's hidden part too, as that seat saw it
                mine = await c.board_at(gid, steps, seat)
                assert mine["view"] == await _last_view(r, k.view(seat)), seat
            middle = await c.board_at(gid, steps // 2, 1)
            assert middle["step"] == steps // 2 and middle["view"] != last["view"]
            for bad in ({"step": steps + 1}, {"step": -1}, {"step": 0, "seat": 3}):
                with pytest.raises(ApiError) as err:
                    await c.board_at(gid, **bad)
                assert err.value.code == "replay/bad_request", bad
        finally:
            await r.aclose()


async def test_no_board_before_the_game_has_ended(system: Supervisor) -> None:
    async with Client(system.url) as c:
        await c.sign_in("early")
        t = await c.create_table("duel", seats=2, options={"rounds": 3})
        await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])  # this seat never moves: the game stays open
        for _ in range(100):
            try:
                await c.board_at(gid, 0)
            except ApiError as exc:
                if exc.code == "game/not_found":  # right after start
                    await asyncio.sleep(0.05)
                    continue
                assert exc.code == "replay/not_ended"
                break
            raise AssertionError("a board of a running game was served")
        else:
            raise AssertionError("the game never appeared")
