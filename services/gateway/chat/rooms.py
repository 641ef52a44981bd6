"""Chat rooms: the channels of a table or a game, their keys, and who may read which.

* ``table``: a table's, before its start (``tchat:{<table>}:msgs``): its seated players.
* ``seats``: a game's seats (``g:{<game>}:chat:seats``): only the game's players.
* ``spectators``: a game's spectators (``g:{<game>}:chat:spec``): only spectators, where the
  host allows spectators (players do not see the rail's chat during a game: no hints).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads, text


@dataclass(frozen=True)
class Room:
    key: str  # the channel's stream
    ids_key: str
    channel: str  # table | seats | spectators
    table_id: str | None = None
    game_id: str | None = None

    def place(self) -> dict[str, Any]:
        return {"channel": self.channel, "table_id": self.table_id, "game_id": self.game_id}


@dataclass
class Sub:
    """A connection's place in a room: the last message queued (None: history on its way)."""

    room: Room
    last_id: str | None = None


def table_room(table_id: str) -> Room:
    return Room(streams.table_chat(table_id), streams.table_chat_ids(table_id), "table",
                table_id=table_id)


def game_room(game_id: str, channel: str) -> Room:
    k = Keys(game_id)
    return Room(k.chat(channel), k.chat_ids, channel, game_id=game_id)


def readable_channels(meta: dict[str, Any], player_id: str) -> list[str]:
    """The channels of a game (its archive's keys) a player may read: a player the table's
    (when the game came from a table) and the seats'; anyone else, where spectators are
    allowed, the spectators'."""
    if any(p.get("player_id") == player_id for p in meta.get("players", [])):
        return (["table"] if meta.get("table_id") else []) + ["seats"]
    return ["spectators"] if meta.get("spectators", "anyone") == "anyone" else []


def archive_room(meta: dict[str, Any], channel: str) -> Room:
    """The room of a game's channel (``table``: the game's table's)."""
    if channel == "table":
        return table_room(str(meta["table_id"]))
    return game_room(str(meta["game_id"]), channel)


def room_of_key(key: str) -> Room | None:
    """The room a fan-out entry names (None: not a chat channel key)."""
    head, sep, rest = key.partition("{")
    inner, sep2, tail = rest.partition("}")
    if not sep or not sep2 or not inner:
        return None
    if head == "tchat:" and tail == ":msgs":
        return table_room(inner)
    if head == "g:" and tail in (":chat:seats", ":chat:spec"):
        return game_room(inner, "seats" if tail == ":chat:seats" else "spectators")
    return None


def line(entry_id: Any, fields: dict[bytes, bytes]) -> dict[str, Any]:
    d = loads(fields[b"d"])
    return {"id": text(entry_id), "player_id": d["player_id"], "name": d["name"],
            "text": d["text"], "ts": d["ts"]}
