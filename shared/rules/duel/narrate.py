"""Log sentences for the test game Duel (see ``shared.rules.narrate``)."""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from shared.rules._kit.text import Narrator, join

NARRATORS: dict[str, Narrator] = {
    "first_seat": lambda d, s: f"{s(d['seat'])} goes first",
    "called": lambda d, s: f"Round {d['round']}: {s(d['seat'])} calls a stake of {d['stake']}",
    "picks_revealed": lambda d, s: f"Round {d['round']} picks: " + join(
        [f"{s(i)} {p}" for i, p in enumerate(d["picks"])]),
    "round_scored": lambda d, s: (f"Round {d['round']} scored"
                                  + (f" (die {d['die']})" if d.get("die") is not None else "")
                                  + ": " + join([f"{s(i)} {p}" for i, p in enumerate(d["points"])])),
}
