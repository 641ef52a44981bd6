"""Lobby requests (gateway -> lobby, request/reply) and the table model.

``player_id``, ``name`` and ``session`` are stamped by the gateway from a verified access
token; ``agent`` (a short label of the client, from its User-Agent) and a password
sign-in's ``address`` (the client's address, services/gateway/edge/client_ip.py) too.
Accounts and sessions: services/lobby/accounts/.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, model_validator

from shared.protocol.base import Wire
from shared.protocol.internal import OnExpiry, PlayerRef
from shared.protocol.turns import Pace

Name = Annotated[str, Field(min_length=1, max_length=32)]  # the handle rules: shared/identity
Spectators: TypeAlias = Literal["anyone", "players"]  # who may watch the game

# --- pace: the longest clock a table may set (turn_timeout_ms, round_timeout_ms, time bank)
MAX_CLOCK_MS: dict[Pace, int] = {"real-time": 86_400_000,  # one day
                                 "turn-based": 1_209_600_000}  # 14 days


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
    # --- pace: how the table is played, and each seat's extra time beyond a move's clock
    pace: Pace = "real-time"
    time_bank_ms: int = 0
    on_expiry: OnExpiry = "default"  # "bot": a seat whose clock runs out goes to a bot


class _Req(Wire):
    player_id: str = ""
    name: str = ""
    session: str = ""  # the access token's session (stamped; "" for a bot's seat token)


Agent = Annotated[str, Field(max_length=80)]
Password = Annotated[str, Field(min_length=1, max_length=256)]
Reason = Annotated[str, Field(min_length=1, max_length=200)]
Credential = Annotated[dict[str, JsonValue], Field(description="the browser's "
                       "PublicKeyCredential as JSON (WebAuthn Level 3 toJSON())")]


class CreatePlayer(Wire):
    """A guest: one click, a session at once (refresh token + access token)."""

    op: Literal["create_player"] = "create_player"
    name: Name
    exact: bool = False  # refuse (lobby/name_taken) rather than take a "name#1234" display
    agent: Agent = ""


class Refresh(Wire):
    """Trade the session's refresh token for a new pair; the old one is spent (a second use
    revokes the session: ``auth/refresh_reused``)."""

    op: Literal["refresh"] = "refresh"
    refresh_token: Annotated[str, Field(min_length=1, max_length=200)]
    agent: Agent = ""


class RegisterSessionKey(Wire):
    """Register a session's public key: the key the client signs its acts
    and commits with. ``token`` is the client's own bearer access token (or a bot's seat
    token), passed through untouched: the LOBBY verifies it (the token's signature, its live
    session) and binds the key to the token's session and player, so a writer of the lobby's
    stream without a valid token binds nothing."""

    op: Literal["register_session_key"] = "register_session_key"
    token: Annotated[str, Field(min_length=1, max_length=4096)]
    key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    # a session's first key binds to it; a later one needs this: the session's current key's
    # signature (hex) over shared/runtime/session_keys.rekey_message(session, key)
    proof: Annotated[str | None, Field(pattern=r"^[0-9a-f]{128}$")] = None


class SignOut(_Req):
    op: Literal["sign_out"] = "sign_out"


class ListSessions(_Req):
    op: Literal["list_sessions"] = "list_sessions"


class RevokeSession(_Req):
    op: Literal["revoke_session"] = "revoke_session"
    session_id: Annotated[str, Field(min_length=1, max_length=64)]


class Me(_Req):
    op: Literal["me"] = "me"


class SetPassword(_Req):
    """Upgrade a guest to an account (same player id), or change the password
    (``current`` then required)."""

    op: Literal["set_password"] = "set_password"
    password: Password
    current: Password | None = None


class PasswordSignIn(Wire):
    op: Literal["password_sign_in"] = "password_sign_in"
    name: Name
    password: Password
    agent: Agent = ""
    # the client's address (stamped by the gateway): failures slow the address making them
    address: Annotated[str, Field(max_length=64)] = ""


class PasskeyRegisterBegin(_Req):
    op: Literal["passkey_register_begin"] = "passkey_register_begin"


class PasskeyRegisterFinish(_Req):
    op: Literal["passkey_register_finish"] = "passkey_register_finish"
    challenge_id: Annotated[str, Field(min_length=1, max_length=64)]
    credential: Credential
    label: Annotated[str, Field(max_length=40)] = ""


class PasskeySignInBegin(Wire):
    op: Literal["passkey_sign_in_begin"] = "passkey_sign_in_begin"
    name: Name | None = None  # None: a discoverable passkey chooses the account


class PasskeySignInFinish(Wire):
    op: Literal["passkey_sign_in_finish"] = "passkey_sign_in_finish"
    challenge_id: Annotated[str, Field(min_length=1, max_length=64)]
    credential: Credential
    agent: Agent = ""


class ExportData(_Req):
    op: Literal["export_data"] = "export_data"


class DeleteAccount(_Req):
    """Delete the player: ``confirm`` repeats the player's name."""

    op: Literal["delete_account"] = "delete_account"
    confirm: Annotated[str, Field(min_length=1, max_length=40)]


