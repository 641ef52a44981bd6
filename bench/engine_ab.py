"""Contract-path playouts of two source trees, A/B in one window: moves per CPU-second.

``python -m bench.engine_ab --base /path/to/old/tree [--tree .] [--slices 4] [--slice 2]
[--seats 3] [--only GAME ...] [--engine-only | --kit]``; ``--shares``: no A/B, the share of
this tree's contract path spent in each game's own functions (cProfile).

``--kit --seats 4``: each tree plays through its own ``shared.rules._kit.playout.play`` with
its defaults and the games' default options (the Card Game uncapped), the call ``python -m
bench.engines`` timed for the one-engine goal's base figures.

Each game runs random playouts through the contract only (``registry.get(name)``: ``setup``,
``next``, ``legal_actions``, ``apply`` with ``api.Act`` / ``JointAction`` / ``ChanceOutcome``
built by keyword), the same loop, seeds and options on both trees. Every slice is a fresh
worker process (this file run with ``PYTHONPATH=<tree>``): the base tree plays games for
``--slice`` CPU-seconds (``time.process_time``), then the new tree plays the same seeds (the
same games, move for move, when the rules are unchanged: a different move count is printed),
and the next slice goes on from the next seed; the trees alternate, so a change in the
machine's load falls on both. The ratio is new moves per CPU-second over base moves per
CPU-second.

The seats play uniformly at random as ``shared.rules._kit.playout.play``'s default seats do (a
random awaited seat, a random legal action, a random allowed sealed choice), the draws are the
dealer's (``shared.fairness.draws.draw``) from a key made from the seed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# the tree under test's modules: a worker runs this file with PYTHONPATH=<tree>
from shared.fairness.draws import draw
from shared.rules.api import Act, Chance, ChanceOutcome, JointAction, Simultaneous, Terminal

# name -> options: New York with its default 30-round limit, the Card Game capped as in the
# property tests (an uncapped random match runs to an Emperor Overlord)
GAMES: dict[str, dict[str, Any]] = {
    "empire": {},
    "empire-engine": {},
    "empires-end": {},
    "empire-nyc": {},
    "empire-cards": {"max_hands": 2, "max_turns_per_hand": 40},
}
TITLES = {"empire": "Empire", "empire-engine": "The Empire Engine", "empires-end": "Empire's End",
          "empire-nyc": "Empire: The Game of New York", "empire-cards": "Empire The Card Game"}


def worker(game_name: str, seats: int, options: dict[str, Any], seed0: int, budget: float,
           n_games: int, max_steps: int, engine_only: bool = False,
           kit: bool = False) -> dict[str, Any]:
    """Play random games from ``seed0`` on (in the tree on the path): ``n_games`` of them, or
    (``n_games`` 0) as many as ``budget`` CPU-seconds allow; the moves, games and CPU seconds
    spent. ``engine_only``: each game is played once untimed to pick its moves, then played
    again timed with those moves, so the CPU counted is the contract's alone (``setup``, and
    per move ``next``, ``legal_actions`` for the seat that acts, ``apply``), not the harness's
    draws and picks."""
    import random
    import time

    from shared.rules import registry

    game = registry.get(game_name)
    if engine_only:
        return _replayed(game, seats, options, seed0, budget, n_games, max_steps)
    if kit:
        return _kit_played(game, seats, seed0, budget, n_games)
    moves = games = 0
    seed = seed0
    t0 = time.process_time()
    while (games < n_games) if n_games else (time.process_time() - t0 < budget):
        rng = random.Random(seed)
        key = seed.to_bytes(8, "big") * 4
        state = game.setup(dict(options), seats)
        for _ in range(max_steps):
            node = game.next(state)
            if isinstance(node, Terminal):
                break
            move, _ = _pick(game, state, node, rng, key)
            result = game.apply(state, move)
            state = result.state  # type: ignore[union-attr]  # a Rejection: a bug, raises
            moves += 1
        games += 1
        seed += 1
    return {"moves": moves, "games": games, "cpu": time.process_time() - t0}


def _pick(game: Any, state: Any, node: Any, rng: Any, key: bytes) -> tuple[Any, int | None]:
    """The move a random seat makes at ``node``: a chance outcome from the dealer's draws, a
    random allowed sealed choice per slot, or a random awaited seat's random legal action
    (with its index in that seat's legal list; None for the other two)."""
    if isinstance(node, Chance):
        values = draw(key, node.label, node.draw, node.n, node.count)
        return ChanceOutcome(label=node.label, values=tuple(values)), None
    if isinstance(node, Simultaneous):
        choices = {s.key: rng.choice(list(s.allowed)) if s.allowed else s.default
                   for s in node.slots}
        return JointAction(round_id=node.round_id, choices=choices), None
    seat = rng.choice(list(node.seats or node.open_to))
    legal = list(game.legal_actions(state, seat))
    index = rng.randrange(len(legal))  # as rng.choice(legal) draws
    return Act(seat=seat, action=legal[index]), index


def _kit_played(game: Any, seats: int, seed0: int, budget: float,
                n_games: int) -> dict[str, Any]:
    """``worker``'s ``--kit`` count: the tree's own ``shared.rules._kit.playout.play`` with its
    defaults (random seats, the dealer's draws, the moves and events kept) and the game's
    default options, as ``python -m bench.engines`` played them."""
    import time

    from shared.rules._kit.playout import play

    moves = games = 0
    seed = seed0
    t0 = time.process_time()
    while (games < n_games) if n_games else (time.process_time() - t0 < budget):
        moves += play(game, seats, {}, seed=seed).steps
        games += 1
        seed += 1
    return {"moves": moves, "games": games, "cpu": time.process_time() - t0}


def _picked(game: Any, seats: int, options: dict[str, Any], seed: int,
            max_steps: int) -> list[tuple[Any, int | None]]:
    """One random game's moves as ``worker`` picks them: a chance or sealed move as its
    value with None, an act as (its index in the seat's legal list, the seat)."""
    import random


    rng = random.Random(seed)
    key = seed.to_bytes(8, "big") * 4
    state = game.setup(dict(options), seats)
    out: list[tuple[Any, int | None]] = []
    for _ in range(max_steps):
        node = game.next(state)
        if isinstance(node, Terminal):
            break
        move, index = _pick(game, state, node, rng, key)
        out.append((move, None) if index is None else (index, move.seat))
        state = game.apply(state, move).state
    return out


def _replayed(game: Any, seats: int, options: dict[str, Any], seed0: int, budget: float,
              n_games: int, max_steps: int) -> dict[str, Any]:
    """``worker``'s engine-only count: the moves picked untimed, the contract timed (an act
    built from the listed action, as every caller does)."""
    import time

    moves = games = 0
    cpu = 0.0
    seed = seed0
    while (games < n_games) if n_games else (cpu < budget):
        picked = _picked(game, seats, options, seed, max_steps)
        t0 = time.process_time()
        state = game.setup(dict(options), seats)
        for move, seat in picked:
            game.next(state)
            if seat is not None:  # the act picked from this state's own list, as a caller does
                move = Act(seat=seat, action=game.legal_actions(state, seat)[move])
            state = game.apply(state, move).state
        cpu += time.process_time() - t0
        moves += len(picked)
        games += 1
        seed += 1
    return {"moves": moves, "games": games, "cpu": cpu}


def shares(game_name: str, n_games: int = 40, seats: int = 3) -> dict[str, float]:
    """Where the contract path's time goes in this tree (cProfile, so the shares lean towards
    the many small calls of the kit and the harness): the share of a random playout's time
    spent in the game's own functions (listing the legal actions, ``next``, each kind of move
    on its clone, the clone), the rest being the kit and the harness."""
    import cProfile
    import importlib
    import pstats

    from shared.rules import registry
    from shared.rules._kit.base import GameBase

    options = GAMES[game_name]
    worker(game_name, seats, options, 10_000, 0, 2, 60_000)  # imports and caches first
    profile = cProfile.Profile()
    profile.enable()
    worker(game_name, seats, options, 0, 0, n_games, 60_000)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]

    def key(fn: Any) -> tuple[str, int, str]:
        code = getattr(fn, "__wrapped__", fn).__code__
        return code.co_filename, code.co_firstlineno, code.co_name

    total = next(v[3] for k, v in stats.items() if k[2] == "worker")

    cls: Any = type(registry.get(game_name))

    def cum(attr: str) -> float:
        spent = float(stats.get(key(getattr(cls, attr)), (0, 0, 0, 0.0))[3])
        return spent / float(total)

    # an act: the game's listed-act path and its own on_act when it has one (which plays the
    # move itself), else play_act under the kit's on_act
    own_on_act = cls.on_act is not GameBase.on_act
    out = {"legal": cum("legal_actions"), "next": cum("next"),
           "act": cum("play_listed") * (cls.play_listed is not GameBase.play_listed)
           + cum("on_act" if own_on_act else "play_act"),
           "chance": cum("play_chance"), "joint": cum("play_joint")}
    state_file = importlib.import_module(
        type(registry.get(game_name).setup(dict(options), seats)).__module__).__file__
    out["clone"] = sum(v[3] for k, v in stats.items()  # the top-level clones only
                       if k[0] == state_file and k[2] == "clone"
                       and any(c[0] != state_file for c in v[4])) / total
    # (a game's own on_act clones inside it: that clone is in "act" already)
    out["rules"] = sum(out.values()) - (out["clone"] if own_on_act else 0.0)
    return {k: round(v, 3) for k, v in out.items()}


