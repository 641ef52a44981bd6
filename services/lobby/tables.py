"""Pure table rules: who may join, leave, add a bot, start."""

from __future__ import annotations

from pydantic import JsonValue

from shared.protocol.internal import PlayerRef
from shared.protocol.lobby import Table
from shared.rules import registry


class LobbyError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def check_new_table(game: str, seats: int, options: dict[str, JsonValue]) -> None:
    try:
        g = registry.get(game)
    except registry.UnknownGame as exc:
        raise LobbyError("lobby/bad_request", f"unknown game {game!r}") from exc
    if not g.min_seats <= seats <= g.max_seats:
        raise LobbyError("lobby/bad_request",
                         f"{g.title} takes {g.min_seats}-{g.max_seats} seats")
    try:
        g.setup(dict(options), seats)
    except ValueError as exc:
        raise LobbyError("lobby/bad_request", f"bad options: {exc}") from exc


def join(t: Table, player: PlayerRef) -> Table:
    if t.status != "open":
        raise LobbyError("lobby/already_started", "the table has started")
    if any(p.player_id == player.player_id for p in t.players):
        return t
    if len(t.players) >= t.seats:
        raise LobbyError("lobby/table_full", "the table is full")
    return t.model_copy(update={"players": [*t.players, player]})


def leave(t: Table, player_id: str) -> Table:
    if t.status != "open":
        raise LobbyError("lobby/already_started", "the table has started")
    return t.model_copy(update={"players": [p for p in t.players if p.player_id != player_id]})


def start(t: Table, player_id: str) -> Table:
    if t.host != player_id:
        raise LobbyError("lobby/not_host", "only the host may start the table")
    if t.status != "open":
        raise LobbyError("lobby/already_started", "the table has started")
    g = registry.get(t.game)
    if not g.min_seats <= len(t.players) <= g.max_seats:
        raise LobbyError("lobby/bad_request",
                         f"{g.title} needs {g.min_seats}-{g.max_seats} seated players")
    return t.model_copy(update={"status": "started"})
