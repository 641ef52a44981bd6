""""My games": each player's games as the ``turns`` stream tells them (the lobby's functional
core for it: pure, ``now_ms`` an argument; the Redis side is services/lobby/mygames_store.py,
the consumer and the answers services/lobby/mygames_service.py).

The lobby keeps one entry per game, the latest ``TurnsChanged`` (by ``seq``: a redelivered or
older entry never replaces a newer one), and per player the ids of its games. A player's list
puts the games waiting for that player first, the oldest wait first (the one most overdue is on
top), then its other running games (latest change first), then the recently ended ones. The
entry holds seats, players and clocks only (shared/protocol/turns.py): nothing hidden.

A sealed round waits for the seats that have not committed: the escrow's ``SeatCommitted``
takes its seat off the game's waiting when its ``round_id`` is the stored entry's, and the
lobby keeps the round's committed seats so a ``TurnsChanged`` of that round read after it
(redelivered, or behind it in the stream) does not put the seat back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from shared.protocol.turns import SeatCommitted, TurnsChanged


def newer(stored: Mapping[str, Any] | None, incoming: TurnsChanged) -> bool:
    """Whether ``incoming`` replaces the stored entry of its game (a higher seq; at one seq,
    the ended one)."""
    if stored is None:
        return True
    seq = int(stored.get("seq", -1))
    return incoming.seq > seq or (incoming.seq == seq and incoming.ended
                                  and not stored.get("ended", False))


def humans(turns: TurnsChanged, bots: Iterable[str] = ()) -> list[str]:
    """The players whose "My games" the entry belongs in (each once; bot seats' ids start
    with ``b-``: services/lobby/service.py)."""
    skip = set(bots)
    out: dict[str, None] = {}
    for p in turns.players:
        if p and not p.startswith("b-") and p not in skip:
            out[p] = None
    return list(out)


def entry_for(stored: Mapping[str, Any], player_id: str) -> dict[str, Any]:
    """The game as ``player_id`` sees it in "My games" (shared/protocol/http.py ``MyGame``):
    the stored entry, its seat, and whether (since when, until when) it waits for this
    player."""
    players = list(stored.get("players", []))
    mine = [i for i, p in enumerate(players) if p == player_id]
    waits = [w for w in stored.get("waiting", []) if w.get("player_id") == player_id]
    since = min((int(w["since_ms"]) for w in waits), default=None)
    deadlines = [int(w["deadline_ms"]) for w in waits if w.get("deadline_ms") is not None]
    return {
        "game_id": stored["game_id"], "game": stored.get("game", ""),
        "pace": stored.get("pace", "real-time"), "seq": int(stored.get("seq", 0)),
        "at_ms": int(stored.get("at_ms", 0)), "players": players,
        "seat": mine[0] if len(mine) == 1 else None,
        "waiting": list(stored.get("waiting", [])),
        "my_turn": bool(waits) and not stored.get("ended", False),
        "since_ms": since, "deadline_ms": min(deadlines, default=None),
        "ended": bool(stored.get("ended", False)),
    }


def order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Waiting for the player first (the oldest wait first), then running (latest change
    first), then ended (latest first); ties by game id, so the order is stable."""
    def key(e: dict[str, Any]) -> tuple[int, int, str]:
        if e["my_turn"]:
            return (0, int(e["since_ms"] or 0), e["game_id"])
        return (1 if not e["ended"] else 2, -int(e["at_ms"]), e["game_id"])
    return sorted(entries, key=key)


def kept_ms(stored: Mapping[str, Any], running_s: float, ended_s: float) -> int:
    """How long the lobby keeps a game's entry after this change: a running game as long as
    any game may run (it changes again at every deadline, and ends by its lifetime at the
    latest: that change then sets the shorter keep), an ended one ``ended_s``."""
    return int((ended_s if stored.get("ended") else running_s) * 1000)


def without_committed(turns: TurnsChanged, seats: Iterable[int]) -> TurnsChanged:
    """``turns`` without the seats of its sealed round that have committed already."""
    done = set(seats)
    if turns.round_id is None or not done:
        return turns
    return turns.model_copy(update={"waiting": [w for w in turns.waiting
                                                if w.seat not in done]})


def committed_kept_ms(stored: Mapping[str, Any] | None, now_ms: int, margin_ms: int) -> int:
    """How long a sealed round's committed seats are kept: while the round can be open (its
    latest deadline in the stored entry) plus ``margin_ms``; ``margin_ms`` alone without one
    (enough for the round's own entry to arrive when it is read after the commit)."""
    deadlines = [int(w["deadline_ms"]) for w in (stored or {}).get("waiting", [])
                 if w.get("deadline_ms") is not None]
    return max(margin_ms, max(deadlines, default=0) - now_ms + margin_ms)


def drop_committed(stored: Mapping[str, Any], seat: SeatCommitted) -> dict[str, Any] | None:
    """The stored entry without the committed seat in its waiting; None when the entry is of
    another round (a stale ``SeatCommitted``), ended, or no longer waits for that seat."""
    if stored.get("round_id") != seat.round_id or stored.get("ended"):
        return None
    waiting = list(stored.get("waiting", []))
    kept = [w for w in waiting if int(w.get("seat", -1)) != seat.seat]
    if len(kept) == len(waiting):
        return None
    return {**stored, "waiting": kept}
