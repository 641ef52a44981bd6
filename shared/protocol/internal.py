"""Messages between services on Redis Streams (never reachable by clients).

Each stream carries one union; which stream a message arrives on is part of its trust: only
the escrow writes ``adj:reveals``, only the dealer ``adj:draws`` (enforced with Redis ACL users
in deploy/valkey/users.acl).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, model_validator

from shared.protocol.base import Wire
from shared.protocol.turns import Pace

OnExpiry: TypeAlias = Literal["default", "bot"]
HandOverReason: TypeAlias = Literal["resigned", "expired"]


class Part(BaseModel):
    """A nested part of a message (no version of its own)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class PlayerRef(Part):
    player_id: str
    name: str
    bot: str | None = None  # bot kind when the seat is played by a bot


class SlotSpec(Part):
    seat: int
    player_id: str = ""  # the player seated there: whose session keys sign its commit
    key: str
    allowed: list[JsonValue] | None = None
    default: JsonValue
    public_keys: list[str] = []
    context: JsonValue = None


# --- to the adjudicator -----------------------------------------------------------------


class CreateGame(Wire):
    type: Literal["create_game"] = "create_game"
    game_id: str
    game: str
    options: dict[str, JsonValue] = {}
    players: list[PlayerRef]
    client_entropy: bool = True
    turn_timeout_ms: int = 120_000
    round_timeout_ms: int = 120_000
    # --- pace (shared/protocol/turns.py): turn-based games live by their clocks
    pace: Pace = "real-time"
    time_bank_ms: int = 0
    # when a seat's clock runs out: "default" its default move; "bot" the default move, then
    # the seat goes to a bot for the rest of the game (services/adjudicator/handover.py)
    on_expiry: OnExpiry = "default"


class SubmitAction(Wire):
    """A seat's action; ``seat`` and ``player_id`` are stamped by the gateway."""

    type: Literal["submit_action"] = "submit_action"
    cmd_id: str
    game_id: str
    seat: int
    player_id: str
    expected_seq: int | None = None
    action: JsonValue
    # the client's signature, passed through untouched (the adjudicator checks it against the
    # keys the lobby registered for the player the game seats at ``seat``)
    key: str | None = None
    sig: str | None = None


class TurnTimeout(Wire):
    type: Literal["turn_timeout"] = "turn_timeout"
    game_id: str
    seq: int


class RoundRevealed(Wire):
    """From the escrow: every choice of a closed round (openings are in the public record)."""

    type: Literal["round_revealed"] = "round_revealed"
    game_id: str
    round_id: str
    choices: dict[str, JsonValue]
    defaulted: list[str] = []


class SeedCommitted(Wire):
    type: Literal["seed_committed"] = "seed_committed"
    game_id: str
    commitment: str


class DrawMade(Wire):
    type: Literal["draw_made"] = "draw_made"
    game_id: str
    label: str
    values: list[int]


class EndGame(Wire):
    """An admin ends a running game (lobby -> adjudicator): the normal end path with the
    public outcome ``{"status": "aborted", "results": [], "reason": ..., "by": "admin"}``."""

    type: Literal["end_game"] = "end_game"
    game_id: str
    reason: Annotated[str, Field(min_length=1, max_length=200)]


class HandOver(Wire):
    """The lobby hands a running game's seat to a bot for the rest of the game (the player
    resigned, or its clock ran out at a table with ``on_expiry: "bot"``). ``from_player``:
    the player seated there now (a hand-over of a seat already handed over changes nothing);
    ``token``: the bot's seat token, sent on to the bot runner in a ``SeatBot`` once the
    hand-over is stored (so the bot plays a seat the game already gives it)."""

    type: Literal["hand_over"] = "hand_over"
    game_id: str
    seat: int
    from_player: str
    to: PlayerRef
    reason: HandOverReason
    token: str


AdjudicatorInput: TypeAlias = Annotated[
    CreateGame | SubmitAction | TurnTimeout | RoundRevealed | SeedCommitted | DrawMade
    | EndGame | HandOver,
    Field(discriminator="type"),
]
ADJUDICATOR_INPUT: TypeAdapter[AdjudicatorInput] = TypeAdapter(AdjudicatorInput)


# --- to the escrow ----------------------------------------------------------------------


class OpenRound(Wire):
    type: Literal["open_round"] = "open_round"
    game_id: str
    game: str  # which game's check_choice validates the slots ("" = platform round)
    round_id: str
    slots: list[SlotSpec]
    ordered: bool = False
    deadline_ms: int
    # a fixed-order round's time per slot, counted from when the slot's turn begins (P-S1,
    # docs/rulings-server.md): a seat that lets it pass defaults alone, the next seat's turn
    # begins; the round's deadline_ms stays the bound for the whole round
    slot_timeout_ms: int | None = None
    # seats handed to a bot: only the player the slot names may commit for them
    handed: list[int] = []
    # the game's pace: a turn-based round tells the turns readers each seat's commit
    # (``SeatCommitted``); a real-time one does not ("My games" follows a live game's start,
    # players and end only: services/adjudicator/turns.py). None (a round opened without
    # it): told, as for a turn-based round
    pace: Pace | None = None


