"""The lobby's functional core: table rules (who may join, leave, add a bot, start), idle
closing, the per-player quotas' bookkeeping and the listing's pages. Pure: no I/O, no clock
(``now_ms`` is an argument)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, JsonValue, ValidationError

from shared.protocol.internal import PlayerRef
from shared.protocol.lobby import Table
from shared.rules import registry
from shared.rules.api import Game
from shared.runtime.jsonutil import dumps


class LobbyError(Exception):
    """A refusal: its ``code`` for programs, its message a sentence for people, saying what
    happened and what to do next (the web page shows it as it is)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


NO_TABLE = "There is no such table (it may have closed): pick one from the lobby's list."


def check_new_table(game: str, seats: int, options: dict[str, JsonValue]) -> None:
    try:
        g = registry.get(game)
    except registry.UnknownGame as exc:
        raise LobbyError("lobby/bad_request",
                         f"There is no game called {game[:40]!r} here: choose one from the "
                         "list.") from exc
    if not g.min_seats <= seats <= g.max_seats:
        raise LobbyError("lobby/bad_request",
                         f"{g.title} is played by {g.min_seats} to {g.max_seats} players: "
                         "choose a number of seats in that range.")
    check_options_strictly(g, options)
    try:
        g.setup(dict(options), seats)
    except ValueError as exc:
        raise LobbyError("lobby/bad_request",
                         f"These options do not fit {g.title} ({exc}): change them and "
                         "create the table again.") from exc


def check_options_strictly(g: Game, options: dict[str, JsonValue]) -> None:
    """The options exactly as their model declares them, as JSON: no ``"5"``, ``5.0`` or
    ``true`` where an integer is declared (the engines' own parsing is lax, so that games
    already stored keep replaying; a new table's options are stored as given)."""
    model = getattr(g, "Options", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return
    try:
        model.model_validate_json(dumps(options), strict=True)
    except ValidationError as exc:
        why = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}"
                        for e in exc.errors(include_url=False))
        raise LobbyError("lobby/bad_request",
                         f"These options do not fit {g.title} ({why[:300]}): change them "
                         "and create the table again.") from None


def _must_be_open(t: Table) -> None:
    if t.status == "closed":
        raise LobbyError("lobby/closed", "This table was closed after standing idle: create "
                         "a new table or join another one.")
    if t.status != "open":
        raise LobbyError("lobby/already_started", "This table's game has already started: "
                         "watch it from the lobby, or join another table.")


def seated(t: Table, player_id: str) -> bool:
    return any(p.player_id == player_id for p in t.players)


def join(t: Table, player: PlayerRef, by_invite: bool = True) -> Table:
    """``by_invite``: the player came with the table's invite (a private table's only door).
    A seated player joining again changes nothing, also once the table started (its invite
    link opened again leads to the table, and from there to its game)."""
    if seated(t, player.player_id):
        return t
    _must_be_open(t)
    if player.player_id in t.kicked:
        raise LobbyError("lobby/kicked", "The host removed you from this table, so you "
                         "cannot join it again: join another table or create your own.")
    if not t.public and not by_invite:
        raise LobbyError("lobby/invite_required", "This table is private: ask its host for "
                         "the invite code, then join with it under Join by invite.")
    if len(t.players) >= t.seats:
        raise LobbyError("lobby/table_full", "This table is full: join another table or "
                         "create your own.")
    return t.model_copy(update={"players": [*t.players, player]})


def leave(t: Table, player_id: str, now_ms: int) -> Table:
    """The player's seat is freed. A leaving host hands the table to the next seated human;
    with none left the table closes."""
    _must_be_open(t)
    rest = [p for p in t.players if p.player_id != player_id]
    if player_id != t.host:
        return t.model_copy(update={"players": rest})
    heir = next((p for p in rest if not p.bot), None)
    if heir is None:
        return t.model_copy(update={"players": rest, "status": "closed", "updated_ms": now_ms})
    return t.model_copy(update={"players": rest, "host": heir.player_id})


