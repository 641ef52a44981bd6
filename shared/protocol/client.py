"""Messages a client sends over its WebSocket (one connection per player).

The seat is never taken from the client: the gateway stamps it from the token and the game's
seat map. ``cmd_id`` makes every command idempotent: the same id is applied at most once.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter, model_validator

from shared.protocol.base import Wire

Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$")]
Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Sig = Annotated[str, Field(pattern=r"^[0-9a-f]{128}$")]  # an Ed25519 signature, hex
# base64 of HPKE enc (32 bytes) + ciphertext (at least the 16-byte tag); SEALED_MAX_CHARS
Sealed = Annotated[str, Field(min_length=64, max_length=16384,
                              pattern=r"^[A-Za-z0-9+/]+={0,2}$")]


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
    # the session key's signature (docs/protocol.md "Signed commands"): ``key`` the public
    # key registered through POST /api/session-keys, ``sig`` over shared/fairness/signing.py's
    # message; required by the adjudicator unless EMPIRE_REQUIRE_SIGNATURES=0
    key: Hex64 | None = None
    sig: Sig | None = None


class Commit(ClientWire):
    """A sealed choice (protocol v2): the commitment and the opening sealed to the escrow.

    commitment = SHA-256(LP(domain) ‖ LP(game) ‖ LP(round/slot) ‖ LP(seat) ‖ LP(choice) ‖
    LP(nonce)); ``sealed`` = base64(HPKE base-mode seal, to the escrow key published in the
    round's ``round_opened`` entry, of the canonical JSON {"choice", "nonce"}; info =
    LP("empire-hall/seal/v1") ‖ LP(game) ‖ LP(round/slot) ‖ LP(seat)): only the escrow can read
    it. ``public`` repeats the public part of the choice in ordered rounds. A version 1 commit
    (the opening in clear) is refused with message/unsupported_version.
    """

    type: Literal["commit"] = "commit"
    cmd_id: Id
    game_id: Id
    round_id: Annotated[str, Field(min_length=1, max_length=128)]
    slot: Annotated[str, Field(min_length=1, max_length=64)]
    commitment: Hex64
    sealed: Sealed
    public: dict[str, JsonValue] | None = None
    key: Hex64 | None = None  # the session key's signature, as an act's (checked by the escrow)
    sig: Sig | None = None


class Ping(ClientWire):
    type: Literal["ping"] = "ping"


class Auth(ClientWire):
    """The first frame of a connection that did not offer its token in
    ``Sec-WebSocket-Protocol``: the access token (never in the URL). Answered with ``welcome``,
    or ``rejected`` (auth/invalid_token, auth/expired_token, auth/revoked_session) and close
    4401. Sent again later it is refused (message/malformed)."""

    type: Literal["auth"] = "auth"
    token: Annotated[str, Field(min_length=1, max_length=4096)]


# -- table talk (docs/protocol.md, "Table talk") ---------------------------------------------

ChatChannel: TypeAlias = Literal["table", "seats", "spectators"]
StreamId = Annotated[str, Field(pattern=r"^\d{1,20}-\d{1,20}$")]
CHAT_TEXT_MAX = 8192  # characters of a frame's raw text; the cap that counts is the gateway's
# EMPIRE_CHAT_MAX_CHARS (after cleaning: chat/too_long)


class _ChatPlace(ClientWire):
    """A chat channel: a table's (``table_id``, channel ``table``) or a game's (``game_id``,
    channel ``seats`` or ``spectators``)."""

    table_id: Id | None = None
    game_id: Id | None = None

    @model_validator(mode="after")
    def _one_place(self) -> _ChatPlace:
        if (self.table_id is None) == (self.game_id is None):
            raise ValueError("give exactly one of table_id and game_id")
        channel = getattr(self, "channel", None)
        if channel is not None and (channel == "table") != (self.table_id is not None):
            raise ValueError("channel table takes table_id; seats and spectators take game_id")
        return self


class ChatJoin(_ChatPlace):
    """Follow a chat: a table's before its start (its seated players), or a game's: a seat
    gets the seats' channel, anyone else (where spectators are allowed) the spectators'.
    Answered with ``chat_history``, then each new ``chat``; opt-in, so clients that never
    join (bots) never receive chat."""

    type: Literal["chat_join"] = "chat_join"
    cmd_id: Id | None = None  # named by a refusal, so the client can match it


class ChatLeave(_ChatPlace):
    """Stop following a chat on this connection."""

    type: Literal["chat_leave"] = "chat_leave"


class ChatSend(_ChatPlace):
    """Post a message. ``cmd_id`` is the message's id: a second post with the same id to the
    same channel is refused (``chat/duplicate``). Answered with ``accepted`` (the message
    then arrives as a ``chat`` frame like everyone's) or ``rejected``."""

    type: Literal["chat"] = "chat"
    cmd_id: Id
    channel: ChatChannel
    text: Annotated[str, Field(max_length=CHAT_TEXT_MAX)]


class ChatMute(ClientWire):
    """Hide (``muted`` true) or show again one player's messages, for yourself only, in every
    chat. Answered with ``accepted``; every connection of yours gets ``chat_mutes``."""

    type: Literal["chat_mute"] = "chat_mute"
    cmd_id: Id
    player_id: Id
    muted: bool = True


class ChatReport(_ChatPlace):
    """Report one message (``msg_id``: its ``id``) of a channel you can read to the
    operators, with the messages around it. Answered with ``accepted``."""

    type: Literal["chat_report"] = "chat_report"
    cmd_id: Id
    channel: ChatChannel
    msg_id: StreamId
    reason: Annotated[str, Field(max_length=200)] = ""


ClientMessage: TypeAlias = Annotated[Watch | Unwatch | Act | Commit | Ping | Auth | ChatJoin
                                     | ChatLeave
                                     | ChatSend | ChatMute | ChatReport,
                                     Field(discriminator="type")]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
