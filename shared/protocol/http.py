"""The gateway's HTTP response bodies (openapi.json): one model per route.

Every model names the fields the server sends and their types. They allow extra fields
(``extra="allow"``): a server may add a field without breaking a client generated from an
older document, and the gateway validates its answers against these models
(``response_model``) without dropping what they do not name. Refusals are ``Refusal``
(4xx/5xx, docs/protocol.md "Errors")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from shared.protocol.internal import PlayerRef
from shared.protocol.lobby import Spectators
from shared.protocol.turns import Pace, Waiting


class Body(BaseModel):
    model_config = ConfigDict(extra="allow")


class Answer(Body):
    """A lobby answer: ``ok`` is true on every 200."""

    ok: bool = True


class Refusal(BaseModel):
    """Every 4xx/5xx body."""

    ok: Literal[False] = False
    code: str = Field(description="machine-readable, e.g. lobby/not_found")
    message: str


class Health(Body):
    ok: bool
    instance: str | None = None
    reason: str | None = None


class GameInfo(Body):
    name: str
    title: str
    min_seats: int
    max_seats: int
    rules_version: str
    options: dict[str, JsonValue] = Field(description="JSON Schema of the variant options")


class Games(Body):
    games: list[GameInfo]


class Components(Body):
    reconstructed: list[JsonValue] = []


class Rules(Body):
    game: str
    title: str
    markdown: str
    reconstructed: list[JsonValue] = []


class Session(Answer):
    """A signed-in session: the access token (minutes) and the refresh token that renews it."""

    player_id: str
    name: str
    token: str
    access_expires_ms: int
    refresh_token: str
    session_id: str
    account: bool = False


class PasskeyOptions(Answer):
    challenge_id: str
    options: dict[str, JsonValue] = Field(description="WebAuthn options (JSON)")


class SignedOut(Answer):
    signed_out: bool


class SessionInfo(Body):
    session_id: str
    created_ms: int
    used_ms: int
    agent: str = ""
    current: bool = False


class Sessions(Answer):
    sessions: list[SessionInfo]


class SessionKeyRegistered(Answer):
    """A session key bound to the player (POST /api/session-keys)."""

    player_id: str
    key: str
    expires_ms: int


class Revoked(Answer):
    revoked: str


class PasskeyInfo(Body):
    credential_id: str
    label: str = ""
    created_ms: int | None = None
    used_ms: int | None = None


class Me(Answer):
    player_id: str
    name: str
    account: bool = False
    password: bool = False
    passkeys: list[PasskeyInfo] = []
    admin: bool = False
    session_id: str = ""
    created_ms: int | None = None


class AccountSet(Answer):
    player_id: str
    account: bool
    name: str | None = None
    credential_id: str | None = None


class Export(Answer):
    profile: dict[str, JsonValue]
    password: bool
    passkeys: list[PasskeyInfo]
    sessions: list[SessionInfo]
    ratings: dict[str, JsonValue]
    history: list[str]
    # the notifier's: address, turn mails, webhook URL (null if it did not answer)
    notifications: dict[str, JsonValue] | None = None


class Deleted(Answer):
    deleted: str


class Suspended(Answer):
    player_id: str
    suspended: bool
    sessions_revoked: int | list[str] | None = None


class GameEnding(Answer):
    game_id: str
    ending: bool
    reason: str = ""


class AuditEntries(Answer):
    entries: list[dict[str, JsonValue]]


class TableView(Body):
    """A table as the caller may see it (the invite code only for its host and players)."""

    table_id: str
    game: str
    options: dict[str, JsonValue] = {}
    seats: int
    players: list[PlayerRef] = []
    host: str
    public: bool = True
    invite: str = ""
    spectators: Spectators = "anyone"
    kicked: list[str] = []
    status: Literal["open", "started", "closed"] = "open"
    game_id: str | None = None
    client_entropy: bool = True
    turn_timeout_ms: int
    round_timeout_ms: int
    created_ms: int
    updated_ms: int = 0
    pace: Pace = "real-time"  # turn-based: clocks up to 14 days per move
    time_bank_ms: int = 0
    on_expiry: Literal["default", "bot"] = "default"
    # the invite as a link to the page (shown with the invite: host and seated players only)
    invite_url: str | None = None


class TableAnswer(Answer):
    table: TableView
    game_id: str | None = None
    reason: str | None = None


class ResignAnswer(Answer):
    """A resignation: the seat a bot now plays for the rest of the game."""

    game_id: str
    seat: int
    resigned: bool = True
    bot: Seat
    reason: Literal["resigned", "expired"] = "resigned"


class Tables(Answer):
    tables: list[TableView]
    next_cursor: str | None = None
    live_games: list[str] = Field([], description="ids of games being played")
    live_next_cursor: str | None = None


class Seat(Body):
    player_id: str
    name: str
    bot: str | None = None


class Match(Body):
    game_id: str
    game: str
    players: list[Seat]
    stage: str | None = None
    options: dict[str, JsonValue] = {}
    table_id: str | None = None


class Record(Body):
    game_id: str
    game: str
    players: list[Seat]
    ended: bool
    record: list[dict[str, Any]]
    log: list[dict[str, Any]] | None = None


class NarratedRecord(Record):
    """The record route's answer: the record document with one sentence per ``event`` entry
    of the record (shared/rules/narrate.py, the log's own wording), null for the others. The
    sentences are not part of the record: verification reads ``record`` alone."""
    narration: list[str | None] = []


class Audit(Record):
    audit: int
    options: dict[str, JsonValue] = {}
    rules_version: str | None = None
    reveals: list[dict[str, Any]] = []
    escrow_key: str | None = None
    # the session keys each seat's signed commands use (seat as decimal text -> keys, sorted)
    signatures: dict[str, list[str]] = {}


class ReplayStep(Answer):
    game_id: str
    game: str
    step: int
    steps: int
    seat: int | None = None
    view: dict[str, Any]


class MatchChat(Answer):
    game_id: str
    chat: dict[str, list[dict[str, JsonValue]]]


class Result(Body):
    """The final standings (scoring): players, ranks or scores and the game."""

    game_id: str
    players: list[dict[str, JsonValue]] = []


class LeaderboardEntry(Body):
    player_id: str
    rating: float
    name: str | None = None
    games: int | None = None
    wins: int | None = None
    bot: JsonValue = None


class Leaderboard(Body):
    game: str
    entries: list[LeaderboardEntry]


class History(Body):
    player_id: str
    games: list[str]


class Notifications(Answer):
    """A player's notification settings (``GET``/``PUT /api/me/notifications``)."""

    email: str | None = None
    email_verified: bool = False
    email_turns: bool = True
    webhook_url: str | None = None
    mail_enabled: bool = Field(False, description="false: this server mails nothing")
    turn_mail_delay_s: float = 300.0
    verification_sent: bool | None = None
    webhook_secret: str | None = Field(None, description="the webhook's signing secret, in "
                                       "the answer that set the URL only")


class Unsubscribed(Answer):
    player_id: str


REFUSALS: dict[int | str, dict[str, Any]] = {
    code: {"model": Refusal, "description": what} for code, what in (
        (400, "malformed or refused request"), (401, "no or bad access token"),
        (403, "not allowed"), (404, "no such thing"), (409, "not in this state"),
        (429, "rate limited"), (503, "unavailable; retry"))}


def typed(model: type[BaseModel]) -> dict[str, Any]:
    """A route's decorator arguments: its 200 body is ``model`` (validated, sent as the
    handler built it: unset defaults are not added) and its refusals are ``Refusal``."""
    return {"response_model": model, "response_model_exclude_unset": True,
            "responses": REFUSALS}


class MyGame(Body):
    """One game of the caller in "My games" (GET /api/me/games, the ``my_game`` frame)."""

    game_id: str
    game: str
    pace: Pace = "real-time"
    seq: int = Field(description="the game's state sequence number at this entry")
    at_ms: int = Field(description="when the game last changed who it waits for")
    players: list[str] = []
    seat: int | None = Field(None, description="the caller's seat (None: several or none)")
    waiting: list[Waiting] = []
    my_turn: bool = Field(False, description="the game waits for the caller")
    since_ms: int | None = Field(None, description="since when it waits for the caller")
    deadline_ms: int | None = Field(None, description="when the caller's clock runs out")
    ended: bool = False


class MyGames(Answer):
    games: list[MyGame] = Field(description="games waiting for the caller first (oldest "
                                "wait first), then running ones, then recently ended ones")
    now_ms: int = Field(description="the server's clock: time left = deadline_ms - now_ms")