def kick(t: Table, host_id: str, target: str) -> Table:
    """The host removes a seated player (or bot) before the start; a human may not return."""
    if t.host != host_id:
        raise LobbyError("lobby/not_host", "Only the table's host can remove a player.")
    _must_be_open(t)
    if target == host_id:
        raise LobbyError("lobby/bad_request", "The host cannot remove themselves: leave the "
                         "table instead.")
    gone = next((p for p in t.players if p.player_id == target), None)
    if gone is None:
        raise LobbyError("lobby/not_seated", "That player is not at this table any more: "
                         "refresh the table.")
    kicked = t.kicked if gone.bot else [*t.kicked, target][-64:]
    return t.model_copy(update={"players": [p for p in t.players if p.player_id != target],
                                "kicked": kicked})


def for_viewer(t: Table, player_id: str | None) -> dict[str, Any]:
    """The table as ``player_id`` may see it: the invite only for the host and seated players
    (None: an anonymous listing, no invite); the kicked list only for the host."""
    doc = t.model_dump()
    if player_id is None or (player_id != t.host and not seated(t, player_id)):
        doc["invite"] = ""
    if player_id != t.host:
        doc["kicked"] = []
    return doc


def start(t: Table, player_id: str) -> Table:
    if t.host != player_id:
        raise LobbyError("lobby/not_host", "Only the table's host can start the game: wait "
                         "for them to start it.")
    _must_be_open(t)
    g = registry.get(t.game)
    if not g.min_seats <= len(t.players) <= g.max_seats:
        raise LobbyError("lobby/bad_request",
                         f"{g.title} needs {g.min_seats} to {g.max_seats} seated players: add "
                         "a bot or wait for more players to join.")
    return t.model_copy(update={"status": "started"})


def started_by(t: Table, player_id: str) -> bool:
    """The table was started by ``player_id`` (its host) and has its game id: a second start
    from the host finishes that start (a retry after a lost reply or a failed step)."""
    return t.status == "started" and t.host == player_id and t.game_id is not None


def touched(t: Table, now_ms: int) -> Table:
    """The table as changed now (its idle clock restarts)."""
    return t.model_copy(update={"updated_ms": now_ms})


def last_change(t: Table) -> int:
    return t.updated_ms or t.created_ms


def close_if_idle(t: Table, now_ms: int, idle_ms: int) -> Table:
    """Closed when still open and unchanged for ``idle_ms``; otherwise unchanged."""
    if t.status != "open" or now_ms - last_change(t) < idle_ms:
        return t
    return t.model_copy(update={"status": "closed", "updated_ms": now_ms})


def bot_name(t: Table, kind: str) -> str:
    """A bot's name in words, numbered within the table: "Heuristic bot", then
    "Heuristic bot 2", "Hard bot". Only the shown name: its player id stays the bot's own.
    Humans may not take such a name (shared/identity/handles.py is_bot_like)."""
    n = 1 + sum(1 for p in t.players if p.bot == kind)
    return f"{kind.capitalize()} bot" + (f" {n}" if n > 1 else "")


def bots(t: Table) -> int:
    return sum(1 for p in t.players if p.bot)


def listed(t: Table) -> bool:
    """Shown in the public listing: open, public, with a free seat."""
    return t.status == "open" and t.public and len(t.players) < t.seats


# --- quotas ---------------------------------------------------------------------------
#
# A player's reservations live in two Redis hashes (services/lobby/store.py): open tables it
# hosts and running games it started, each field "<bots>:<since_ms>". The Lua step checks
# and reserves atomically; these functions decide how stale reservations are put right.

RESERVATION_GRACE_MS = 60_000  # a reservation younger than this may still be being written


def reservation(bots: int, since_ms: int) -> str:
    return f"{bots}:{since_ms}"


def parse_reservation(raw: str) -> tuple[int, int]:
    n, _, since = raw.partition(":")
    return int(n or 0), int(since.removesuffix(":t") or 0)  # ":t": a turn-based game


