"""Whose move a game waits for, its clocks by pace and each seat's time bank (pure: part of the
adjudicator's functional core, ``now_ms`` an argument).

``track`` runs on every new document before its commit: it works out the seats the game now
waits for, keeps each one's ``since`` while it stays awaited, and answers the ``TurnsChanged``
(shared/protocol/turns.py) to append to the ``turns`` stream in the same atomic step: for a
turn-based game when that set (or a deadline) changed or the game ended; for a real-time game
only when it starts, changes players (a seat handed over) or ends. A real-time game's players
sit at its table, whose views say whom it waits for; following each live move for "My
games" would cost a live round about a third of its server CPU (docs/performance.md). A
turn-based game's end (``expires_ms``) moves on with every change: it lives as long as its
clocks let it, never past its cap.

A sealed round's entry names its ``round_id``: the escrow's ``SeatCommitted`` of that round takes
a committed seat off the readers' waits (shared/protocol/turns.py). The entry names seats,
players, the round id and times only: who is awaited is public (every view's node
says it), a sealed choice, a hand or a nonce never enters it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from shared.protocol.turns import TurnsChanged, Waiting

if TYPE_CHECKING:
    from services.adjudicator.core import GameDoc


class Awaited(BaseModel):
    """One seat a stored game waits for (the document's copy of a ``Waiting``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int
    since_ms: int
    deadline_ms: int | None = None


def longest_clock_ms(turn_timeout_ms: int, round_timeout_ms: int, time_bank_ms: int,
                     seats: int) -> int:
    """The longest a game may wait for anyone before a deadline moves it on: a turn with the
    whole time bank, or an ordered sealed round (each slot its own time, P-S1)."""
    return max(turn_timeout_ms + time_bank_ms, round_timeout_ms * (seats + 1))


def awaited_seats(node: dict[str, Any]) -> list[int]:
    """The seats a game waits for, from the public node its views carry (core.node_info,
    core.pre_game_node): a turn's seats, every slot of a sealed round (the client-seed round
    included), nobody for a draw, the setup or the end. Read from the views the commit writes
    anyway, so no second decode of the state."""
    if node.get("kind") == "turn":
        return sorted(set(node.get("seats", [])))
    if node.get("kind") == "simultaneous":
        return sorted({int(o["seat"]) for o in node.get("order", [])})
    return []


def track(before: GameDoc | None, doc: GameDoc, now_ms: int, node: dict[str, Any]
          ) -> tuple[GameDoc, TurnsChanged | None]:
    """``doc`` (the new GameDoc) with its ``waiting`` and, turn-based, its ``expires_ms`` brought
    up to date, and the ``TurnsChanged`` to publish with it (None: nothing changed for the
    readers). ``before``: the stored document (None for a new game); ``node``: the public node
    of the new document's views (``render_views(doc)[None]["node"]``)."""
    seats = awaited_seats(node) if doc.stage != "ended" else []
    had = {w.seat: w for w in (before.waiting if before is not None else [])}
    waiting = [Awaited(seat=s, since_ms=had[s].since_ms if s in had else now_ms,
                       deadline_ms=doc.deadline_ms) for s in seats]
    sealed = str(node["round_id"]) if node.get("kind") == "simultaneous" and seats \
        and node.get("round_id") is not None else None
    update: dict[str, Any] = {"waiting": waiting, "sealed_round": sealed}
    if doc.pace == "turn-based" and doc.stage != "ended" and doc.expires_cap_ms is not None:
        update["expires_ms"] = min(doc.expires_cap_ms, now_ms + doc.stall_ms)
    new = doc.model_copy(update=update)
    ended_now = new.stage == "ended" and (before is None or before.stage != "ended")
    if before is None or ended_now:
        return new, turns_of(new, now_ms)
    if doc.pace != "turn-based":  # a live game: its start, its players and its end only
        if [p.player_id for p in before.players] == [p.player_id for p in doc.players]:
            return new, None
    elif sealed == before.sealed_round and [
            w.model_dump() for w in waiting] == [w.model_dump() for w in before.waiting]:
        return new, None
    return new, turns_of(new, now_ms)


def turns_of(doc: GameDoc, at_ms: int) -> TurnsChanged:
    """The ``TurnsChanged`` the document implies (sent again on a redrive: readers keep the
    highest ``seq`` per game). A real-time game's names no waits: it is published only when
    the game starts, changes players or ends, so a wait in it would go stale (its players
    are at its table, whose every view names the seats it waits for)."""
    live = doc.pace != "turn-based"
    return TurnsChanged(
        game_id=doc.game_id, game=doc.game, pace=doc.pace, seq=doc.seq, at_ms=at_ms,
        players=[p.player_id for p in doc.players],
        waiting=[Waiting(seat=w.seat, player_id=doc.players[w.seat].player_id,
                         since_ms=w.since_ms, deadline_ms=w.deadline_ms)
                 for w in doc.waiting if 0 <= w.seat < len(doc.players) and not live],
        ended=doc.stage == "ended", round_id=None if live else doc.sealed_round)


# --- the time bank ---------------------------------------------------------------------------


def bank_for(doc: GameDoc, seats: list[int]) -> int:
    """The extra time a turn's deadline gets: the smallest bank left among its seats."""
    if not doc.bank:
        return 0
    return min((doc.bank[s] for s in seats if 0 <= s < len(doc.bank)), default=0)


def draw_bank(doc: GameDoc, seat: int, now_ms: int) -> GameDoc:
    """The document with ``seat``'s bank less the time its move took beyond the move's clock
    (the turn was armed at ``armed_ms``); only a seat the turn waited for draws on it."""
    if not doc.bank or doc.armed_ms is None or not 0 <= seat < len(doc.bank) \
            or seat not in {w.seat for w in doc.waiting}:
        return doc
    over = now_ms - doc.armed_ms - doc.turn_timeout_ms
    if over <= 0:
        return doc
    bank = list(doc.bank)
    bank[seat] = max(0, bank[seat] - over)
    return doc.model_copy(update={"bank": bank})


def empty_banks(doc: GameDoc, seats: set[int]) -> GameDoc:
    """The document with the late seats' banks spent (their deadline passed)."""
    if not doc.bank:
        return doc
    return doc.model_copy(update={"bank": [0 if i in seats else b
                                           for i, b in enumerate(doc.bank)]})