def _slice(tree: Path, game: str, seats: int, seed: int, budget: float, n_games: int,
           max_steps: int, engine_only: bool, kit: bool) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = json.dumps([game, seats, GAMES[game], seed, budget, n_games, max_steps, engine_only,
                       kit])
    out = subprocess.run([sys.executable, __file__, "--worker", args], env=env, cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_ab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, help="the base tree (e.g. a git worktree)")
    parser.add_argument("--tree", type=Path, default=Path.cwd(), help="the new tree (.)")
    parser.add_argument("--slices", type=int, default=4, help="slices per tree and game")
    parser.add_argument("--slice", type=float, default=2.0, help="CPU-seconds per slice")
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=60_000)
    parser.add_argument("--only", nargs="*", default=None, help="games (registry names)")
    parser.add_argument("--shares", action="store_true",
                        help="no A/B: where this tree's contract path spends its time, per game "
                        "(cProfile shares of the game's own functions)")
    parser.add_argument("--engine-only", action="store_true",
                        help="count the contract's CPU alone: each game's random moves picked "
                        "untimed, then played again timed (no draws or picks in the figure)")
    parser.add_argument("--kit", action="store_true",
                        help="each tree's own playout (shared.rules._kit.playout.play) with its "
                        "defaults and the games' default options, as python -m bench.engines "
                        "played them (use with --seats 4)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*json.loads(args.worker))))
        return
    if args.shares:
        for game in args.only or list(GAMES):
            print(json.dumps({"game": game, **shares(game, seats=args.seats)}), flush=True)
        return
    if args.base is None:
        parser.error("--base is required")
    trees = {"base": args.base.resolve(), "new": args.tree.resolve()}
    print("| game | base moves/CPU-s | new moves/CPU-s | new / base |")
    print("|---|---|---|---|")
    for game in args.only or list(GAMES):
        total = {name: {"moves": 0, "cpu": 0.0} for name in trees}
        seed = 0
        for _ in range(args.slices):
            first = _slice(trees["base"], game, args.seats, seed, args.slice, 0, args.max_steps,
                           args.engine_only, args.kit)
            again = _slice(trees["new"], game, args.seats, seed, 0, first["games"],
                           args.max_steps, args.engine_only, args.kit)
            if first["moves"] != again["moves"]:
                print(f"  {game}: seeds {seed}+{first['games']}: base {first['moves']} moves, "
                      f"new {again['moves']}", file=sys.stderr)
            for name, r in (("base", first), ("new", again)):
                total[name]["moves"] += r["moves"]
                total[name]["cpu"] += r["cpu"]
            seed += first["games"]
        rate = {name: total[name]["moves"] / total[name]["cpu"] for name in trees}
        print(f"| {TITLES[game]} | {rate['base'] / 1000:,.1f}k | {rate['new'] / 1000:,.1f}k "
              f"| {rate['new'] / rate['base']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
