"""Messages the gateway sends to a client. Every payload is already a seat's view: no
message carries another seat's hidden information."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, JsonValue, TypeAdapter

from shared.protocol.base import Wire
from shared.protocol.errors import ErrorCode


class Welcome(Wire):
    type: Literal["welcome"] = "welcome"
    player_id: str
    name: str


class Accepted(Wire):
    """The command is durably queued (it will be applied or answered with ``rejected``)."""

    type: Literal["accepted"] = "accepted"
    cmd_id: str


class Rejected(Wire):
    """A typed refusal, sent only to the sender. Nothing changed."""

    type: Literal["rejected"] = "rejected"
    cmd_id: str | None = None
    game_id: str | None = None
    code: ErrorCode
    message: str


class Committed(Wire):
    """The escrow accepted this client's commitment (its receipt)."""

    type: Literal["committed"] = "committed"
    cmd_id: str
    game_id: str
    round_id: str
    slot: str
    commitment: str


class ViewUpdate(Wire):
    """A full snapshot of the seat's view at ``seq`` with the events since the previous one
    that this seat may see. ``cmd_ids``: commands whose application produced this seq."""

    type: Literal["view"] = "view"
    game_id: str
    seq: int
    seat: int | None
    stage: str | None = None  # seeding | entropy | playing | ended
    view: dict[str, JsonValue]
    legal: list[JsonValue]
    node: dict[str, JsonValue]
    events: list[dict[str, JsonValue]]
    cmd_ids: list[str] = []
    gap: bool = False  # the client's resume point was older than what is kept


class RecordEntry(Wire):
    """One entry of the game's public record (commitments, reveals, draws, results)."""

    type: Literal["record"] = "record"
    game_id: str
    id: str  # the record stream id; resume with Watch.after_record = the last id seen
    entry: dict[str, JsonValue]


class Pong(Wire):
    type: Literal["pong"] = "pong"


ServerMessage: TypeAlias = Annotated[
    Welcome | Accepted | Rejected | Committed | ViewUpdate | RecordEntry | Pong,
    Field(discriminator="type"),
]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
