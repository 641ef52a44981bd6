"""Which seat gives its place when the runner is full and another seat waits. Pure: no I/O,
the clock is an argument (wall-clock milliseconds, shared by the replicas).

A bot seat costs its owner nothing, so guests could fill every place of the runners with
games nobody plays (the human never back, clocks a day long) and a newcomer's bot would then
move only when its clock ran out. So a place is held by a game that moves, not by whoever
came first: when the runner is full and a seat waits, the seat whose game has been still the
longest (at least ``bots_park_idle_s``) is *parked*: its socket closes and its lease goes, it
stays in ``bots:active`` with a note in ``bots:parked`` (when its game last changed, the
game's seq then, when to look again). A parked seat is looked at again after a pause that
doubles each time its game is found unchanged (``bots_park_idle_s``, twice that, ... up to
``bots_park_max_s``); it then takes a free place, or the place of a seat that has been still
for longer than it by ``bots_park_idle_s`` at least. A seat that waits for its first place
may take the place of a seat still since before it was queued. A seat whose game moves is
never parked, so the stillest games give way first and a new game's bot plays at once, while
the seats of one wave of idle games cannot push each other out in turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from shared.runtime.jsonutil import dumps, loads


@dataclass
class Activity:
    """A seat being played: when its game last changed (as seen by the seat) and its seq
    then; ``parks``: how many times in a row it was parked and found its game unchanged."""

    since_ms: int
    seq: int = -1
    parks: int = 0

    def saw(self, seq: int, now_ms: int) -> None:
        """The seat's game is at ``seq`` now (a negative seq: no view yet, nothing seen)."""
        if seq < 0 or seq == self.seq:
            return
        if self.seq >= 0:  # a change (the first view of a seat just started is none)
            self.parks = 0
            self.since_ms = now_ms
        self.seq = seq


@dataclass(frozen=True)
class Parked:
    """A parked seat's note: look again at ``until_ms``; its game was still since
    ``since_ms`` at ``seq``."""

    until_ms: int
    since_ms: int
    seq: int
    parks: int

    def due(self, now_ms: int) -> bool:
        return now_ms >= self.until_ms

    def dumps(self) -> str:
        return dumps(asdict(self))

    @classmethod
    def loads(cls, raw: str | bytes) -> Parked:
        doc = loads(raw)
        return cls(int(doc["until_ms"]), int(doc["since_ms"]), int(doc["seq"]),
                   int(doc["parks"]))


def park(a: Activity, now_ms: int, idle_ms: int, max_ms: int) -> Parked:
    """The note of a seat parked now: its next look after a pause doubled per park."""
    pause = min(max_ms, idle_ms * (1 << min(a.parks, 30)))
    return Parked(until_ms=now_ms + pause, since_ms=a.since_ms, seq=a.seq, parks=a.parks + 1)


def waiting(queued_ms: int) -> Parked:
    """The note of a seat that waits for its first place since ``queued_ms`` (due at once)."""
    return Parked(until_ms=0, since_ms=queued_ms, seq=-1, parks=0)


def resumed(p: Parked | None, now_ms: int) -> Activity:
    """A seat's activity as it starts: a parked one keeps its stillness (its game may not
    have changed), any other (new, or waiting for its first place) counts as just changed."""
    if p is None or p.parks == 0:
        return Activity(since_ms=now_ms)
    return Activity(since_ms=p.since_ms, seq=p.seq, parks=p.parks)


def claim(p: Parked | None, now_ms: int, idle_ms: int) -> int:
    """How far back a waiting seat may reach for a place: a seat that has never played, the
    seats still since before it was queued (a newer game's bot before the older still
    ones: the seats of one wave of games do not push each other out); a parked one, the
    seats still for ``idle_ms`` longer than its own game; a seat with no note (its runner
    died), any still seat."""
    if p is None:
        return now_ms
    if p.parks == 0:
        return p.since_ms
    return p.since_ms - idle_ms


def still(activity: Mapping[str, Activity], now_ms: int, idle_ms: int) -> int:
    """How many seats have been still for ``idle_ms`` at least (places a new seat may take)."""
    return sum(1 for a in activity.values() if a.since_ms <= now_ms - idle_ms)


def victim(activity: Mapping[str, Activity], now_ms: int, idle_ms: int,
           claim_ms: int) -> str | None:
    """The seat to park for a waiting one (None: none may be): the stillest of those still
    for ``idle_ms`` at least and since before ``claim_ms`` (the waiting seat's ``claim``)."""
    best = min(((a.since_ms, k) for k, a in activity.items()
                if a.since_ms <= now_ms - idle_ms and a.since_ms < claim_ms), default=None)
    return best[1] if best is not None else None
