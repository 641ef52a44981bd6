"""A search bot's memory of the public record, through the whole system (EE-12).

One seat of a 3-seat Empire Engine game is played by the bot runner's search seat
(services/bots/search.py) as an ordinary client, the others by the lobby's bots. The seat
remembers what a player who watched every public event knows of the hidden score piles: it
reads the game's record, which its watch replayed from the first entry. At the end the piles
are revealed (EE-12), and the seat's tally must equal each opponent's pile but for the types
of its salvages, which the record never carried."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from clients.sdk.bot_player import play_with
from clients.sdk.client import Client
from services.bots.search import SearchPool, SearchSeat
from services.supervisor import Supervisor

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


class Recording(SearchSeat):
    """A search seat that keeps what it sent with each decision."""

    sent: list[Any]

    def recall(self, seat: int) -> Any:
        out = super().recall(seat)
        self.sent.append(out)
        return out


async def test_a_search_seat_knows_the_hidden_piles_only_as_the_record_tells(
        system: Supervisor) -> None:
    async with Client(system.url) as c:
        await c.sign_in("memory-tester")
        t = await c.create_table("empire-engine", seats=3, options={})
        for _ in range(2):
            await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])
        session = await c.watch(gid)
        with ThreadPoolExecutor(1) as ex:
            seat_bot = Recording(SearchPool(1, ex), "empire-engine", "easy", session)
            seat_bot.sent = []
            await asyncio.wait_for(play_with(session, seat_bot), 240)
        assert session.ended and session.seat is not None
        me = session.seat
        piles = next(r["data"]["score_piles"] for r in session.record
                     if r.get("type") == "event" and r.get("event") == "game_over")
    # 9 rounds: a plan each (two slots, one search) and the odd block, loot or salvage
    assert len(seat_bot.sent) >= 9
    assert sum(x is not None for x in seat_bot.sent) >= len(seat_bot.sent) - 1, seat_bot.sent
    final = seat_bot.recall(me)
    assert final is not None
    for s in range(3):
        if s == me:
            continue
        known = final["piles"].get(str(s), {})
        true = piles[str(s)]
        short = {f: true[f] - known.get(f, 0) for f in ("soldiers", "goods", "inventions")}
        assert all(n >= 0 for n in short.values()), (s, known, true)
        assert sum(short.values()) == known.get("unknown", 0), (s, known, true)