class AdminSuspend(_Req):
    op: Literal["admin_suspend"] = "admin_suspend"
    target: Annotated[str, Field(min_length=1, max_length=64)]
    reason: Reason
    suspended: bool = True  # False lifts a suspension


class AdminCloseTable(_Req):
    op: Literal["admin_close_table"] = "admin_close_table"
    table_id: str
    reason: Reason


class AdminEndGame(_Req):
    op: Literal["admin_end_game"] = "admin_end_game"
    game_id: Annotated[str, Field(min_length=1, max_length=64)]
    reason: Reason


class AdminAudit(_Req):
    op: Literal["admin_audit"] = "admin_audit"
    limit: Annotated[int, Field(ge=1, le=500)] = 100


class CreateTable(_Req):
    op: Literal["create_table"] = "create_table"
    game: str
    options: dict[str, JsonValue] = {}
    seats: Annotated[int, Field(ge=1, le=12)]
    public: bool = True
    spectators: Spectators | None = None  # None: "anyone" when public, else "players"
    client_entropy: bool = True
    turn_timeout_ms: Annotated[int, Field(ge=1_000, le=1_209_600_000)] | None = None
    round_timeout_ms: Annotated[int, Field(ge=1_000, le=1_209_600_000)] | None = None
    # --- pace: "turn-based" allows clocks up to 14 days (real-time: one day); the time bank
    # is extra time each seat may draw on when a move's clock runs out (0: none)
    pace: Pace = "real-time"
    time_bank_ms: Annotated[int, Field(ge=0, le=1_209_600_000)] = 0
    on_expiry: OnExpiry = "default"

    @model_validator(mode="after")
    def _clocks_fit_the_pace(self) -> CreateTable:
        cap = MAX_CLOCK_MS[self.pace]
        for name in ("turn_timeout_ms", "round_timeout_ms", "time_bank_ms"):
            value = getattr(self, name)
            if value is not None and value > cap:
                raise ValueError(f"{name}: at most {cap} ms for a {self.pace} table"
                                 + (" (turn-based allows 14 days)"
                                    if self.pace == "real-time" else ""))
        return self


class Resign(_Req):
    """A seated player leaves a running game: its seat goes to a bot for the rest of it."""

    op: Literal["resign"] = "resign"
    game_id: Annotated[str, Field(min_length=1, max_length=64)]


class HandOverSeat(Wire):
    """From the adjudicator (no reply): a seat's clock ran out at a table with
    ``on_expiry: "bot"``; the lobby seats a bot there as for a resignation."""

    op: Literal["hand_over_seat"] = "hand_over_seat"
    game_id: Annotated[str, Field(min_length=1, max_length=64)]
    seat: Annotated[int, Field(ge=0, le=11)]
    from_player: str


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
    # heuristic: the one-step bot; easy / normal / hard: the search bot at that level (time
    # per decision 0.15 / 0.5 / 2 s); random: uniformly random legal moves
    kind: Literal["heuristic", "easy", "normal", "hard", "random"] = "heuristic"


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


class MyGames(_Req):
    """The caller's games ("My games"): waiting for it first, with their clocks."""

    op: Literal["my_games"] = "my_games"


AccountRequest: TypeAlias = (
    Refresh | SignOut | ListSessions | RevokeSession | Me | SetPassword | PasswordSignIn
    | PasskeyRegisterBegin | PasskeyRegisterFinish | PasskeySignInBegin | PasskeySignInFinish
    | ExportData | DeleteAccount | RegisterSessionKey | AdminSuspend | AdminCloseTable
    | AdminEndGame | AdminAudit)
ACCOUNT_OPS: frozenset[str] = frozenset(
    m.model_fields["op"].default for m in AccountRequest.__args__)  # type: ignore[attr-defined]
LobbyRequest: TypeAlias = Annotated[
    CreatePlayer | CreateTable | JoinTable | LeaveTable | AddBot | StartTable | KickPlayer
    | GetTable | ListTables | AccountRequest | MyGames | Resign | HandOverSeat,
    Field(discriminator="op")]
LOBBY_REQUEST: TypeAdapter[LobbyRequest] = TypeAdapter(LobbyRequest)