class SlotHandedOver(Wire):
    """From the adjudicator: a round still open when its seat was handed over; the seat's
    uncommitted slots are the new player's from now on (its commit, its signature)."""

    type: Literal["slot_handed_over"] = "slot_handed_over"
    game_id: str
    round_id: str
    seat: int
    player_id: str


class CommitChoice(Wire):
    """A seat's commitment with its opening sealed to the escrow (``sealed``, v2);
    ``seat``/``player_id`` stamped by the gateway. ``choice``/``nonce`` in clear only in
    entries the previous release (v1) left pending in esc:commits, accepted during the
    upgrade window (tests/upgrade); the gateway never writes them."""

    type: Literal["commit_choice"] = "commit_choice"
    cmd_id: str
    game_id: str
    seat: int
    player_id: str
    round_id: str
    slot: str
    commitment: str
    sealed: str | None = None
    choice: JsonValue = None
    nonce: str | None = None
    public: dict[str, JsonValue] | None = None
    key: str | None = None  # the client's signature, passed through (checked by the escrow)
    sig: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> CommitChoice:
        if (self.sealed is None) == (self.nonce is None) or (
                self.sealed is not None and self.choice is not None):
            raise ValueError("give either sealed (v2) or choice and nonce (v1)")
        return self


EscrowInput: TypeAlias = Annotated[OpenRound | CommitChoice | SlotHandedOver,
                                   Field(discriminator="type")]
ESCROW_INPUT: TypeAdapter[EscrowInput] = TypeAdapter(EscrowInput)


# --- to the dealer ----------------------------------------------------------------------


class CommitSeed(Wire):
    type: Literal["commit_seed"] = "commit_seed"
    game_id: str
    rules_version: str


class DrawRequest(Wire):
    type: Literal["draw_request"] = "draw_request"
    game_id: str
    label: str
    draw: Literal["shuffle", "below", "dice"]
    n: int
    count: int = 1
    client_seeds: list[str] = []  # hex, in seat order (from the entropy round's reveal)


class RevealSeed(Wire):
    type: Literal["reveal_seed"] = "reveal_seed"
    game_id: str


DealerInput: TypeAlias = Annotated[CommitSeed | DrawRequest | RevealSeed,
                                   Field(discriminator="type")]
DEALER_INPUT: TypeAdapter[DealerInput] = TypeAdapter(DealerInput)


# --- game over, bots, gateway fan-out ---------------------------------------------------


class HandedSeat(Part):
    """A seat handed to a bot during the game: who sat there, who finished it, why."""

    seat: int
    player: PlayerRef
    to: PlayerRef
    reason: HandOverReason


class GameEnded(Wire):
    type: Literal["game_ended"] = "game_ended"
    game_id: str
    game: str
    players: list[PlayerRef]  # as seated at the start
    outcome: dict[str, JsonValue]
    # seats handed to a bot: ranked last for ratings (docs/playing.md, "Resigning")
    handed_over: list[HandedSeat] = []


class SeatBot(Wire):
    type: Literal["seat_bot"] = "seat_bot"
    game_id: str
    seat: int
    player_id: str
    token: str
    kind: str = "heuristic"


class Notify(Wire):
    """To every gateway replica: a game's streams have new entries."""

    type: Literal["notify"] = "notify"
    game_id: str


class Reply(Wire):
    """To every gateway replica: the answer to one player's command (sender only)."""

    type: Literal["reply"] = "reply"
    game_id: str
    player_id: str
    cmd_id: str
    ok: bool
    code: str | None = None
    message: str = ""
    commitment: str | None = None
    round_id: str | None = None
    slot: str | None = None


class ChatNotify(Wire):
    """To every gateway replica (from a gateway): a chat channel has new messages."""

    type: Literal["chat_notify"] = "chat_notify"
    room: str  # the channel's stream key (shared/protocol/streams.py: Keys.chat, table_chat)


class MutesChanged(Wire):
    """To every gateway replica (from a gateway): a player changed whom it mutes."""

    type: Literal["mutes_changed"] = "mutes_changed"
    player_id: str


GatewayInput: TypeAlias = Annotated[Notify | Reply | ChatNotify | MutesChanged,
                                    Field(discriminator="type")]
GATEWAY_INPUT: TypeAdapter[GatewayInput] = TypeAdapter(GatewayInput)
