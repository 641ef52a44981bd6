"""Tune a game's heuristic style against its plain heuristic: ``make tune``.

A game whose heuristic bot takes a ``Style`` (``<package>.bot.Style``: its weights and
thresholds, the defaults being the heuristic bot's) can be tuned: the cross-entropy method
over every number in the style. Each generation draws ``--population`` styles around the
current mean (each number times ``exp(N(0, sigma))``; a number whose default is 0 or below
plus ``N(0, sigma)``; integers rounded), plays each in ``--games`` games as one seat among
seats of the plain heuristic (the lone seat rotates; each game's deal from its number, the
same numbers for every style of a generation, fresh numbers each generation), and moves the
mean and sigma to the best quarter's. The generation's first style is the mean itself, so
its score (on numbers it was not chosen on) tracks the tuned style's strength.
``--validate N`` plays the final mean and the plain style on N further games each.

``python -m bench.tune_style --game empires-end --seats 3 --generations 12`` prints a line
per generation and writes them to ``bench/results/tune-<game>-<time>.jsonl``; the last line
holds the style (only the numbers that differ from the default), which the game's
``TUNED`` in its ``bot.py`` copies. Games are played by the heuristic alone, so a generation
takes minutes, not the hours a search ladder takes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import time
from collections.abc import Sequence
from multiprocessing import Pool
from typing import Any

from shared.ai.registry import bot_module
from shared.rules import registry

RESULTS = os.path.join(os.path.dirname(__file__), "results")
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {"empire-cards": {"max_hands": 2}}
Flat = dict[str, float]


def flatten(style: dict[str, Any]) -> Flat:
    """Every number of a style by a path: ``field``, ``field.key`` (a dict's), ``field#i``
    (a tuple's)."""
    out: Flat = {}
    for k, v in style.items():
        if isinstance(v, dict):
            out.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        elif isinstance(v, tuple):
            out.update({f"{k}#{i}": vv for i, vv in enumerate(v)})
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = v
    return out


def unflatten(base: dict[str, Any], flat: Flat) -> dict[str, Any]:
    style: dict[str, Any] = {
        k: dict(v) if isinstance(v, dict) else list(v) if isinstance(v, tuple) else v
        for k, v in base.items()}
    for path, v in flat.items():
        if "." in path:
            k, kk = path.split(".", 1)
            style[k][kk] = v
        elif "#" in path:
            k, i = path.split("#", 1)
            style[k][int(i)] = v
        else:
            style[path] = v
    return {k: tuple(v) if isinstance(base[k], tuple) else v for k, v in style.items()}


def realize(base: Flat, mean: Flat, sigma: Flat, rng: random.Random | None) -> Flat:
    """A style at ``mean`` (in log space around ``base``), moved by ``sigma`` if ``rng``."""
    flat: Flat = {}
    for k, v0 in base.items():
        z = mean[k] + (sigma[k] * rng.gauss(0, 1) if rng is not None else 0.0)
        v = v0 + z if v0 <= 0 else v0 * math.exp(z)
        flat[k] = round(v) if isinstance(v0, int) else round(v, 3)
    return flat


def log_offsets(base: Flat, flat: Flat) -> Flat:
    return {k: flat[k] - v0 if v0 <= 0 else math.log(max(flat[k], 1e-3) / v0)
            for k, v0 in base.items()}


def play_lone(game_name: str, seats: int, options: dict[str, Any], style: Any,
              index: int) -> tuple[Any, int, float]:
    """Game ``index``: ``style`` (the game's ``Style``; None: the plain one) in the lone seat
    (``index`` mod ``seats``) among plain seats, the deal from seed 10,000 + ``index``.
    Returns the playout, the lone seat and its share of first place."""
    from shared.ai.playout import bot_actor, bot_chooser
    from shared.rules._kit.playout import play

    module = bot_module(game_name)
    game = registry.get(game_name)
    lone = index % seats
    bots = {s: module.HeuristicBot(style if s == lone else None) for s in range(seats)}
    out = play(game, seats, options, seed=10_000 + index,
               actors={s: bot_actor(b) for s, b in bots.items()},
               choosers={s: bot_chooser(b) for s, b in bots.items()}, max_steps=200_000)
    winners = [r.seat for r in game.score(out.state).results if r.place == 1]
    return out, lone, 1.0 / len(winners) if lone in winners else 0.0


def play_one(args: tuple[str, int, dict[str, Any], dict[str, Any] | None, int]) -> float:
    """The lone seat's share of first place in game ``index`` (the styled seat among plain)."""
    game_name, seats, options, style, index = args
    module = bot_module(game_name)
    return play_lone(game_name, seats, options, module.Style(**style) if style else None,
                     index)[2]


def score(pool: Any, game: str, seats: int, options: dict[str, Any],
          style: dict[str, Any] | None, first: int, n: int) -> float:
    jobs = [(game, seats, options, style, i) for i in range(first, first + n)]
    shares: list[float] = pool.map(play_one, jobs, chunksize=5)
    return sum(shares) / n


def merged(base: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the fields of ``given`` (JSON: a dict field's keys merged, a list
    read as the tuple it stands for)."""
    out = dict(base)
    for k, v in given.items():
        if isinstance(base[k], dict):
            out[k] = {**base[k], **v}
        else:
            out[k] = tuple(v) if isinstance(base[k], tuple) else v
    return out


def changed(base: dict[str, Any], style: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in style.items() if v != base[k]}


def new_record(game: str) -> tuple[Any, str]:
    """A new ``bench/results/tune-<game>-<time>[-n].jsonl``, never another run's (two runs
    started in the same second get two files)."""
    stem = os.path.join(RESULTS, f"tune-{game}-{time.strftime('%Y%m%d-%H%M%S')}")
    for n in range(1000):
        path = f"{stem}-{n}.jsonl" if n else f"{stem}.jsonl"
        try:
            return open(path, "x"), path
        except FileExistsError:
            continue
    raise RuntimeError(f"no free record name beside {stem}.jsonl")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--generations", type=int, default=12)
    ap.add_argument("--population", type=int, default=16)
    ap.add_argument("--games", type=int, default=120, help="games per style and generation")
    ap.add_argument("--sigma", type=float, default=0.4)
    ap.add_argument("--first", type=int, default=100_000, help="the first game's number")
    ap.add_argument("--validate", type=int, default=0, help="games for the final check")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--options", default=None, help="game options (JSON)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--style", default=None,
                    help="start from this style (JSON: the fields that differ from the default; "
                         "with --generations 0 --validate N, check it), or 'tuned': the "
                         "game's TUNED")
    args = ap.parse_args(argv)
    options = (json.loads(args.options) if args.options
               else DEFAULT_OPTIONS.get(args.game, {}))
    module = bot_module(args.game)
    default_style = base_style = dataclasses.asdict(module.Style())
    base = flatten(base_style)
    mean = dict.fromkeys(base, 0.0)
    if args.style:
        given = (dataclasses.asdict(module.TUNED) if args.style == "tuned"
                 else json.loads(args.style))
        mean = log_offsets(base, flatten(merged(base_style, given)))
        # switches (booleans, strings) are not tuned: they keep the given style's values
        base_style = merged(base_style, {k: v for k, v in given.items()
                                         if not isinstance(v, (int, float, dict, list))
                                         or isinstance(v, bool)})
    sigma = dict.fromkeys(base, args.sigma)
    rng = random.Random(args.seed)
    os.makedirs(RESULTS, exist_ok=True)
    log, path = new_record(args.game)
    with Pool(args.workers) as pool, log:
        def emit(record: dict[str, Any]) -> None:
            print(json.dumps(record), flush=True)
            log.write(json.dumps(record) + "\n")
            log.flush()

        emit({**vars(args), "options": options})
        style = unflatten(base_style, realize(base, mean, sigma, None))
        for g in range(args.generations):
            first = args.first + g * args.games
            cands = [realize(base, mean, sigma, None)]
            cands += [realize(base, mean, sigma, rng) for _ in range(args.population - 1)]
            scores = [score(pool, args.game, args.seats, options, unflatten(base_style, c),
                            first, args.games) for c in cands]
            order = sorted(range(len(cands)), key=lambda i: -scores[i])
            elite = [log_offsets(base, cands[i]) for i in order[: max(2, len(cands) // 4)]]
            for k in base:
                vals = [e[k] for e in elite]
                m = sum(vals) / len(vals)
                sd = math.sqrt(sum((x - m) ** 2 for x in vals) / len(vals))
                mean[k], sigma[k] = m, max(0.05, 0.5 * sigma[k] + 0.5 * sd)
            style = unflatten(base_style, realize(base, mean, sigma, None))
            emit({"generation": g, "games": [first, first + args.games],
                  "mean_style_score": round(scores[0], 3),
                  "best": [round(x, 3) for x in sorted(scores, reverse=True)[:4]],
                  "population_mean": round(sum(scores) / len(scores), 3),
                  "style": changed(default_style, style)})
        if args.validate:
            first = args.first + args.generations * args.games
            tuned = score(pool, args.game, args.seats, options, style, first, args.validate)
            plain = score(pool, args.game, args.seats, options, None, first, args.validate)
            emit({"validate": [first, first + args.validate], "tuned": round(tuned, 3),
                  "plain": round(plain, 3), "fair": round(1 / args.seats, 3),
                  "style": changed(default_style, style)})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
