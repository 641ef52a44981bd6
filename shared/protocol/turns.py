"""Whose move each game is waiting for, as the adjudicator publishes it.

The adjudicator appends one ``TurnsChanged`` to the ``TURNS`` stream whenever the set of seats a
game waits for changes (a turn passes, a sealed round opens or a seat commits, the game ends).
It carries no hidden information: seats, players and times only, never a choice, a hand or a
nonce. Its readers: the lobby keeps each player's "My games" from it; the notifier mails and
calls webhooks from it. Each reads with its own consumer group.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from shared.protocol.base import Wire

# how a table is played: "real-time" (clocks in seconds or minutes, a page open) or
# "turn-based" (clocks up to 14 days per move, players told when it is their turn)
Pace: TypeAlias = Literal["real-time", "turn-based"]
PACES: tuple[Pace, ...] = ("real-time", "turn-based")

TURNS = "turns"  # adjudicator -> lobby (My games), notifier: TurnsChanged
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
