"""Deleted players, anonymized wherever the gateway shows a player (privacy).

Deleting an account (services/lobby/accounts.py) adds its player id to the set
``lobby:erased``. The stored game data stays as it was (the live keys, the archive's blob per
finished game, chat channels): rewriting them would mean finding and re-packing every copy,
and the records are what ``shared.fairness.verify`` checks. Instead every copy a client can
reach is anonymized when it is read, from that one set: a seat of a deleted player is shown
as ``{"player_id": "deleted", "name": "deleted player"}`` (its other fields kept), the same
way in every place (the HTTP record, audit bundle, result and match, the WebSocket's replayed
``game_created`` and its log sentences, chat). Verification binds seats, not names or ids, and
compares the document's ``players`` with ``game_created``'s: both are anonymized alike, so a
finished game still verifies. (Ratings, the leaderboard and a player's history are rewritten
at deletion instead: the lobby removes the player's rows.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.gateway.ports import RedisClient
from shared.protocol import keys

ERASED = keys.LOBBY_ERASED  # SET of deleted players' ids (services/lobby/accounts.py)
DELETED_ID = "deleted"
DELETED_NAME = "deleted player"


async def erased(redis: RedisClient, ids: Iterable[Any]) -> set[str]:
    """The deleted players among ``ids`` (one SMISMEMBER; none asked: no round trip)."""
    wanted = sorted({i for i in ids if isinstance(i, str) and i and i != DELETED_ID})
    if not wanted:
        return set()
    flags = await redis.smismember(ERASED, wanted)
    return {i for i, f in zip(wanted, flags, strict=True) if f}


def seat(row: Any, gone: set[str]) -> Any:
    """A row naming a player (``player_id``, ``name``) with a deleted player anonymized."""
    if gone and isinstance(row, dict) and row.get("player_id") in gone:
        return {**row, "player_id": DELETED_ID, "name": DELETED_NAME}
    return row


def seats(rows: list[Any], gone: set[str]) -> list[Any]:
    return [seat(r, gone) for r in rows] if gone else rows


def names(players: list[Any], gone: set[str]) -> list[str]:
    """Seat -> shown name (the log sentences of shared/rules/narrate.py)."""
    return [str(seat(p, gone).get("name", "")) if isinstance(p, dict) else ""
            for p in players]


def table(t: Any, gone: set[str]) -> Any:
    """A lobby table (``players``, ``host``) with a deleted player's seat and hosting
    anonymized."""
    if not gone or not isinstance(t, dict):
        return t
    out = {**t}
    if isinstance(t.get("players"), list):
        out["players"] = seats(t["players"], gone)
    if t.get("host") in gone:
        out["host"] = DELETED_ID
    return out


def table_ids(t: Any) -> list[str]:
    if not isinstance(t, dict):
        return []
    ids = row_ids(t["players"]) if isinstance(t.get("players"), list) else []
    return ids + ([t["host"]] if isinstance(t.get("host"), str) else [])


def entry(e: Any, gone: set[str]) -> Any:
    """A public record entry: ``game_created`` names the seats' players."""
    if gone and isinstance(e, dict) and e.get("type") == "game_created" \
            and isinstance(e.get("players"), list):
        return {**e, "players": seats(e["players"], gone)}
    return e


def record(rec: list[Any], gone: set[str]) -> list[Any]:
    return [entry(e, gone) for e in rec] if gone else rec


def record_ids(rec: Iterable[Any]) -> list[str]:
    """The player ids a record names (its ``game_created`` seats)."""
    out: list[str] = []
    for e in rec:
        if isinstance(e, dict) and e.get("type") == "game_created" \
                and isinstance(e.get("players"), list):
            out += [p["player_id"] for p in e["players"]
                    if isinstance(p, dict) and isinstance(p.get("player_id"), str)]
    return out


def row_ids(rows: Iterable[Any]) -> list[str]:
    return [r["player_id"] for r in rows
            if isinstance(r, dict) and isinstance(r.get("player_id"), str)]
