"""Lobby requests (gateway -> lobby, request/reply) and the table model.

``player_id`` and ``name`` are stamped by the gateway from a verified token.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from shared.protocol.base import Wire
from shared.protocol.internal import PlayerRef

Name = Annotated[str, Field(min_length=1, max_length=32)]


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str
    game: str
    options: dict[str, JsonValue] = {}
    seats: int
    players: list[PlayerRef] = []
    host: str
    public: bool = True
    invite: str
    status: Literal["open", "started"] = "open"
    game_id: str | None = None
    client_entropy: bool = True
    turn_timeout_ms: int
    round_timeout_ms: int
    created_ms: int


class _Req(Wire):
    player_id: str = ""
    name: str = ""


class CreatePlayer(Wire):
    op: Literal["create_player"] = "create_player"
    name: Name


class CreateTable(_Req):
    op: Literal["create_table"] = "create_table"
    game: str
    options: dict[str, JsonValue] = {}
    seats: Annotated[int, Field(ge=1, le=12)]
    public: bool = True
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


class GetTable(_Req):
    op: Literal["get_table"] = "get_table"
    table_id: str


class ListTables(_Req):
    op: Literal["list_tables"] = "list_tables"


LobbyRequest: TypeAlias = Annotated[
    CreatePlayer | CreateTable | JoinTable | LeaveTable | AddBot | StartTable | GetTable
    | ListTables, Field(discriminator="op")]
LOBBY_REQUEST: TypeAdapter[LobbyRequest] = TypeAdapter(LobbyRequest)
