"""Full playouts per CPU-second of each engine (no services): ``shared.rules._kit.playout.play``
from setup to Terminal, every move through ``apply``, draws from the dealer's functions.

Each configuration runs in its own worker process for a CPU-time budget and reports finished
games per CPU-second ("per core"), applied moves per CPU-second and the mean moves per game.
Each game also runs as "rollout": the same random games, seed for seed, through its rollout
(``registry.get_rollout``: the one engine on a clone, without events;
``shared.rules._kit.rollout``).
Uniformly random play never ends in some games (Empire: The Game of New York is a war of
attrition that random seats do not finish), so those also run with the heuristic bots.

``python -m bench.engines [--budget S] [--only GAME ...] [--json]`` runs them alone
(``--ab``: the games' rollouts against the contract path, interleaved in one process), one
process at a time (``python -m bench`` runs them as its ``engines`` part). The machine is often
shared: compare two trees back to back and repeat, CPU time varies by 10-20% with the load.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.driver import OPTIONS


@dataclass(frozen=True)
class EngineRun:
    game: str
    seats: int
    options: dict[str, Any]
    players: str  # "random" | "heuristic" | "rollout" (random seats through the rollout driver)
    note: str = ""


RUNS: tuple[EngineRun, ...] = (
    EngineRun("empire", 4, {}, "random"),
    EngineRun("empire", 4, {}, "rollout", "the same games through the rollout driver"),
    EngineRun("empire-engine", 4, {}, "random"),
    EngineRun("empire-engine", 4, {}, "rollout", "the same games through the rollout driver"),
    EngineRun("empires-end", 4, {}, "random"),
    EngineRun("empires-end", 4, {}, "rollout", "the same games through the rollout driver"),
    EngineRun("empire-nyc", 4, {}, "random", "random seats rarely conquer the map"),
    EngineRun("empire-nyc", 4, {}, "rollout", "the same games through the rollout driver"),
    EngineRun("empire-nyc", 4, {}, "heuristic"),
    EngineRun("empire-cards", 4, {}, "random", "a match runs to an Emperor Overlord"),
    EngineRun("empire-cards", 4, {}, "rollout", "the same games through the rollout driver"),
    EngineRun(
        "empire-cards",
        4,
        {"max_hands": 2, "max_turns_per_hand": 40},
        "random",
        "capped as in the property tests",
    ),
    EngineRun("empire-cards", 4, {"max_hands": 2, "max_turns_per_hand": 40}, "rollout",
              "the same capped games through the rollout driver"),
    EngineRun("duel", 2, OPTIONS, "random", "the benchmark workload's engine"),
)


def run_one(run: EngineRun, budget_s: float, max_steps: int) -> dict[str, Any]:
    from shared.ai import registry as ai
    from shared.ai.playout import bot_actor, bot_chooser
    from shared.rules import registry
    from shared.rules._kit.playout import Playout, play
    from shared.rules._kit.rollout import RolloutResult

    game = registry.get(run.game)
    t0 = time.process_time()
    games = finished = steps = 0
    while time.process_time() - t0 < budget_s:
        kw: dict[str, Any] = {}
        if run.players == "heuristic":
            kw = {
                "actors": {i: bot_actor(ai.get_bot(run.game)) for i in range(run.seats)},
                "choosers": {i: bot_chooser(ai.get_bot(run.game)) for i in range(run.seats)},
            }
        p: Playout | RolloutResult
        if run.players == "rollout":  # the same random games as "random" (_kit/rollout.py)
            p = registry.get_rollout(run.game).play_random(
                run.seats, dict(run.options), seed=games, max_steps=max_steps)
        else:
            p = play(game, run.seats, dict(run.options), seed=games, max_steps=max_steps,
                     log=False, **kw)
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


def interleaved(game: str, seats: int = 4, rounds: int = 4, slice_s: float = 1.5
                ) -> dict[str, Any]:
    """The contract path and the rollout driver alternating in CPU-time slices in one process,
    the same seeds in the same order: their ratio is fair on a machine whose load changes."""
    from shared.rules import registry
    from shared.rules._kit.playout import play

    def contract(seed: int) -> Any:
        return play(registry.get(game), seats, {}, seed=seed, log=False)

    def rollout(seed: int) -> Any:
        return registry.get_rollout(game).play_random(seats, {}, seed=seed)

    paths: dict[str, Callable[[int], Any]] = {"random": contract, "rollout": rollout}
    cpu = dict.fromkeys(paths, 0.0)
    games = dict.fromkeys(paths, 0)
    moves = dict.fromkeys(paths, 0)
    for _ in range(rounds):
        for name, run in paths.items():
            t0 = time.process_time()
            while time.process_time() - t0 < slice_s:
                p = run(games[name])
                games[name] += 1
                moves[name] += p.steps
            cpu[name] += time.process_time() - t0
    rate = {name: games[name] / cpu[name] for name in paths}
    return {"game": game, "seats": seats, "random_games_per_cpu_s": round(rate["random"], 2),
            "rollout_games_per_cpu_s": round(rate["rollout"], 2),
            "ratio": round(rate["rollout"] / rate["random"], 1),
            "moves_ratio": round((moves["rollout"] / cpu["rollout"])
                                 / (moves["random"] / cpu["random"]), 1)}


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
    parser.add_argument("--ab", action="store_true",
                        help="the games with a rollout driver: interleaved A/B of random vs "
                        "rollout (--budget = CPU seconds per slice, 4 rounds)")
    args = parser.parse_args(argv)
    if args.ab:
        from shared.rules import registry

        for game in args.only or registry.rollout_names():
            print(json.dumps(interleaved(game, slice_s=args.budget)))
        return
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