@dataclass
class Reconcile:
    """What to change in a player's reservations: fields to drop, fields to rewrite."""

    drop_tables: list[str] = field(default_factory=list)
    drop_games: list[str] = field(default_factory=list)
    set_tables: dict[str, str] = field(default_factory=dict)


def reconcile(tables: Mapping[str, str], games: Mapping[str, str],
              docs: Mapping[str, Table | None], game_over: Mapping[str, bool | None],
              now_ms: int) -> Reconcile:
    """``tables``/``games``: the reservations; ``docs``: each reserved table's document (None:
    missing); ``game_over``: each reserved game, True over, False running, None unknown (its
    metadata missing). A reservation goes when its table is no longer open or its game is over;
    a missing one only once older than the grace (it may still be being written); an open
    table's bot count follows the table."""
    out = Reconcile()
    for tid, raw in tables.items():
        n, since = parse_reservation(raw)
        doc = docs.get(tid)
        if doc is None:
            if now_ms - since > RESERVATION_GRACE_MS:
                out.drop_tables.append(tid)
        elif doc.status != "open":
            out.drop_tables.append(tid)
        elif bots(doc) != n:
            out.set_tables[tid] = reservation(bots(doc), since)
    for gid, raw in games.items():
        _, since = parse_reservation(raw)
        over = game_over.get(gid)
        if over or (over is None and now_ms - since > RESERVATION_GRACE_MS):
            out.drop_games.append(gid)
    return out


QUOTA_MESSAGES = {
    "open_tables": "You already have {limit} open tables, the most one player may have: "
                   "start or leave one of them first.",
    "running_games": "You already have {limit} running games, the most one player may have: "
                     "finish one of them first, then start this one.",
    "turn_based_games": "You already have {limit} running turn-based games, the most one "
                        "player may have: finish one of them first, then start this one.",
    "bot_seats": "Your open tables and running games already have {limit} bot seats, the "
                 "most one player may have: finish a game or remove a bot first.",
}


def quota_error(which: str, limit: int) -> LobbyError:
    """The quota refusal: the sentence names the quota in words ("open tables")."""
    return LobbyError("lobby/quota", QUOTA_MESSAGES[which].format(limit=limit))


# --- the listing ------------------------------------------------------------------------


def cursor_of(score: int, member: str) -> str:
    return f"{score}:{member}"


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    if not cursor:
        return None
    score, _, member = cursor.partition(":")
    return int(score), member


def after_cursor(entries: Iterable[tuple[str, int]],
                 cursor: tuple[int, str] | None) -> list[tuple[str, int]]:
    """Index entries (member, score), newest first (score desc, then member desc, the order
    of ZREVRANGEBYSCORE), strictly after ``cursor``."""
    if cursor is None:
        return list(entries)
    score, member = cursor
    return [(m, s) for m, s in entries if s < score or (s == score and m < member)]


@dataclass
class Page:
    tables: list[dict[str, Any]]
    next_cursor: str | None
    stale: list[str]  # index members whose table is gone or no longer listed


def page(entries: Sequence[tuple[str, int]], docs: Mapping[str, Table | None], limit: int,
         per_host: int, exhausted: bool) -> Page:
    """One listing page from index entries (newest first) and their documents: at most
    ``limit`` tables and at most ``per_host`` of any one host. ``exhausted``: ``entries``
    reach the end of the index. ``next_cursor`` is None on the last page."""
    out: list[dict[str, Any]] = []
    stale: list[str] = []
    per: dict[str, int] = {}
    last: tuple[str, int] | None = None
    for member, score in entries:
        if len(out) >= limit:
            return Page(out, cursor_of(last[1], last[0]) if last else None, stale)
        last = (member, score)
        doc = docs.get(member)
        if doc is None or not listed(doc):
            stale.append(member)
            continue
        if per.get(doc.host, 0) >= per_host:
            continue  # this host has its share of the page
        per[doc.host] = per.get(doc.host, 0) + 1
        out.append(for_viewer(doc, None))
    more = not exhausted and last is not None
    return Page(out, cursor_of(last[1], last[0]) if more and last else None, stale)
