"""How New York games between one styled seat and plain seats end.

A 3-seat New York game is decided by its first knock-out: the seat that takes it gets the
loser's cards (NY-7) and faces one opponent. This plays one seat of ``--style`` (``TUNED``,
``plain`` or ``TUNED`` with JSON overrides of its fields) among plain heuristic seats, the
lone seat rotating and each game's deal from its number (``bench.tune_style.play_lone``:
seed 10,000 + number, as ``bench.ladder`` deals), and sorts the games by who was knocked out
first and by whom:

    python -m bench.nyc_endings --seats 3 --first 750000 --games 600 --workers 2
    python -m bench.nyc_endings --style '{"prey": 0.5}' --first 1000000 --games 600

It prints the lone seat's share of first places, how the games ended (NY-12 map or mission,
NY-S1 round cap) and the lone seat's share of first places in each knock-out case.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from multiprocessing import Pool
from typing import Any

from bench.tune_style import play_lone
from shared.ai.empire_nyc import bot as nyc_bot
from shared.rules.empire_nyc.state import NycState

GAME = "empire-nyc"


def style_of(spec: str) -> nyc_bot.Style:
    """``TUNED``, ``plain`` (the default style) or a JSON object of ``TUNED``'s fields."""
    if spec == "plain":
        return nyc_bot.Style()
    if spec == "TUNED":
        return nyc_bot.TUNED
    return dataclasses.replace(nyc_bot.TUNED, **json.loads(spec))


def first_knockout(state: NycState, lone: int) -> str:
    """The game's knock-out case seen from the lone seat."""
    if not state.eliminated:
        return "nobody knocked out"
    first = min(state.eliminated, key=lambda e: e.turn)
    if first.seat == lone:
        return "lone seat knocked out first"
    return "a plain seat knocked out first by the " + ("lone seat" if first.by == lone
                                                      else "other plain seat")


def play_one(args: tuple[int, str, int]) -> dict[str, Any]:
    seats, spec, index = args
    out, lone, share = play_lone(GAME, seats, {}, style_of(spec), index)
    state: NycState = out.state
    return {"index": index, "lone": lone, "finished": out.finished, "share": share,
            "ended": state.win_reason, "case": first_knockout(state, lone)}


def summary(rows: Sequence[dict[str, Any]]) -> list[str]:
    n = len(rows)
    lines = [f"lone seat: {sum(r['share'] for r in rows) / n:.3f} of first places in {n} games",
             "ended: " + ", ".join(f"{k} {v}" for k, v in
                                   sorted(Counter(str(r['ended']) for r in rows).items()))]
    cases = Counter(r["case"] for r in rows)
    for case, count in sorted(cases.items()):
        won = sum(r["share"] for r in rows if r["case"] == case)
        lines.append(f"  {case}: {count} games, the lone seat first in {won:g}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--first", type=int, default=750_000)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--style", default="TUNED",
                        help="TUNED, plain, or a JSON object of TUNED's fields to change")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    style_of(args.style)  # a bad field fails here, before any game
    jobs = [(args.seats, args.style, i) for i in range(args.first, args.first + args.games)]
    if args.workers > 1:
        with Pool(args.workers) as pool:
            rows = pool.map(play_one, jobs, chunksize=4)
    else:
        rows = [play_one(j) for j in jobs]
    print("\n".join(summary(rows)))


if __name__ == "__main__":
    main()
