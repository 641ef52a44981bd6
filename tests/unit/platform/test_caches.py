"""The bounded caches (cachetools): least recently used out one entry at a time,
never everything at once, and the replay boards bounded by the engine states they hold."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from cachetools import LRUCache

from services.gateway.fanout.hub import Hub
from services.gateway.replays.boards import ReplayBoards
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps

pytestmark = pytest.mark.unit

META = {"game": "duel", "options": {}, "players": [{"player_id": "a"}, {"player_id": "b"}]}


def test_replay_boards_keep_the_recently_asked_games_within_the_states_bound() -> None:
    loads: list[str] = []

    def loader(gid: str) -> Any:
        async def load() -> list[dict[str, Any]]:
            loads.append(gid)
            return []  # no move yet: one state (the setup)
        return load

    async def run() -> None:
        boards = ReplayBoards(max_states=3)
        for gid in ("g-a", "g-b", "g-c"):
            assert len(await boards.states(gid, META, loader(gid))) == 1
        await boards.states("g-a", META, loader("g-a"))  # a hit: g-a is the most recent now
        await boards.states("g-d", META, loader("g-d"))  # one out: the least recent, g-b
        await boards.states("g-a", META, loader("g-a"))
        await boards.states("g-c", META, loader("g-c"))
        await boards.states("g-b", META, loader("g-b"))  # built again
        assert loads == ["g-a", "g-b", "g-c", "g-d", "g-b"]

    asyncio.run(run())


class CountingRedis:
    def __init__(self) -> None:
        self.gets: list[str] = []

    async def get(self, key: str) -> str:
        self.gets.append(key)
        return dumps(META)


def test_the_gateway_keeps_game_metadata_least_recently_used_out() -> None:
    r = CountingRedis()
    hub = Hub(r)
    assert hub._meta.maxsize == 50_000
    hub._meta = LRUCache(maxsize=2)  # the same policy, a bound small enough to reach

    async def run() -> None:
        for gid in ("g-0", "g-1", "g-0", "g-2", "g-0", "g-1"):
            assert await hub.meta(gid) == META
        # g-0 was asked again before g-2 came: g-1 went (one entry, not the whole cache)
        assert r.gets == [Keys(g).meta for g in ("g-0", "g-1", "g-2", "g-1")]

    asyncio.run(run())


class SpecRedis:
    """Just enough Redis for the escrow's spec lookup: its round hash, reads counted."""

    def __init__(self) -> None:
        self.hgets: list[str] = []

    def register_script(self, script: str) -> object:
        return object()

    async def hmget(self, key: str, fields: list[str]) -> list[str | None]:
        """The spec (the first field), and no seat handed over (the others)."""
        self.hgets.append(fields[0])
        game = key.split("{", 1)[1].split("}", 1)[0]
        return [dumps({"game_id": game, "game": "duel", "round_id": fields[0],
                       "deadline_ms": 1, "slots": []}), *(None for _ in fields[1:])]


def test_the_escrow_keeps_round_specs_least_recently_used_out() -> None:
    from services.escrow.service import Escrow
    from services.escrow.store import EscrowStore
    from shared.runtime.settings import Settings

    r = SpecRedis()
    esc = Escrow(Settings(), EscrowStore(r), None, None)  # type: ignore[arg-type]
    assert esc._specs.maxsize == 20_000
    esc._specs = LRUCache(maxsize=2)  # the same policy, a bound small enough to reach

    async def run() -> None:
        for rid in ("r0", "r1", "r0", "r2", "r0", "r1"):
            spec = await esc._spec("g", rid)
            assert spec is not None and spec.round_id == rid
        assert r.hgets == ["r0", "r1", "r2", "r1"]  # r1 went when r2 came, r0 stayed

    asyncio.run(run())
