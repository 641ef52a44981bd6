"""Seats handed to a bot during a game (a resignation, or a clock run out at an
``on_expiry: "bot"`` table: services/adjudicator/handover.py), as the gateway sees them.

The lobby rewrites the game's metadata (the bot in the seat, the player in ``handed_over``)
before the adjudicator stores the hand-over, and the hand-over's public record entry
(``seat_handed_over``) tells every gateway watching the game: each drops its copy of the
metadata, and a connection of the player who left that watched as the seat watches on as a
spectator (it no longer gets the seat's view: the bot's hidden information is not its own).
A gateway that still holds an older copy reads it again when a bot it does not find in it
asks for its seat."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from services.gateway.fanout import erased
from shared.runtime.jsonutil import loads

if TYPE_CHECKING:
    from services.gateway.fanout.hub import Hub, Watch

MARK = b'"seat_handed_over"'
BOT_PREFIX = "b-"  # bot players' ids (services/lobby/service.py create_player)


def seat_in(meta: dict[str, Any], player_id: str) -> int | None:
    return next((i for i, p in enumerate(meta.get("players", []))
                 if p.get("player_id") == player_id), None)


def first_players(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The players as seated at the start (the record's ``game_created`` names them): the
    game's documents (record, audit bundle) name these, the verifier checks them."""
    players = list(meta.get("players", []))
    for h in reversed(meta.get("handed_over", [])):
        if isinstance(h, dict) and 0 <= h.get("seat", -1) < len(players):
            players[h["seat"]] = h["player"]
    return players


def maybe_newly_seated(meta: dict[str, Any], player_id: str) -> bool:
    """A bot not in this copy of the metadata may have been seated by a hand-over since."""
    return player_id.startswith(BOT_PREFIX) and seat_in(meta, player_id) is None


def left(meta: dict[str, Any], player_id: str) -> bool:
    """The player sat in the game and its seat was handed to a bot."""
    return any(h.get("player", {}).get("player_id") == player_id
               for h in meta.get("handed_over", []))


def may_watch(meta: dict[str, Any], player_id: str) -> bool:
    """Whether a player without a seat may watch: the host's option, or it left the game."""
    return meta.get("spectators", "anyone") == "anyone" or left(meta, player_id)


def handed_in(entries: list[Any]) -> list[tuple[int, str]]:
    """(seat, the player who left it) of the ``seat_handed_over`` entries among record
    stream entries ``(id, {b"d": json})``."""
    out: list[tuple[int, str]] = []
    for _, f in entries:
        raw = f.get(b"d", b"")
        if MARK not in raw:
            continue
        e = loads(raw)
        if isinstance(e, dict) and e.get("type") == "seat_handed_over":
            out.append((int(e["seat"]), str(e.get("from", {}).get("player_id", ""))))
    return out


def rewatch(hub: Hub, game_id: str, moved: list[tuple[int, str]]) -> set[asyncio.Task[None]]:
    """After a hand-over: the connections that watched one of the ``moved`` seats as the
    player who left it watch the game again as spectators (from the record entry they had
    reached), and every other watch of the game names the seat's new player in its log
    sentences. Returns the tasks doing it, each dropped from the hub's set when done."""
    tasks: set[asyncio.Task[None]] = set()
    others: list[Watch] = []
    for conn in list(hub.by_game.get(game_id, ())):
        w = conn.watches.get(game_id)
        if w is None or conn.closed:
            continue
        if (w.seat, conn.player_id) not in moved:
            others.append(w)
            continue
        conn.watches.pop(game_id, None)
        if w.catch_up is not None and not w.catch_up.done():
            w.catch_up.cancel()
        # from seq 0: the latest spectator view comes as a gap, replacing the seat's at once
        tasks.add(asyncio.create_task(hub.watch(conn, game_id, None, 0, w.record_id,
                                                w.version)))
    if others:
        tasks.add(asyncio.create_task(_rename(hub, game_id, others)))
    for task in tasks:
        task.add_done_callback(hub._rewatching.discard)
    return tasks


async def _rename(hub: Hub, game_id: str, watches: list[Watch]) -> None:
    meta = await hub.meta(game_id)
    if meta is None:
        return
    for w in watches:
        w.names = erased.names(meta.get("players", []), w.erased)
        w.look = (w.game, tuple(w.names), frozenset(w.erased))
