"""Empire Hall Python SDK (asyncio): lobby calls over HTTP, play over one WebSocket.

    async with Client("http://127.0.0.1:8000") as c:
        await c.sign_in("ada")
        table = await c.create_table("empire", seats=3, options={"version": "beginner"})
        await c.add_bot(table["table_id"]); await c.add_bot(table["table_id"])
        game_id = await c.start(table["table_id"])
        game = await c.watch(game_id)
        async for view in game.updates(): ...

Commitments and nonces are computed here (``commit``), and every reveal is checked against
the commitment received before the round closed (``GameSession.verify_reveals``); once a game
is over ``Client.verify_game`` re-checks the dealer's proofs and every sealed round from the
public record (``shared.fairness.verify``).

The client resumes after a disconnect: it reconnects, watches every game again from its last
view seq and record id (the gateway sends only what was missed, or the latest snapshot with
``gap`` set when the resume point is too old) and re-sends every command still awaiting its
reply under the same ``cmd_id`` (commands are idempotent by id, so nothing applies twice).

Watches are sent at protocol version 3 (issue 25): one ``view`` frame per state change with
the record entries up to it in ``records``, other entries in ``records`` frames; the session
applies each entry exactly as a version 2 ``record`` frame (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.typing import Subprotocol

from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import seal_opening
from shared.fairness.verify import verify
from shared.protocol.versions import PROTOCOL_VERSION, SEALED_COMMIT_VERSION
from shared.runtime.session_keys import SessionKey

# refusals that say the message was not taken and may be sent again as it is
IDEMPOTENT_TRIES = 3  # a request safe to repeat, sent again after a dead connection
TRANSIENT_CODES = frozenset({"message/unavailable", "message/rate_limited"})
WATCH_AGAIN = TRANSIENT_CODES | {"game/not_found"}  # a refused watch that may pass if sent again
# a refused watch that may pass is sent again after WATCH_BACKOFF_S[n] (the last one repeats),
# at most WATCH_TRIES times in a row for a game (a frame of the game resets the count); then
# the refusal stays in ``GameSession.rejections`` for the caller
WATCH_BACKOFF_S = (0.2, 0.4, 0.8, 1.6, 3.2, 5.0)
WATCH_TRIES = 12
# CANCEL_SAFE: the SDK's waits use ``asyncio.timeout``, never ``asyncio.wait_for``: on Python
# 3.11 wait_for returns the awaited result when a cancel lands after it completed but before
# the waiting task resumed, and the cancelled task plays on (a bot seat the runner stopped, a
# player a test stopped: tests/clients/test_sdk_cancel.py)
KEPT_RECEIPTS = 100  # unwatched games whose receipts a Client keeps for verify_game


class ApiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def transient(self) -> bool:
        """The server did not take the message (a backend hiccup, a rate limit): retry."""
        return self.code in TRANSIENT_CODES


@dataclass
class Receipt:
    """What a seat keeps after committing: enough to prove its choice later."""

    round_id: str
    slot: str
    choice: Any
    nonce: str
    commitment: str
    acknowledged: bool = False
    escrow_key: str | None = None  # the key the opening was sealed to (verify --receipts)


@dataclass
class GameSession:
    game_id: str
    client: Client
    seat: int | None = None
    view: dict[str, Any] | None = None  # the latest ViewUpdate message
    seq: int = -1
    record: list[dict[str, Any]] = field(default_factory=list)
    record_id: str = "0-0"
    events: list[dict[str, Any]] = field(default_factory=list)
    receipts: dict[str, Receipt] = field(default_factory=dict)  # "<round>/<slot>" -> receipt
    commitments_seen: dict[str, str] = field(default_factory=dict)  # before close
    escrow_keys: dict[str, str] = field(default_factory=dict)  # round -> its round_opened key
    closed_rounds: set[str] = field(default_factory=set)
    rejections: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    seen_seqs: list[int] = field(default_factory=list)  # every view seq received, in order
    resumed_from: list[int] = field(default_factory=list)  # after_seq of each resume
    gaps: int = 0  # resumes answered with a fresh snapshot (the resume point was too old)
    # the seq of the latest view that brought a public event: the record (which carries
    # every public event with its seq) has caught up with the game once it reaches it
    public_event_seq: int = -1

    @property
    def ended(self) -> bool:
        return bool(self.view and self.view["node"].get("kind") == "terminal")

    def on_view(self, msg: dict[str, Any]) -> None:
        if msg["seq"] <= self.seq and not msg.get("gap"):
            return
        self.view, self.seq = msg, msg["seq"]
        self.seat = msg["seat"]
        self.seen_seqs.append(msg["seq"])
        if msg.get("gap"):
            self.gaps += 1
        self.events.extend(msg.get("events", []))
        if any(not e.get("private") for e in msg.get("events", ())):
            self.public_event_seq = msg["seq"]
        self.changed.set()

    def on_record(self, msg: dict[str, Any]) -> None:
        if _stream_id(msg["id"]) <= _stream_id(self.record_id):
            return  # already held (a repeated watch or resume)
        entry = msg["entry"]
        self.record.append(entry)
        self.record_id = msg["id"]
        if entry.get("type") == "committed":
            self.commitments_seen[f"{entry['round_id']}/{entry['slot']}"] = entry["commitment"]
        elif entry.get("type") == "round_opened" and isinstance(entry.get("escrow_key"), str):
            self.escrow_keys[entry["round_id"]] = entry["escrow_key"]
        elif entry.get("type") == "round_closed":
            self.closed_rounds.add(entry["round_id"])
        self.changed.set()

    def committed_slots(self, round_id: str) -> dict[str, dict[str, Any]]:
        """slot -> the record entry that made the slot done, for a round: ``committed``, or
        ``slot_timed_out`` when a fixed-order slot let its own time pass (ruling P-S1; its
        ``public`` is the default's). Public parts included."""
        return {
            e["slot"]: e
            for e in self.record
            if e.get("type") in ("committed", "slot_timed_out") and e["round_id"] == round_id
        }

    def verify_reveals(self) -> list[str]:
        """Check every revealed choice against the commitment seen before close.

        Returns a list of problems (empty = all verified)."""
        problems = []
        for e in self.record:
            if e.get("type") != "round_revealed":
                continue
            for o in e["openings"]:
                key = f"{e['round_id']}/{o['slot']}"
                seen = self.commitments_seen.get(key)
                if o["defaulted"]:
                    if seen is not None:
                        problems.append(f"{key}: committed but shown as defaulted")
                    continue
                c = commitment(
                    self.game_id, e["round_id"], o["slot"], o["seat"], o["choice"], o["nonce"]
                )
                if seen is None or c != seen or c != o["commitment"]:
                    problems.append(f"{key}: reveal does not match the commitment")
                mine = self.receipts.get(key)
                if mine is not None and (mine.commitment != c or mine.choice != o["choice"]):
                    problems.append(f"{key}: my choice was altered")
        return problems

    def receipts_doc(self) -> dict[str, Any]:
        """This seat's receipts in the format ``python -m shared.fairness.verify --receipts
        FILE`` reads (docs/fairness.md): only commits the escrow acknowledged (an unanswered
        one may never have been stored)."""
        return {"game_id": self.game_id, "seat": self.seat, "receipts": [
            {"round_id": r.round_id, "slot": r.slot, "choice": r.choice, "nonce": r.nonce,
             "commitment": r.commitment, "escrow_key": r.escrow_key}
            for r in self.receipts.values() if r.acknowledged]}

    def save_receipts(self, path: str | Path) -> Path:
        """Write ``receipts_doc()`` to ``path`` (for ``verify --receipts``); returns it."""
        out = Path(path)
        out.write_text(json.dumps(self.receipts_doc(), indent=1), encoding="utf-8")
        return out

    async def wait(self, timeout: float = 30.0) -> None:
        """Until something changed since the last wait returned (TimeoutError after
        ``timeout`` s). The flag is consumed on waking, never cleared before waiting: an update
        that arrived while the caller was busy (e.g. its own commit's record entry, which
        makes its next fixed-order slot its turn) wakes the next wait at once instead of
        being lost for the whole timeout."""
        async with asyncio.timeout(timeout):  # see CANCEL_SAFE
            await self.changed.wait()
        self.changed.clear()

    async def wait_until(self, cond: Callable[[], bool], timeout: float = 30.0) -> None:
        """Wait for updates until ``cond()`` holds; TimeoutError after ``timeout`` s."""

        async def loop() -> None:
            while not cond():
                with contextlib.suppress(TimeoutError):
                    await self.wait(0.5)

        async with asyncio.timeout(timeout):  # see CANCEL_SAFE
            await loop()

    async def act(self, action: Any, expected_seq: int | None = None) -> str:
        return await self.client.act(
            self.game_id, action, self.seq if expected_seq is None else expected_seq,
            seat=self.seat,
        )

    async def commit(
        self, round_id: str, slot: str, choice: Any, public: dict[str, Any] | None = None
    ) -> Receipt:
        return await self.client.commit(self, round_id, slot, choice, public)


async def _escrow_key(game: GameSession, round_id: str, timeout_s: float = 10.0) -> str:
    """The escrow key of a round, from its ``round_opened`` record entry. That entry may
    arrive a little after the view that offers the round: until it does, the key of the
    game's latest round (the escrow has one key; were it another, the escrow would refuse
    the commit with escrow/bad_seal, and ``verify --receipts`` shows the key used); in the
    game's first round, wait for it (escrow/no_round if it never comes)."""
    for _ in range(int(timeout_s / 0.02)):
        key = game.escrow_keys.get(round_id)
        if key is None and game.escrow_keys:
            key = next(reversed(game.escrow_keys.values()))
        if key is not None:
            return key
        await asyncio.sleep(0.02)
    raise ApiError("escrow/no_round", f"round {round_id} was never opened by the escrow")


def _stream_id(sid: str) -> tuple[int, int]:
    ms, _, n = sid.partition("-")
    return int(ms), int(n or 0)


@dataclass
class Verification:
    """The outcome of ``Client.verify_game``: problems (empty = verified) and counts."""

    game_id: str
    problems: list[str]
    counts: dict[str, int]
    record: dict[str, Any]

    receipts: dict[str, Any] | None = None  # the seat's receipts checked, if any

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def receipt_problems(self) -> list[str]:
        """The problems where the record disagrees with the seat's own receipts: the escrow
        changed one of its choices (docs/fairness.md, "receipt")."""
        return [p for p in self.problems if p.startswith("receipt: ")]


@dataclass
class ChatLog:
    """One chat channel this client joined (``Client.chat_join``): a table's (``table``) or a
    game's (``seats`` for a seat, ``spectators`` for anyone else). Messages are
    ``{id, player_id, name, text, ts}``, oldest first, without the players this client muted.
    Chat never touches a GameSession: a bot playing a seat never sees it."""

    table_id: str | None
    game_id: str | None
    channel: str | None = None  # set by the history
    messages: list[dict[str, Any]] = field(default_factory=list)
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, line: dict[str, Any]) -> None:
        if any(m["id"] == line["id"] for m in self.messages[-200:]):
            return  # a second history after a reconnect
        self.messages.append({k: line[k] for k in ("id", "player_id", "name", "text", "ts")})
        self.changed.set()

    def texts(self) -> list[str]:
        return [m["text"] for m in self.messages]

    async def wait_for(self, cond: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until ``cond()`` holds; TimeoutError after ``timeout`` s."""

        async def loop() -> None:
            while not cond():
                self.changed.clear()
                if cond():
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):  # see CANCEL_SAFE
                        await self.changed.wait()

        async with asyncio.timeout(timeout):
            await loop()


def _chat_key(table_id: str | None, game_id: str | None) -> str:
    return f"t:{table_id}" if table_id is not None else f"g:{game_id}"


@dataclass
class _Pending:
    """A command awaiting its first reply; ``gen`` = the connection it was last sent on."""

    text: str
    future: asyncio.Future[dict[str, Any]]
    gen: int = -1
    resent: int = 0


class Client:
    reconnect_delays: tuple[float, ...] = (0.1, 0.2, 0.5, 1, 2, 2, 2, 5, 5, 5)

    def __init__(self, base_url: str, token: str | None = None, capture: bool = False,
                 http: httpx.AsyncClient | None = None, compression: bool = True,
                 keepalive: bool = True, open_timeout_s: float = 10.0) -> None:
        """``http``: an HTTP client to share (e.g. one per bot runner for all its seats: each
        httpx client holds a TLS context of ~0.8 MiB); it is not closed with this client.
        ``compression``: permessage-deflate on the WebSocket (its zlib state costs ~300 KiB
        per connection; off for many connections in one process). ``keepalive``: WebSocket
        pings every 20 s (off for a load driver, whose loop may be busier than the pings'
        timeout). ``open_timeout_s``: the WebSocket's opening handshake."""
        self.base_url = base_url.rstrip("/")
        self._ping_interval: float | None = 20.0 if keepalive else None
        self._open_timeout_s = open_timeout_s
        self.captured: list[str] | None = [] if capture else None  # raw frames, for audits
        self.token = token  # the access token (minutes) or a bot's seat token
        self.refresh_token: str | None = None  # spent on every refresh, replaced
        self.access_expires_ms = 0  # 0: unknown (a token handed in): never refreshed early
        self.session_id: str | None = None
        self.player_id: str | None = None
        self.name: str | None = None
        self._refreshing: asyncio.Lock | None = None
        # this session's Ed25519 key: every act and commit is signed with it (registered
        # through the lobby for the player first: docs/protocol.md "Signed commands")
        self.session_key = SessionKey()
        self._key_registered = ""
        self._own_http = http is None
        self.http = http if http is not None else httpx.AsyncClient(base_url=self.base_url,
                                                                     timeout=30.0)
        self._compression: str | None = "deflate" if compression else None
        self.ws: Any = None
        self.games: dict[str, GameSession] = {}
        self.chats: dict[str, ChatLog] = {}  # "t:<table>" / "g:<game>" -> a joined channel
        self.muted: set[str] = set()  # players whose messages this player does not see
        self._chat_cmds: set[str] = set()  # chat commands awaiting their reply
        self.kept_receipts: dict[str, dict[str, Any]] = {}  # receipts of unwatched games
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._pending: dict[str, _Pending] = {}  # cmd_id -> command awaiting its reply
        self._resent: set[str] = set()  # cmd ids sent again after a reconnect
        self._gen = 0  # bumped on every (re)connection
        self.reconnects = 0
        self.resent = 0  # commands sent again after a reconnect
        # a watch refused by a refusal that may pass, sent again (``_watch_again``)
        self._rewatch: dict[str, asyncio.Task[None]] = {}  # game id -> the pending re-send
        self._rewatch_tries: dict[str, int] = {}  # game id -> refusals in a row
        self.rewatched = 0  # watches sent again after such a refusal

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- HTTP ----------------------------------------------------------------------------

    async def _call(self, method: str, path: str, body: Any = None, auth: bool = True,
                    idempotent: bool = False) -> Any:
        """One request; with a session, the access token is refreshed first when it is about
        to expire, and once more if the server says it expired. ``idempotent``: a request
        that may safely be sent again (as every GET is)."""
        if auth:
            await self.fresh_token()
        try:
            return await self._call_once(method, path, body, auth, idempotent)
        except ApiError as exc:
            if exc.code != "auth/expired_token" or not auth or not self.refresh_token:
                raise
        await self.refresh()
        return await self._call_once(method, path, body, auth, idempotent)

    async def _call_once(self, method: str, path: str, body: Any, auth: bool,
                         idempotent: bool = False) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token and auth else {}
        again = method == "GET" or idempotent
        for attempt in range(IDEMPOTENT_TRIES if again else 1):
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
                break
            except httpx.TransportError:
                # the connection died under the request (a keep-alive connection the server
                # closed as we reused it, a gateway replica killed mid-request): a request
                # that is safe to repeat goes again, on a new connection
                if not again or attempt == IDEMPOTENT_TRIES - 1:
                    raise
                await asyncio.sleep(0.2 * attempt)
        try:
            data = r.json()
        except ValueError:  # not JSON (a proxy's or a crashed server's error page)
            raise ApiError(f"http/{r.status_code}", r.text[:200]) from None
        if r.status_code >= 400 or (isinstance(data, dict) and data.get("ok") is False):
            code = data.get("code", f"http/{r.status_code}") if isinstance(data, dict) else \
                f"http/{r.status_code}"
            message = data.get("message", "") if isinstance(data, dict) else ""
            raise ApiError(code, message)
        return data

    # -- accounts and sessions (docs/protocol.md "Accounts and sessions") ---------------

    def _session(self, data: dict[str, Any]) -> dict[str, Any]:
        self.token, self.player_id, self.name = data["token"], data["player_id"], data["name"]
        self.refresh_token = data.get("refresh_token")
        self.access_expires_ms = int(data.get("access_expires_ms") or 0)
        self.session_id = data.get("session_id")
        return dict(data)

    async def sign_in(self, name: str) -> dict[str, Any]:
        """A new guest player, signed in (one click on the web page)."""
        return self._session(await self._call("POST", "/api/players", {"name": name},
                                              auth=False))

    async def sign_in_password(self, name: str, password: str) -> dict[str, Any]:
        """Sign in to an account (from any device): the same player as before."""
        return self._session(await self._call("POST", "/api/session/password",
                                              {"name": name, "password": password},
                                              auth=False))

    async def set_password(self, password: str, current: str | None = None) -> dict[str, Any]:
        """Make this guest an account (same player id: rating, history, games stay), or
        change the password (``current`` needed)."""
        body: dict[str, Any] = {"password": password}
        if current is not None:
            body["current"] = current
        return dict(await self._call("POST", "/api/account/password", body))

    async def passkey_register(self, authenticator: Callable[[dict[str, Any]], dict[str, Any]],
                               label: str = "") -> dict[str, Any]:
        """Register a passkey: ``authenticator(options)`` answers the WebAuthn creation
        options with the credential JSON (a browser does this with navigator.credentials)."""
        begin = await self._call("POST", "/api/account/passkeys/begin")
        cred = authenticator(begin["options"])
        return dict(await self._call("POST", "/api/account/passkeys/finish",
                                     {"challenge_id": begin["challenge_id"], "credential": cred,
                                      "label": label}))

    async def sign_in_passkey(self, authenticator: Callable[[dict[str, Any]], dict[str, Any]],
                              name: str | None = None) -> dict[str, Any]:
        begin = await self._call("POST", "/api/session/passkey/begin",
                                 {"name": name} if name else {}, auth=False)
        cred = authenticator(begin["options"])
        return self._session(await self._call(
            "POST", "/api/session/passkey/finish",
            {"challenge_id": begin["challenge_id"], "credential": cred}, auth=False))

    async def refresh(self) -> dict[str, Any]:
        """A new access token (and refresh token: the old one is spent)."""
        if self._refreshing is None:
            self._refreshing = asyncio.Lock()
        async with self._refreshing:
            if not self.refresh_token:
                raise ApiError("auth/refresh_invalid", "no session to refresh")
            data = await self._call_once("POST", "/api/session/refresh",
                                         {"refresh_token": self.refresh_token}, False)
            return self._session(data)

    async def fresh_token(self, margin_s: float = 30.0) -> None:
        """Refresh the access token if it expires within ``margin_s``."""
        if self.refresh_token and self.access_expires_ms and \
                self.access_expires_ms - time.time() * 1000 < margin_s * 1000:
            before = self.refresh_token
            if self._refreshing is not None and self._refreshing.locked():
                async with self._refreshing:
                    pass
            if self.refresh_token == before and self.access_expires_ms - time.time() * 1000 \
                    < margin_s * 1000:
                await self.refresh()

    async def sign_out(self) -> None:
        """End this session (its refresh token, access tokens and sockets)."""
        await self._call("POST", "/api/session/sign-out")
        self.token = self.refresh_token = self.session_id = None

    async def sessions(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/api/sessions"))["sessions"])

    async def revoke_session(self, session_id: str) -> dict[str, Any]:
        return dict(await self._call("DELETE", f"/api/sessions/{session_id}"))

    async def me(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/api/me"))

    async def export_data(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/api/account/export"))

    async def delete_account(self, confirm: str) -> dict[str, Any]:
        """Delete this player (``confirm``: its name)."""
        return dict(await self._call("DELETE", "/api/account", {"confirm": confirm}))

    async def admin_suspend(self, player_id: str, reason: str,
                            suspended: bool = True) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/players/{player_id}/suspend",
                                     {"reason": reason, "suspended": suspended}))

    async def admin_close_table(self, table_id: str, reason: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/tables/{table_id}/close",
                                     {"reason": reason}))

    async def admin_end_game(self, game_id: str, reason: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/games/{game_id}/end",
                                     {"reason": reason}))

    async def admin_audit(self, limit: int = 100) -> list[dict[str, Any]]:
        return list((await self._call("GET", f"/api/admin/audit?limit={limit}"))["entries"])

    async def games_catalog(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/api/games"))["games"])

    async def game_components(self, game: str) -> dict[str, Any]:
        """A game's public component data (maps, cards and their text, the Engine's wheels):
        ``GET /api/games/{game}/components``, from the engines' data modules."""
        return dict(await self._call("GET", f"/api/games/{game}/components"))

    async def create_table(
        self, game: str, seats: int, options: dict[str, Any] | None = None, **extra: Any
    ) -> dict[str, Any]:
        body = {"game": game, "seats": seats, "options": options or {}, **extra}
        return dict((await self._call("POST", "/api/tables", body))["table"])

    async def list_tables(self, limit: int | None = None, cursor: str | None = None,
                          live_limit: int | None = None,
                          live_cursor: str | None = None) -> dict[str, Any]:
        """One page of open tables and one of live games, newest first; the next pages with
        ``cursor=answer["next_cursor"]`` / ``live_cursor=answer["live_next_cursor"]``."""
        params = {k: v for k, v in (("limit", limit), ("cursor", cursor),
                                    ("live_limit", live_limit), ("live_cursor", live_cursor))
                  if v is not None}
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return dict(await self._call("GET", "/api/tables" + (f"?{query}" if query else "")))

    async def join(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/join"))["table"])

    async def join_invite(self, code: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/invites/{code}/join"))["table"])

    async def add_bot(self, table_id: str, kind: str = "heuristic") -> dict[str, Any]:
        return dict(
            (await self._call("POST", f"/api/tables/{table_id}/bots", {"kind": kind}))["table"]
        )

    async def start(self, table_id: str) -> str:
        return str((await self._call("POST", f"/api/tables/{table_id}/start"))["game_id"])

    async def get_table(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("GET", f"/api/tables/{table_id}"))["table"])

    async def leave(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/leave"))["table"])

    async def match(self, game_id: str) -> dict[str, Any]:
        """A game's metadata: game name, options, players (seat order), stage."""
        return dict(await self._call("GET", f"/api/matches/{game_id}"))

    async def record(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/record"))

    async def audit(self, game_id: str) -> dict[str, Any]:
        """A finished game's audit bundle (verify takes it as it is); ApiError
        ``replay/not_ended`` before the game has ended."""
        return dict(await self._call("GET", f"/api/matches/{game_id}/audit"))

    async def board_at(self, game_id: str, step: int, seat: int | None = None) -> dict[str, Any]:
        """A finished game's board after ``step`` moves (0 = the setup), as ``seat`` saw it
        (None: the spectator); ApiError ``replay/not_ended`` before the game has ended."""
        params = f"?step={step}" + ("" if seat is None else f"&seat={seat}")
        return dict(await self._call("GET", f"/api/matches/{game_id}/replay{params}"))

    async def result(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/result"))

    async def leaderboard(self, game: str) -> list[dict[str, Any]]:
        return list((await self._call("GET", f"/api/leaderboard/{game}"))["entries"])

    async def verify_game(self, game_id: str, wait: float = 10.0,
                          receipts: dict[str, Any] | None = None) -> Verification:
        """Fetch the public record and re-check it with ``shared.fairness.verify``: the dealer's
        seed commitment and every draw, every sealed choice against the commitment published
        before its round closed, the commitments roots and defaults, and that the adjudicator
        applied exactly what was revealed. The dealer reveals its seed just after the end, so
        this waits up to ``wait`` seconds for the reveal (a game still in play reports that
        the seed is not revealed yet). With this client's session of the game (it played a
        seat) or ``receipts`` given (a receipts file's content), the seat's receipts are checked
        too: its choices reached the record unchanged (``Verification.receipt_problems``)."""
        if receipts is None:
            session = self.games.get(game_id)
            kept = session.receipts_doc() if session else self.kept_receipts.get(game_id)
            receipts = kept if kept and kept["receipts"] else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            doc = await self.record(game_id)
            revealed = any(e.get("type") == "seed_revealed" for e in doc["record"])
            if (revealed and doc.get("log") is not None) or loop.time() >= deadline:
                break
            await asyncio.sleep(0.1)
        problems, counts = verify(doc, receipts)
        return Verification(game_id=game_id, problems=problems, counts=counts, record=doc,
                            receipts=receipts)

    # -- WebSocket -----------------------------------------------------------------------

    async def _open_socket(self) -> Any:
        """A socket authenticated by the ``Sec-WebSocket-Protocol`` offer (never the URL)."""
        await self.fresh_token()
        offer = [Subprotocol("empire.v1"), Subprotocol(f"empire.token.{self.token}")]
        return await websockets.connect(self.base_url.replace("http", "ws", 1) + "/ws",
                                        max_size=2**24, compression=self._compression,
                                        subprotocols=offer, ping_interval=self._ping_interval,
                                        open_timeout=self._open_timeout_s)

    async def connect(self, read: bool = True) -> None:
        """Open the socket and wait for the gateway's welcome. ``read=False``: the caller
        reads the socket itself (``raw_frames``; a load driver that reacts to every frame):
        nothing is dispatched to game sessions and a lost connection is not resumed."""
        self.ws = await self._open_socket()
        hello = json.loads(await self.ws.recv())
        if hello.get("type") != "welcome" and hello.get("code") == "auth/expired_token" \
                and self.refresh_token:
            await self.ws.close()
            await self.refresh()
            self.ws = await self._open_socket()
            hello = json.loads(await self.ws.recv())
        if hello.get("type") != "welcome":
            raise ApiError(hello.get("code", "auth/invalid_token"), hello.get("message", ""))
        self.player_id = hello["player_id"]
        if read:
            self._reader = asyncio.create_task(self._read())

    async def raw_frames(self) -> AsyncIterator[str | bytes]:
        """Every frame of a socket opened with ``connect(read=False)``, as it arrives, until
        the connection closes."""
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                yield raw

    async def send_raw(self, text: str) -> None:
        """Send one frame as it is (a socket opened with ``connect(read=False)``)."""
        await self.ws.send(text)

    async def _read(self) -> None:
        while not self._closing:
            try:
                async for raw in self.ws:
                    if self.captured is not None:
                        self.captured.append(raw)
                    self._dispatch(json.loads(raw))
            except (websockets.ConnectionClosed, OSError):
                pass
            if self._closing:
                return
            await self._reconnect()

    async def _reconnect(self) -> None:
        """Resume every watched game from its last seq and record id, then re-send every
        command still awaiting its reply (same cmd_id: applied at most once)."""
        for delay in self.reconnect_delays:
            await asyncio.sleep(delay)
            if self._closing:
                return
            with contextlib.suppress(OSError, asyncio.TimeoutError,
                                     websockets.WebSocketException, ApiError):
                ws = await self._open_socket()
                hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if hello.get("type") != "welcome":
                    await ws.close()
                    if hello.get("code") == "auth/revoked_session":
                        break  # signed out elsewhere: reconnecting cannot help
                    continue
                for g in list(self.games.values()):
                    g.resumed_from.append(g.seq)
                    await ws.send(
                        json.dumps(
                            {
                                "type": "watch",
                                "v": PROTOCOL_VERSION,
                                "game_id": g.game_id,
                                "after_seq": g.seq,
                                "after_record": g.record_id,
                            }
                        )
                    )
                for log in list(self.chats.values()):  # the history fills any gap
                    await ws.send(json.dumps({"type": "chat_join", "table_id": log.table_id,
                                              "game_id": log.game_id}))
                self.ws = ws
                self._gen += 1
                self.reconnects += 1
                for cmd_id, p in list(self._pending.items()):
                    if p.gen != self._gen and not p.future.done():
                        p.gen = self._gen
                        p.resent += 1
                        self._resent.add(cmd_id)
                        self.resent += 1
                        await ws.send(p.text)
                return
        raise ConnectionError("could not reconnect")

    async def disconnect(self) -> None:
        """Drop the socket abruptly, as a network failure would (the client reconnects and
        resumes on its own). For tests and for moving to another network."""
        if self.ws is not None:
            transport = getattr(self.ws, "transport", None)
            if transport is not None:
                transport.abort()
            else:  # pragma: no cover - every websockets connection has a transport
                await self.ws.close()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind in ("chat", "chat_history", "chat_mutes"):
            self._on_chat(msg)
            return
        game = self.games.get(msg.get("game_id", ""))
        if kind == "view" and game is not None:
            self._rewatch_tries.pop(game.game_id, None)
            # protocol v3: the record entries up to this state change ride in the view
            # (applied first: they happened first); below v3 they come as ``record`` frames
            for item in msg.get("records", ()):
                game.on_record(item)
            game.on_view(msg)
        elif kind == "record" and game is not None:
            self._rewatch_tries.pop(game.game_id, None)
            game.on_record(msg)
        elif kind == "records" and game is not None:  # v3: entries of no view, in order
            self._rewatch_tries.pop(game.game_id, None)
            for item in msg["records"]:
                game.on_record(item)
        elif kind == "rejected" and not msg.get("cmd_id") and game is not None \
                and msg.get("code") in WATCH_AGAIN and self._watch_again(game):
            return  # a refused watch (no cmd_id, the game named): sent again shortly
        elif kind in ("accepted", "rejected", "committed"):
            cmd = msg.get("cmd_id")
            if cmd:
                self._pending.pop(cmd, None)
            if (
                kind == "rejected"
                and cmd in self._resent
                and msg.get("code") == "command/duplicate"
            ):
                return  # the first copy was applied before the disconnect: not a refusal
            if kind == "committed" and game is not None:
                r = game.receipts.get(f"{msg['round_id']}/{msg['slot']}")
                # the receipt of this very commitment: a late receipt for an earlier attempt
                # at the slot (one that went unanswered) must not vouch for a later one
                if r is not None and r.commitment == msg.get("commitment"):
                    r.acknowledged = True
            if (
                kind == "rejected"
                and game is not None
                and cmd not in self._chat_cmds  # chat never touches a GameSession
                and not (cmd in self._resent and cmd in self.replies)
            ):
                # (a re-sent command's first reply goes to its caller only: ``commit`` tells
                # a copy accepted before the drop from a real refusal)
                game.rejections.append(msg)
                game.changed.set()
            fut = self.replies.pop(cmd, None) if cmd else None
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def _send(self, msg: dict[str, Any]) -> None:
        """Send one message. While the connection is down a command waits in ``_pending``
        (the reconnect re-sends it); any other message waits for the new connection."""
        text = json.dumps(msg)
        cmd = msg.get("cmd_id")
        pending = self._pending.get(cmd) if isinstance(cmd, str) else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while True:
            ws, gen = self.ws, self._gen
            if pending is not None:
                if pending.gen == gen:
                    return  # the reconnect already sent it on this connection
                pending.gen = gen
            try:
                await ws.send(text)
                return
            except websockets.ConnectionClosed:
                if self._closing:
                    raise
                if pending is not None and pending.gen == gen:
                    pending.gen = -1
                if self._gen == gen:
                    if pending is not None:
                        return  # the reconnect will send it
                    while self._gen == gen and not self._closing:
                        if loop.time() > deadline:
                            raise
                        await asyncio.sleep(0.05)

    async def watch(self, game_id: str, timeout: float = 30.0) -> GameSession:
        if self.ws is None:
            await self.connect()
        game = self.games.setdefault(game_id, GameSession(game_id=game_id, client=self))
        # watching again resumes from what is held (nothing is delivered twice)
        await self._send(
            {
                "type": "watch",
                "v": PROTOCOL_VERSION,
                "game_id": game_id,
                "after_seq": game.seq,
                "after_record": game.record_id,
            }
        )
        # a refusal that may pass (a game not yet visible, the connection's rate, a server
        # hiccup: answered with the game's id) is sent again by ``_watch_again``: waiting out
        # the timeout would leave a bot's seat idle for a round
        deadline = asyncio.get_running_loop().time() + timeout
        while game.view is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await game.wait(1.0)
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"no view of {game_id}")
        return game

    def _watch_again(self, game: GameSession) -> bool:
        """A watch of ``game`` was refused by a refusal that may pass: send it again, from
        where the session stands, after a backoff. Any watch, ``watch()``'s own or one the
        reconnect sent (a gateway cut off from storage refuses the resumed watch: without
        this the seat never hears of its game again and its turns time out). False when the
        tries are spent: the caller gets the refusal."""
        gid = game.game_id
        if gid in self._rewatch:
            return True  # a re-send is already on its way
        tries = self._rewatch_tries.get(gid, 0)
        if tries >= WATCH_TRIES or self._closing:
            return False
        self._rewatch_tries[gid] = tries + 1
        delay = WATCH_BACKOFF_S[min(tries, len(WATCH_BACKOFF_S) - 1)]
        self._rewatch[gid] = asyncio.get_running_loop().create_task(
            self._send_watch_later(game, delay))
        return True

    async def _send_watch_later(self, game: GameSession, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
        finally:  # from here a new refusal schedules a new re-send
            self._rewatch.pop(game.game_id, None)
        if self._closing or self.games.get(game.game_id) is not game:
            return  # closed, or unwatched meanwhile
        self.rewatched += 1
        with contextlib.suppress(websockets.ConnectionClosed):  # the reconnect resumes it
            await self._send({"type": "watch", "v": PROTOCOL_VERSION, "game_id": game.game_id,
                              "after_seq": game.seq, "after_record": game.record_id})

    async def _request(
        self, msg: dict[str, Any], timeout: float = 30.0
    ) -> tuple[dict[str, Any], _Pending]:
        """Send a command and wait for its first reply (re-sent after a reconnect)."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        cmd_id = msg["cmd_id"]
        pending = _Pending(text=json.dumps(msg), future=fut)
        self.replies[cmd_id] = fut
        self._pending[cmd_id] = pending
        try:
            await self._send(msg)
            async with asyncio.timeout(timeout):  # see CANCEL_SAFE
                return await fut, pending
        finally:
            self._pending.pop(cmd_id, None)
            self.replies.pop(cmd_id, None)

    async def unwatch(self, game_id: str) -> None:
        """Stop following a game (its session is dropped; its receipts are kept for
        ``verify_game``, the last ``KEPT_RECEIPTS`` games')."""
        session = self.games.get(game_id)
        self._rewatch_tries.pop(game_id, None)
        if session is not None and session.receipts:
            self.kept_receipts[game_id] = session.receipts_doc()
            while len(self.kept_receipts) > KEPT_RECEIPTS:
                del self.kept_receipts[next(iter(self.kept_receipts))]
        if self.games.pop(game_id, None) is not None and self.ws is not None:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._send({"type": "unwatch", "game_id": game_id})

    async def _command(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a command frame as given; an act or commit without a ``sig`` is signed first
        (as this player's seat in the game) when it can be: this client signs every move it
        sends (docs/protocol.md "Signed commands")."""
        return (await self._request(await self._signed(msg)))[0]

    async def _signed(self, msg: dict[str, Any]) -> dict[str, Any]:
        kind, gid, cmd = msg.get("type"), msg.get("game_id"), msg.get("cmd_id")
        if kind not in ("act", "commit") or "sig" in msg or not isinstance(gid, str) \
                or not isinstance(cmd, str):
            return msg
        try:
            seat = await self._seat_of(gid)
        except ApiError:
            return msg  # no such game: refused as such, unsigned
        if seat is None:
            return msg  # not seated: refused as such
        try:
            if kind == "act" and "action" in msg:
                sig = self.session_key.sign_act(gid, seat, cmd, msg["action"],
                                                msg.get("expected_seq"))
            elif kind == "commit" and all(isinstance(msg.get(k), str) for k in (
                    "round_id", "slot", "commitment", "sealed")):
                sig = self.session_key.sign_commit(gid, seat, cmd, msg["round_id"], msg["slot"],
                                                   msg["commitment"], msg["sealed"],
                                                   msg.get("public"))
            else:
                return msg
        except (ValueError, TypeError):
            return msg  # nothing canonical to sign: the gateway refuses it anyway
        await self.register_session_key()
        return {**msg, **sig}

    async def register_session_key(self) -> None:
        """Register this client's session key for its player (once per player): the lobby
        checks the token and binds the key; acts and commits are then signed with it."""
        if self._key_registered and self._key_registered == (self.player_id
                                                             or self._key_registered):
            return
        # the same key registered twice is one registration: safe to send again
        answer = await self._call("POST", "/api/session-keys", {"key": self.session_key.public},
                                  idempotent=True)
        self._key_registered = str(answer["player_id"])

    async def _seat_of(self, game_id: str) -> int | None:
        game = self.games.get(game_id)
        if game is not None and game.seat is not None:
            return game.seat
        if self.player_id is None:
            return None
        players = (await self.match(game_id)).get("players", [])
        return next((i for i, p in enumerate(players) if p.get("player_id") == self.player_id),
                    None)

    async def act(self, game_id: str, action: Any, expected_seq: int | None,
                  seat: int | None = None) -> str:
        """Take an action, signed with this session's key for ``seat`` (the game's seat map
        when not given)."""
        cmd_id = "c" + secrets.token_hex(8)
        frame: dict[str, Any] = {
            "type": "act",
            "cmd_id": cmd_id,
            "game_id": game_id,
            "expected_seq": expected_seq,
            "action": action,
        }
        if seat is None:
            seat = await self._seat_of(game_id)
        if seat is not None:  # (no seat: refused as seat/not_seated)
            await self.register_session_key()
            frame.update(self.session_key.sign_act(game_id, seat, cmd_id, action, expected_seq))
        reply = await self._command(frame)
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return cmd_id

    async def commit(
        self,
        game: GameSession,
        round_id: str,
        slot: str,
        choice: Any,
        public: dict[str, Any] | None = None,
    ) -> Receipt:
        """Commit a sealed choice; the opening (choice and nonce) leaves this process only
        sealed to the escrow's key from the round's ``round_opened`` entry."""
        if game.seat is None:
            raise ApiError("seat/not_seated", "spectators cannot commit")
        escrow_key = await _escrow_key(game, round_id)
        nonce = new_nonce()
        c = commitment(game.game_id, round_id, slot, game.seat, choice, nonce)
        sealed = seal_opening(escrow_key, game.game_id, round_id, slot, game.seat, choice, nonce)
        receipt = Receipt(round_id=round_id, slot=slot, choice=choice, nonce=nonce, commitment=c,
                          escrow_key=escrow_key)
        key = f"{round_id}/{slot}"
        game.receipts[key] = receipt
        cmd_id = "k" + secrets.token_hex(8)
        try:
            await self.register_session_key()
            reply, pending = await self._request(
                {
                    "type": "commit",
                    "v": SEALED_COMMIT_VERSION,
                    "cmd_id": cmd_id,
                    "game_id": game.game_id,
                    "round_id": round_id,
                    "slot": slot,
                    "commitment": c,
                    "sealed": sealed,
                    "public": public,
                    **self.session_key.sign_commit(game.game_id, game.seat, cmd_id, round_id,
                                                   slot, c, sealed, public),
                }
            )
        except BaseException:
            self._forget(game, key, receipt)  # no answer: the slot may be committed again
            raise
        if reply["type"] == "rejected":
            if (
                pending.resent
                and game.commitments_seen.get(key) == c
                and reply["code"] in ("escrow/already_committed", "escrow/closed")
            ):
                receipt.acknowledged = True  # the first copy was accepted before the drop
                return receipt
            self._forget(game, key, receipt)  # refused: the slot may be committed again
            raise ApiError(reply["code"], reply.get("message", ""))
        return receipt

    @staticmethod
    def _forget(game: GameSession, key: str, receipt: Receipt) -> None:
        """Drop the receipt of a commit that was not acknowledged (a refusal, a transient
        ``message/unavailable``, no answer), so callers that skip slots holding a receipt
        commit that slot again instead of waiting for the round's deadline."""
        if game.receipts.get(key) is receipt and not receipt.acknowledged:
            del game.receipts[key]

    # -- table talk (docs/protocol.md, "Table talk") --------------------------------------

    def _on_chat(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "chat_mutes":
            self.muted = set(msg["muted"])
            return
        log = self.chats.get(_chat_key(msg.get("table_id"), msg.get("game_id")))
        if log is None:
            return
        if msg["type"] == "chat_history":
            log.channel = msg["channel"]
            self.muted = set(msg.get("muted", []))
            for line in msg["messages"]:
                log.add(line)
            log.joined.set()
            log.changed.set()
        else:
            log.add(msg)

    async def chat_join(self, table_id: str | None = None, game_id: str | None = None,
                        timeout: float = 30.0) -> ChatLog:
        """Follow a table's chat (``table_id``) or a game's (``game_id``); returns the channel
        once its history arrived. ApiError with the refusal (``chat/not_member``, …)."""
        if self.ws is None:
            await self.connect()
        key = _chat_key(table_id, game_id)
        log = self.chats.get(key) or ChatLog(table_id=table_id, game_id=game_id)
        self.chats[key] = log
        log.joined.clear()
        cmd_id = "j" + secrets.token_hex(8)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[cmd_id] = fut
        self._chat_cmds.add(cmd_id)
        try:
            await self._send({"type": "chat_join", "cmd_id": cmd_id, "table_id": table_id,
                              "game_id": game_id})
            joined: asyncio.Future[Any] = asyncio.ensure_future(log.joined.wait())
            done, _ = await asyncio.wait([joined, fut], timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            joined.cancel()
        finally:
            self.replies.pop(cmd_id, None)
            self._chat_cmds.discard(cmd_id)
        if fut in done and fut.result().get("type") == "rejected":
            self.chats.pop(key, None)
            reply = fut.result()
            raise ApiError(reply["code"], reply.get("message", ""))
        if not log.joined.is_set():
            raise TimeoutError(f"no chat history for {key}")
        return log

    async def chat_leave(self, table_id: str | None = None, game_id: str | None = None) -> None:
        self.chats.pop(_chat_key(table_id, game_id), None)
        with contextlib.suppress(websockets.ConnectionClosed):
            await self._send({"type": "chat_leave", "table_id": table_id, "game_id": game_id})

    async def _chat_command(self, msg: dict[str, Any]) -> str:
        if self.ws is None:
            await self.connect()
        self._chat_cmds.add(msg["cmd_id"])
        try:
            reply = await self._command(msg)
        finally:
            self._chat_cmds.discard(msg["cmd_id"])
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return str(msg["cmd_id"])

    async def chat(self, text: str, table_id: str | None = None, game_id: str | None = None,
                   channel: str | None = None, cmd_id: str | None = None) -> str:
        """Post to a table's chat or a game's channel (``channel`` defaults to the one joined,
        else ``table`` / ``seats``). Returns the message id (``cmd_id``; the same id twice is
        refused ``chat/duplicate``); ApiError on a refusal."""
        joined = self.chats.get(_chat_key(table_id, game_id))
        ch = channel or (joined.channel if joined and joined.channel else None) or (
            "table" if table_id is not None else "seats")
        return await self._chat_command({"type": "chat", "cmd_id": cmd_id or
                                         "m" + secrets.token_hex(8), "channel": ch,
                                         "table_id": table_id, "game_id": game_id,
                                         "text": text})

    async def chat_mute(self, player_id: str, muted: bool = True) -> None:
        """Hide (or show again) a player's messages, for this player only, in every chat."""
        await self._chat_command({"type": "chat_mute", "cmd_id": "u" + secrets.token_hex(8),
                                  "player_id": player_id, "muted": muted})
        (self.muted.add if muted else self.muted.discard)(player_id)

    async def chat_report(self, msg_id: str, table_id: str | None = None,
                          game_id: str | None = None, channel: str | None = None,
                          reason: str = "") -> None:
        """Report a message (its ``id``) of a channel this player reads to the operators."""
        joined = self.chats.get(_chat_key(table_id, game_id))
        ch = channel or (joined.channel if joined and joined.channel else None) or (
            "table" if table_id is not None else "seats")
        await self._chat_command({"type": "chat_report", "cmd_id": "r" + secrets.token_hex(8),
                                  "channel": ch, "table_id": table_id, "game_id": game_id,
                                  "msg_id": msg_id, "reason": reason})

    async def close(self) -> None:
        self._closing = True
        for task in list(self._rewatch.values()):
            task.cancel()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._own_http:
            await self.http.aclose()


async def updates(game: GameSession) -> AsyncIterator[dict[str, Any]]:
    """Yield each new view of a game until it ends."""
    last = -1
    while True:
        if game.view is not None and game.seq != last:
            last = game.seq
            yield game.view
            if game.ended:
                return
        with contextlib.suppress(asyncio.TimeoutError):
            await game.wait(1.0)
