"""Full playouts per CPU-second of each engine (no services): ``shared.rules._kit.playout.play``
from setup to Terminal, every move through ``apply``, draws from the dealer's functions.

Each configuration runs in its own worker process for a CPU-time budget and reports finished
games per CPU-second ("per core"), applied moves per CPU-second and the mean moves per game.
Games with a fast engine (``<package>/fast.py``, issue 22) also run as "fast": the same
random games, seed for seed, on the compact state (``shared.rules._kit.fast``).
Uniformly random play never ends in some games (Empire: The Game of New York is a war of
attrition that random seats do not finish), so those also run with the heuristic bots.

``python -m bench.engines [--budget S] [--only GAME ...] [--json]`` runs them alone, one
process at a time (``python -m bench`` runs them as its ``engines`` part). The machine is often
shared: compare two trees back to back and repeat, CPU time varies by 10-20% with the load.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.driver import OPTIONS


@dataclass(frozen=True)
class EngineRun:
    game: str
    seats: int
    options: dict[str, Any]
    players: str  # "random" | "heuristic" | "fast" (random seats on the game's fast engine)
    note: str = ""


RUNS: tuple[EngineRun, ...] = (
    EngineRun("empire", 4, {}, "random"),
    EngineRun("empire", 4, {}, "fast", "the same games on the fast engine"),
    EngineRun("empire-engine", 4, {}, "random"),
    EngineRun("empire-engine", 4, {}, "fast", "the same games on the fast engine"),
    EngineRun("empires-end", 4, {}, "random"),
    EngineRun("empires-end", 4, {}, "fast", "the same games on the fast engine"),
    EngineRun("empire-nyc", 4, {}, "random", "random seats rarely conquer the map"),
    EngineRun("empire-nyc", 4, {}, "fast", "the same games on the fast engine"),
    EngineRun("empire-nyc", 4, {}, "heuristic"),
    EngineRun("empire-cards", 4, {}, "random", "a match runs to an Emperor Overlord"),
    EngineRun(
        "empire-cards",
        4,
        {"max_hands": 2, "max_turns_per_hand": 40},
        "random",
        "capped as in the property tests",
    ),
    EngineRun("duel", 2, OPTIONS, "random", "the benchmark workload's engine"),
)


def run_one(run: EngineRun, budget_s: float, max_steps: int) -> dict[str, Any]:
    from shared.rules import registry
    from shared.rules._kit.playout import bot_actor, bot_chooser, play

    game = registry.get(run.game)
    t0 = time.process_time()
    games = finished = steps = 0
    while time.process_time() - t0 < budget_s:
        kw: dict[str, Any] = {}
        if run.players == "heuristic":
            kw = {
                "actors": {i: bot_actor(registry.get_bot(run.game)) for i in range(run.seats)},
                "choosers": {i: bot_chooser(registry.get_bot(run.game)) for i in range(run.seats)},
            }
        if run.players == "fast":  # the same random games as "random" (_kit/fast.py)
            p = registry.get_fast(run.game).play_random(
                run.seats, dict(run.options), seed=games, max_steps=max_steps)
        else:
            p = play(game, run.seats, dict(run.options), seed=games, max_steps=max_steps, **kw)
        games += 1
        finished += p.finished
        steps += p.steps
    cpu = time.process_time() - t0
    return {
        "game": run.game,
        "seats": run.seats,
        "options": run.options,
        "players": run.players,
        "note": run.note,
        "cpu_s": round(cpu, 2),
        "playouts": games,
        "finished": finished,
        "games_per_cpu_s": round(finished / cpu, 3),
        "moves_per_cpu_s": round(steps / cpu),
        "moves_per_game": round(steps / games, 1),
        "max_steps": max_steps,
    }


def run_all(
    budget_s: float = 4.0, max_steps: int = 60_000, workers: int = 2
) -> list[dict[str, Any]]:
    """Every configuration, ``workers`` at a time (one per core, nothing else running)."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_one, r, budget_s, max_steps) for r in RUNS]
        return [f.result() for f in futures]


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.engines [--budget S] [--only GAME ...] [--workers N] [--json]``."""
    import argparse
    import json

    from bench.report import engines_table

    parser = argparse.ArgumentParser(prog="python -m bench.engines", description=__doc__)
    parser.add_argument("--budget", type=float, default=4.0, help="CPU seconds per configuration")
    parser.add_argument("--max-steps", type=int, default=60_000)
    parser.add_argument("--only", nargs="*", default=None, help="games to run (registry names)")
    parser.add_argument("--workers", type=int, default=1, help="processes (1: one at a time)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON lines")
    args = parser.parse_args(argv)
    runs = [r for r in RUNS if args.only is None or r.game in args.only]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(run_one, r, args.budget, args.max_steps) for r in runs]
        results = [f.result() for f in futures]
    if args.json:
        for r in results:
            print(json.dumps(r))
    else:
        print(engines_table(results))


if __name__ == "__main__":
    main()
