"""Messages a client sends over its WebSocket (one connection per player).

The seat is never taken from the client: the gateway stamps it from the token and the game's
seat map. ``cmd_id`` makes every command idempotent: the same id is applied at most once.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter

from shared.protocol.base import Wire

Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$")]
Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class ClientWire(Wire):
    """A client's message: strict types, nothing coerced ("0" is not a seq, 1 is not an id)."""

    model_config = ConfigDict(strict=True)


class Watch(ClientWire):
    """Follow a game: as its seat if seated, else as a spectator. Resumes after ``after_seq``
    (the last view seq the client holds) and ``after_record`` (the last record id)."""

    type: Literal["watch"] = "watch"
    game_id: Id
    after_seq: int = -1
    after_record: Annotated[str, Field(pattern=r"^\d+-\d+$")] = "0-0"


class Unwatch(ClientWire):
    type: Literal["unwatch"] = "unwatch"
    game_id: Id


class Act(ClientWire):
    """Take an action in a turn. ``expected_seq``: the view seq it was based on (stale if the
    game has moved on); None applies to the current state if still legal."""

    type: Literal["act"] = "act"
    cmd_id: Id
    game_id: Id
    expected_seq: int | None = None
    action: JsonValue


class Commit(ClientWire):
    """A sealed choice: the commitment and its opening (choice, nonce) for one slot.

    commitment = SHA-256(LP(domain) ‖ LP(game) ‖ LP(round/slot) ‖ LP(seat) ‖ LP(choice) ‖
    LP(nonce)); ``public`` repeats the public part of the choice in ordered rounds.
    """

    type: Literal["commit"] = "commit"
    cmd_id: Id
    game_id: Id
    round_id: Annotated[str, Field(min_length=1, max_length=128)]
    slot: Annotated[str, Field(min_length=1, max_length=64)]
    commitment: Hex64
    choice: JsonValue
    nonce: Hex64
    public: dict[str, JsonValue] | None = None


class Ping(ClientWire):
    type: Literal["ping"] = "ping"


ClientMessage: TypeAlias = Annotated[Watch | Unwatch | Act | Commit | Ping,
                                     Field(discriminator="type")]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
