"""Helpers for the games' log sentences (``shared/rules/<game>/narrate.py``).

A narrator is pure: one public (or seat-visible) log entry plus public component data in,
one English sentence out. It reads nothing else, so it can never say more than the entry
it was given (the adjudicator already filters entries by who may see them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Data = Mapping[str, Any]
Narrator = Callable[[Data, "Names"], str]


class Names:
    """Seat number (0-based in the data) -> the player's name; "Seat N" (1-based) when the
    name is unknown."""

    def __init__(self, names: Sequence[str] | None = None) -> None:
        self._names = list(names or [])

    def __call__(self, seat: Any) -> str:
        if isinstance(seat, str) and seat.isdigit():
            seat = int(seat)
        if not isinstance(seat, int) or isinstance(seat, bool):
            return "nobody" if seat is None else str(seat)
        if 0 <= seat < len(self._names) and self._names[seat]:
            return self._names[seat]
        return f"Seat {seat + 1}"

    def many(self, seats: Sequence[Any]) -> str:
        return join([self(s) for s in seats])


def join(items: Sequence[str], last: str = "and") -> str:
    items = [str(i) for i in items]
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def plural(n: Any, one: str, many: str | None = None) -> str:
    many = many if many is not None else one + "s"
    return f"{n} {one if n == 1 else many}"


def counts(bundle: Mapping[str, Any] | None, singular: Mapping[str, str] | None = None) -> str:
    """{"goods": 2, "gold": 5} -> "2 goods and 5 gold" (zero entries left out)."""
    parts = []
    for k, v in (bundle or {}).items():
        if not v:
            continue
        if singular and v == 1:
            parts.append(f"1 {singular.get(k, k)}")
        else:
            parts.append(f"{v} {k}")
    return join(parts) if parts else "nothing"


def generic(event_type: str, data: Data) -> str:
    """A readable sentence for an event type a game has no wording for (never cut short)."""
    words = event_type.replace("_", " ").capitalize()
    if not data:
        return words + "."
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in data.items()]
    return f"{words}: {', '.join(parts)}."


def sentence(text: str) -> str:
    text = text.strip()
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:]
