"""Whose move each game is waiting for, as the adjudicator publishes it.

For a turn-based game the adjudicator appends one ``TurnsChanged`` to the ``TURNS`` stream
whenever the set of seats it waits for changes (a turn passes, a sealed round opens or closes,
the game ends). A sealed round's commits go to the escrow, not the adjudicator: the escrow
appends one ``SeatCommitted`` when it accepts a seat's commit, and the readers stop waiting for
that seat in that round (``round_id`` matches the game's latest ``TurnsChanged``; a later
``TurnsChanged`` of a higher seq replaces both). A real-time game's entries come when it
starts, when its players change (a seat handed over) and when it ends, with no ``waiting`` and
no ``round_id``, and its rounds' commits add none: its players are at its table, whose views
name the seats it waits for. Neither carries hidden information: seats, players, round ids and times
only, never a choice, a commitment, a hand or a nonce (who has committed is public: the record's
``committed`` entry, FAIRNESS.md step 3). Its readers: the lobby keeps each player's "My games"
from it; the notifier mails and calls webhooks from it. Each reads with its own consumer group.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from shared.protocol.base import Wire

# how a table is played: "real-time" (clocks in seconds or minutes, a page open) or
# "turn-based" (clocks up to 14 days per move, players told when it is their turn)
Pace: TypeAlias = Literal["real-time", "turn-based"]
PACES: tuple[Pace, ...] = ("real-time", "turn-based")

TURNS = "turns"  # adjudicator, escrow -> lobby (My games), notifier: TurnsEntry
GROUP_MY_GAMES = "my-games"  # the lobby's group on TURNS
GROUP_NOTIFIER = "notifier"  # the notifier's group on TURNS


class Waiting(Wire):
    """One seat the game waits for: since when, and until when before its clock runs out."""

    seat: int
    player_id: str
    since_ms: int
    deadline_ms: int | None = None


class TurnsChanged(Wire):
    type: Literal["turns_changed"] = "turns_changed"
    game_id: str
    game: str
    pace: Pace = "real-time"
    seq: int  # the game's state sequence number after the change (orders a game's entries)
    at_ms: int
    players: list[str]  # every seated player id, by seat
    waiting: list[Waiting] = []
    ended: bool = False
    round_id: str | None = None  # the open sealed round's id when the node is simultaneous


class SeatCommitted(Wire):
    """Every slot of the seat in the sealed round is done (its commit accepted by the escrow,
    or, in a fixed-order round, the slot's own time ran out and its default stands, P-S1):
    the game no longer waits for it in that round."""

    type: Literal["seat_committed"] = "seat_committed"
    game_id: str
    round_id: str
    seat: int
    player_id: str
    at_ms: int


TurnsEntry: TypeAlias = TurnsChanged | SeatCommitted


def parse_entry(body: dict[str, object]) -> TurnsEntry:
    """One entry of the TURNS stream by its ``type`` (an entry without one is a
    ``TurnsChanged``); pydantic's ``ValidationError`` when it is neither."""
    if body.get("type") == "seat_committed":
        return SeatCommitted.model_validate(body)
    return TurnsChanged.model_validate(body)
