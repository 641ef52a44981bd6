"""Lobby requests (gateway -> lobby, request/reply) and the table model.

``player_id`` and ``name`` are stamped by the gateway from a verified token.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from shared.protocol.base import Wire
from shared.protocol.internal import PlayerRef

Name = Annotated[str, Field(min_length=1, max_length=32)]  # the handle rules: shared/identity
Spectators: TypeAlias = Literal["anyone", "players"]  # who may watch the game


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str
    game: str
    options: dict[str, JsonValue] = {}
    seats: int
    players: list[PlayerRef] = []
    host: str
    public: bool = True
    invite: str  # "" in what others see: only the host and seated players get the code
    spectators: Spectators = "anyone"
    kicked: list[str] = []  # players the host removed: they may not join again
    status: Literal["open", "started", "closed"] = "open"  # closed: idle too long
    game_id: str | None = None
    client_entropy: bool = True
    turn_timeout_ms: int
    round_timeout_ms: int
    created_ms: int
    updated_ms: int = 0  # the last change (0: never changed since created_ms)


class _Req(Wire):
    player_id: str = ""
    name: str = ""


class CreatePlayer(Wire):
    op: Literal["create_player"] = "create_player"
    name: Name
    exact: bool = False  # refuse (lobby/name_taken) rather than take a "name#1234" display


class CreateTable(_Req):
    op: Literal["create_table"] = "create_table"
    game: str
    options: dict[str, JsonValue] = {}
    seats: Annotated[int, Field(ge=1, le=12)]
    public: bool = True
    spectators: Spectators | None = None  # None: "anyone" when public, else "players"
    client_entropy: bool = True
    turn_timeout_ms: Annotated[int, Field(ge=1_000, le=86_400_000)] | None = None
    round_timeout_ms: Annotated[int, Field(ge=1_000, le=86_400_000)] | None = None


class JoinTable(_Req):
    op: Literal["join_table"] = "join_table"
    table_id: str | None = None
    invite: str | None = None


class LeaveTable(_Req):
    op: Literal["leave_table"] = "leave_table"
    table_id: str


class AddBot(_Req):
    op: Literal["add_bot"] = "add_bot"
    table_id: str
    kind: Literal["heuristic", "random"] = "heuristic"


class StartTable(_Req):
    op: Literal["start_table"] = "start_table"
    table_id: str


class KickPlayer(_Req):
    """The host removes a seated player (or bot) before the start."""

    op: Literal["kick_player"] = "kick_player"
    table_id: str
    target: Annotated[str, Field(min_length=1, max_length=64)]


class GetTable(_Req):
    op: Literal["get_table"] = "get_table"
    table_id: str


Cursor = Annotated[str, Field(max_length=80, pattern=r"^[0-9]+:[A-Za-z0-9_.:-]*$")]


class ListTables(_Req):
    """Newest first, one page each: ``cursor`` is the previous page's ``next_cursor``
    (tables) and ``live_cursor`` its ``live_next_cursor`` (live games)."""

    op: Literal["list_tables"] = "list_tables"
    limit: Annotated[int, Field(ge=1, le=500)] = 50
    cursor: Cursor | None = None
    live_limit: Annotated[int, Field(ge=1, le=500)] = 50
    live_cursor: Cursor | None = None


LobbyRequest: TypeAlias = Annotated[
    CreatePlayer | CreateTable | JoinTable | LeaveTable | AddBot | StartTable | KickPlayer
    | GetTable | ListTables, Field(discriminator="op")]
LOBBY_REQUEST: TypeAdapter[LobbyRequest] = TypeAdapter(LobbyRequest)
