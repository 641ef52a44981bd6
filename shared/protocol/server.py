"""Messages the gateway sends to a client. Every payload is already a seat's view: no
message carries another seat's hidden information."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

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


class RecordItem(BaseModel):
    """One public record entry inside a version 3 frame (``view.records``, ``records``):
    what a ``record`` frame carries, without its envelope."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str  # the record stream id; resume with Watch.after_record = the last id seen
    entry: dict[str, JsonValue]
    text: str | None = None


class ViewUpdate(Wire):
    """A full snapshot of the seat's view at ``seq`` with the events since the previous one
    that this seat may see. ``cmd_ids``: commands whose application produced this seq. Each
    event is ``{type, data, text, private?}``: ``text`` is its one-sentence narration
    (shared/rules/narrate.py), ``private`` marks an event only some seats see.

    ``records`` (protocol version 3 only, shared/protocol/versions.py): the public record
    entries not yet sent to this watch up to the last one this state change wrote, oldest
    first; a client applies them before the view (they happened first). Below version 3 it
    is absent and every record entry comes as its own ``record`` frame."""

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
    records: list[RecordItem] = []  # version 3 only: the record entries up to this change


class RecordEntry(Wire):
    """One entry of the game's public record (commitments, reveals, draws, results, public
    events), exactly as stored; for an ``event`` entry, ``text`` beside it is its one-sentence
    narration (shared/rules/narrate.py), like ViewUpdate's events carry."""

    type: Literal["record"] = "record"
    game_id: str
    id: str  # the record stream id; resume with Watch.after_record = the last id seen
    entry: dict[str, JsonValue]
    text: str | None = None


class RecordEntries(Wire):
    """Protocol version 3: public record entries that belong to no view of this watch
    (another seat's commitment, the escrow's close, a backlog page after a ``watch``), several
    per frame, oldest first. Below version 3 each comes as its own ``record`` frame."""

    type: Literal["records"] = "records"
    game_id: str
    records: list[RecordItem]


class Pong(Wire):
    type: Literal["pong"] = "pong"


# -- table talk (docs/protocol.md, "Table talk") ---------------------------------------------

ChatChannel: TypeAlias = Literal["table", "seats", "spectators"]


class ChatLine(BaseModel):
    """One message of a channel: ``id`` is its stream id (report it with this)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    player_id: str
    name: str
    text: str  # cleaned by the gateway; shown as text, never parsed as HTML
    ts: int  # ms since the epoch, the gateway's clock


class ChatMessage(Wire):
    """A new message of a channel this connection joined (``chat_join``), from anyone but a
    player it muted."""

    type: Literal["chat"] = "chat"
    channel: ChatChannel
    table_id: str | None = None
    game_id: str | None = None
    id: str
    player_id: str
    name: str
    text: str
    ts: int


class ChatHistory(Wire):
    """The answer to ``chat_join``: the channel joined (a game's: ``seats`` for a seat,
    ``spectators`` for anyone else), its latest messages (oldest first, without muted
    players') and the players this player muted."""

    type: Literal["chat_history"] = "chat_history"
    channel: ChatChannel
    table_id: str | None = None
    game_id: str | None = None
    messages: list[ChatLine]
    muted: list[str] = []


class ChatMutes(Wire):
    """The players this player muted, to each of its connections after a ``chat_mute``."""

    type: Literal["chat_mutes"] = "chat_mutes"
    muted: list[str]


class MyGameChanged(Wire):
    """One of the player's games changed who it waits for (or ended): its "My games" entry
    (shared/protocol/http.py ``MyGame``), pushed to each of the player's connections."""

    type: Literal["my_game"] = "my_game"
    game: dict[str, JsonValue]
    now_ms: int


ServerMessage: TypeAlias = Annotated[
    Welcome | Accepted | Rejected | Committed | ViewUpdate | RecordEntry | RecordEntries | Pong
    | ChatMessage | ChatHistory | ChatMutes | MyGameChanged,
    Field(discriminator="type"),
]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
