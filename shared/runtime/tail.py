"""A step's tail: what a service does after its one atomic step (a Lua script), done in the
step itself where the server allows it.

A handler's last effect is typically one script (the escrow's commit or close, the
adjudicator's commit), then its publishes, then the bus's XACK of the consumed entry: three
round trips, each a socket write and a wake-up in the service and in Valkey. When entries
arrive one at a time nothing batches them, and those wake-ups, not the work, are most of a
round's CPU. On a single server the script can append the publishes and acknowledge (and
delete) the entry in the same step: one round trip, and the entry is acknowledged in the very
step that makes its effect durable. The publishes' streams live in other slots than the game's
keys, which only a single server lets a script write (they are not declared in KEYS), so a
cluster keeps the three round trips.

``TAIL_LUA`` defines ``tail(at)`` for a script whose ARGV carries ``tail_args`` from ``at``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from shared.runtime import bus
from shared.runtime.ports import Publisher


class EntryMaker(Protocol):
    """A publisher that can hand over the entry it would append instead of appending it
    (shared/runtime/outbox.py ``Outbox.entry``)."""

    def entry(self, body: Any, stream: str, maxlen: int | None = None) -> tuple[str, bytes, int]:
        ...


@dataclass(frozen=True)
class Tail:
    """``entries`` appended (stream, its ``__data__`` field, MAXLEN ~ cap) in order, then the
    consumed entry ``ack`` acknowledged (stream, group, id, delete it too)."""

    entries: tuple[tuple[str, bytes, int], ...] = ()
    ack: tuple[str, str, bytes, bool] | None = None


def _makes_entries(broker: Publisher) -> TypeGuard[EntryMaker]:
    """Whether ``broker`` has ``entry``: the test a runtime-checkable protocol's isinstance
    makes, without its walk over the protocol's members (a few µs on every step)."""
    return getattr(broker, "entry", None) is not None


# ARGV from ``at``: the number of entries n, n times (stream, MAXLEN ~ cap, __data__), then the
# consumed entry's stream ('' for none), group, id and '1' to delete it. Absent: nothing.
TAIL_LUA = """
local function tail(at)
  if ARGV[at] == nil then return end
  local i = at + 1
  for _ = 1, tonumber(ARGV[at]) do
    redis.call('XADD', ARGV[i], 'MAXLEN', '~', ARGV[i + 1], '*', '__data__', ARGV[i + 2])
    i = i + 3
  end
  if ARGV[i] ~= '' then
    redis.call('XACK', ARGV[i], ARGV[i + 1], ARGV[i + 2])
    if ARGV[i + 3] == '1' then redis.call('XDEL', ARGV[i], ARGV[i + 2]) end
  end
end
"""


def tail_args(tail: Tail | None) -> list[Any]:
    """TAIL_LUA's ARGV (none without a tail)."""
    if tail is None:
        return []
    out: list[Any] = [len(tail.entries)]
    for stream, data, maxlen in tail.entries:
        out += [stream, maxlen, data]
    stream, group, entry_id, delete = tail.ack or ("", "", "", False)
    return [*out, stream, group, entry_id, "1" if delete else "0"]


def make(broker: Publisher, inline: bool, entries: list[tuple[dict[str, Any], dict[str, Any]]],
         ack: bool) -> Tail | None:
    """The tail of ``entries`` (body, {stream, maxlen}) and, with ``ack``, the entry the
    running handler consumed (``bus.delivery()``); None when the store cannot apply it
    (``inline`` False: a cluster) or the publisher prepares no entries (then the shell
    publishes and the bus acknowledges)."""
    if not inline or not _makes_entries(broker):
        return None
    d = bus.delivery() if ack else None
    return Tail(tuple(broker.entry(body, **where) for body, where in entries),
                None if d is None or d.acked else (d.stream, d.group, d.id, d.delete))


def applied(tail: Tail | None) -> None:
    """The step applied ``tail``: its entry is acknowledged (the bus leaves it out)."""
    d = bus.delivery()
    if tail is not None and tail.ack is not None and d is not None:
        d.acked = True
