""""My games", the lobby's shell for it: it consumes the ``turns`` stream (group
``my-games``: every lobby replica shares it), keeps each player's games
(services/lobby/mygames_store.py), pushes each changed entry to the player's sockets through
the gateways' shared channel (``my_game`` on ``gw:updates``: the gateway sends it only to that
player's connections) and answers ``GET /api/me/games``. A ``SeatCommitted`` on the same stream
(the escrow's) takes a committed seat off its sealed round's waiting (services/lobby/
mygames.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from pydantic import ValidationError

from services.lobby import mygames
from services.lobby.ports import MyGamesStorePort
from shared.protocol import streams
from shared.protocol.turns import SeatCommitted, TurnsChanged, parse_entry
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.ports import Publisher
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby.my_games")
DAY_S = 86_400.0


def now_ms() -> int:
    return int(time.time() * 1000)


class MyGames:
    def __init__(self, settings: Settings, store: MyGamesStorePort, broker: Publisher) -> None:
        self.settings = settings
        self.store = store
        self.broker = broker

    @property
    def running_s(self) -> float:
        """A running game's entry is kept this long past its last change: as long as any
        game may run (its end is a change, which keeps it my_games_ended_s from then)."""
        s = self.settings
        return max(s.turn_based_lifetime_max_s, s.game_lifetime_s) + DAY_S

    async def on_turns(self, body: dict[str, Any]) -> None:
        """One entry of the turns stream: stored if newer, added to each (human) player's
        list, pushed to their sockets. Safe to run twice (a redelivery adds nothing)."""
        try:
            parsed = parse_entry(body)
        except ValidationError as exc:
            log.error("malformed_turns_entry", error=str(exc)[:300])
            return
        if isinstance(parsed, SeatCommitted):
            await self.on_seat_committed(parsed)
            return
        turns = parsed
        if turns.round_id is not None:  # seats of its round that committed already
            turns = mygames.without_committed(
                turns, await self.store.committed(turns.game_id, turns.round_id))
        stored = turns.model_dump(mode="json")
        keep = mygames.kept_ms(stored, self.running_s, self.settings.my_games_ended_s)
        fresh = await self.store.record(turns, keep)
        players = await self.store.not_erased(mygames.humans(turns))  # deleted: not kept
        await self.store.add(players, turns.game_id, turns.at_ms, self.settings.my_games_max,
                             int(self.running_s * 1000))
        if not fresh:
            return  # an older entry or a redelivery: its news went out with it
        await self._push(stored, players)

    async def on_seat_committed(self, seat: SeatCommitted) -> None:
        """The seat committed in its sealed round: remembered for the round, and taken off
        the stored entry's waiting when that entry is of the same round (a later entry of a
        higher seq still replaces it); each player's list pushed again. Safe to run twice."""
        raw = await self.store.entry(seat.game_id)
        keep = mygames.committed_kept_ms(None if raw is None else loads(raw), now_ms(),
                                         int(DAY_S * 1000))
        await self.store.mark_committed(seat.game_id, seat.round_id, seat.seat, keep)
        for attempt in range(8):
            # the entry read above is tried first: the replace refuses it if another replica
            # wrote the entry in between, and then it is read again
            if attempt:
                raw = await self.store.entry(seat.game_id)
            stored = None if raw is None else mygames.drop_committed(loads(raw), seat)
            if raw is None or stored is None:
                return  # no entry, another round's, or that seat is not awaited
            if await self.store.replace(seat.game_id, raw, dumps(stored)):
                turns = TurnsChanged.model_validate(stored)
                await self._push(stored, await self.store.not_erased(mygames.humans(turns)))
                return
        log.warning("seat_committed_contended", game_id=seat.game_id)

    async def _push(self, stored: dict[str, Any], players: list[str]) -> None:
        """The game's entry to each player's sockets (``my_game`` on the gateways' channel)."""
        t = now_ms()
        await asyncio.gather(*(self.broker.publish(  # issued together: one pipeline
            {"type": "my_game", "v": 1, "player_id": p,
             "game": mygames.entry_for(stored, p), "now_ms": t},
            stream=streams.GW_UPDATES, maxlen=streams.maxlen(streams.GW_UPDATES))
            for p in players))

    async def listing(self, player_id: str) -> dict[str, Any]:
        """The player's games: waiting for it first (oldest wait first), then running, then
        recently ended; with the server's clock (time left = deadline_ms - now_ms)."""
        found = await self.store.games_of(player_id, self.settings.my_games_max)
        return {"games": mygames.order(mygames.entry_for(e, player_id) for e in found),
                "now_ms": now_ms()}
