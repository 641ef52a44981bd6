"""Machine instructions per move of random playouts, two trees side by side: a count that does
not move with the machine's load (``valgrind --tool=cachegrind``, which must be installed).

``python -m bench.engine_instructions --base /path/to/old/tree [--tree .] [--games 2]
[--only GAME ...]``: for each tree and game, the instructions of a worker that plays ``--games``
seeded 4-seat games through ``shared.rules._kit.playout.play`` (as ``python -m bench.engines``
does, each tree its own) less those of one that plays none, over the moves played. Both trees
play the same seeds; ``PYTHONHASHSEED`` is fixed so that the counts repeat. Instructions are
not time (the same count runs faster in C than in Python's loop), so read this beside the
time-based A/B (``bench.engine_ab``, ``bench.engines`` per tree), not instead of it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

GAMES = ("empire", "empire-engine", "empires-end", "empire-nyc", "empire-cards")

_WORKER = """
import inspect, sys
from shared.rules import registry
from shared.rules._kit.playout import play
game = registry.get(sys.argv[1])
kw = {"log": False} if "log" in inspect.signature(play).parameters else {}
for seed in (1000, 1001):  # imports and first calls, in both counts
    play(game, 4, {}, seed=seed, **kw)
print("steps", sum(play(game, 4, {}, seed=s, **kw).steps for s in range(int(sys.argv[2]))))
"""


def count(tree: Path, game: str, games: int) -> tuple[int, int]:
    """(moves played, instructions) of one worker run under cachegrind in ``tree``."""
    python = tree / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         str(python if python.exists() else sys.executable), "-c", _WORKER, game, str(games)],
        cwd=tree, env=env, capture_output=True, text=True, check=True)
    steps = int(re.search(r"steps (\d+)", out.stdout).group(1))  # type: ignore[union-attr]
    refs = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if refs is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return steps, int(refs.group(1).replace(",", ""))


def per_move(tree: Path, game: str, games: int) -> tuple[int, float]:
    _, idle = count(tree, game, 0)
    steps, busy = count(tree, game, games)
    return steps, (busy - idle) / steps


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.engine_instructions", description=__doc__)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--tree", type=Path, default=Path.cwd())
    ap.add_argument("--games", type=int, default=2, help="seeded games per tree and game")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args(argv)
    print("| game | moves | base instructions/move | new instructions/move | base / new |")
    print("|---|---|---|---|---|")
    for game in args.only or GAMES:
        steps, base = per_move(args.base.resolve(), game, args.games)
        steps_new, new = per_move(args.tree.resolve(), game, args.games)
        moves = str(steps) if steps == steps_new else f"{steps} / {steps_new}"
        print(f"| {game} | {moves} | {base / 1000:.1f}k | {new / 1000:.1f}k | "
              f"{base / new:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
