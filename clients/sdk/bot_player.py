"""Play one seat with a contract Bot, as an ordinary client: only the seat's view, its legal
actions and its own sealed slots reach the bot."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
import secrets
from typing import Any

from clients.sdk.client import ApiError, Client, GameSession
from shared.ai import registry as ai
from shared.rules.api import SealedSlot, from_json


class RandomBot:
    """Uniformly random legal play (the baseline the heuristic bots are measured against)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: dict[str, Any], legal: list[Any], seat: int) -> Any:
        return self.rng.choice(legal)

    def choose(self, view: dict[str, Any], slot: SealedSlot, seat: int,
               public_parts: dict[str, Any]) -> Any:
        return self.rng.choice(list(slot.allowed)) if slot.allowed else slot.default


def make_bot(game: str, kind: str) -> Any:
    if kind == "random":
        return RandomBot()
    return ai.get_bot(game)


TRANSIENT_RETRY_S = 0.1  # a refused-for-now move is sent again after this (paced by the rate)


async def play_seat(client: Client, game_id: str, kind: str = "heuristic",
                    stop: asyncio.Event | None = None) -> GameSession:
    """Play until the game ends (or ``stop`` is set). Returns the session."""
    game = await client.watch(game_id)
    meta = await client._call("GET", f"/api/matches/{game_id}")
    return await play_with(game, make_bot(meta["game"], kind), stop)


async def _decided(value: Any) -> Any:
    """A bot's decision: its value, or awaited when the bot decides asynchronously (a search
    bot thinks in a worker pool, services/bots/search.py)."""
    return await value if inspect.isawaitable(value) else value


async def play_with(game: GameSession, bot: Any, stop: asyncio.Event | None = None
                    ) -> GameSession:
    """Play the watched ``game``'s seat with ``bot`` (``act``/``choose`` return a decision or
    an awaitable of one) until the game ends or ``stop`` is set."""
    acted_seq = -1
    while not game.ended and not (stop and stop.is_set()):
        msg = game.view
        assert msg is not None
        node, seat = msg["node"], msg["seat"]
        try:
            if node["kind"] == "turn" and seat in node["seats"] and msg["legal"] \
                    and game.seq != acted_seq:
                acted_seq = seq = game.seq
                action = await _decided(bot.act(msg["view"], msg["legal"], seat))
                if game.seq != seq:  # the game moved on while the bot thought: decide again
                    acted_seq = -1
                    continue
                await game.act(action, expected_seq=seq)
            elif node["kind"] == "simultaneous":
                await _commit_slots(game, bot, msg)
        except ApiError as exc:
            if exc.transient:
                # not taken (over the connection's rate, or the server busy): the same move
                # again soon, not after a wait for a view that nothing will change
                acted_seq = -1
                await asyncio.sleep(TRANSIENT_RETRY_S)
                continue
            # stale or refused: wait for the next view and decide again
        with contextlib.suppress(asyncio.TimeoutError):
            await game.wait(2.0)
    return game


async def _commit_slots(game: GameSession, bot: Any, msg: dict[str, Any]) -> None:
    node = msg["node"]
    round_id = node["round_id"]
    done = game.committed_slots(round_id)
    order = [o["key"] for o in node["order"]]
    for raw in node["my_slots"]:
        key = raw["key"]
        if f"{round_id}/{key}" in game.receipts or key in done:
            continue
        if node["ordered"] and any(k not in done for k in order[:order.index(key)]):
            return  # not our turn in the commit order yet
        if node.get("platform"):
            choice: Any = secrets.token_hex(32)  # client seed for the dealer
            slot_public = None
        else:
            slot = from_json(SealedSlot, raw)
            publics = {k: e.get("public") for k, e in done.items()}
            choice = await _decided(bot.choose(msg["view"], slot, msg["seat"], publics))
            slot_public = ({k: choice.get(k) for k in slot.public_keys}
                           if slot.public_keys and isinstance(choice, dict) else None)
        await game.commit(round_id, key, choice, slot_public)
