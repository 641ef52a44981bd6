"""Search throughput with and without random rollouts: iterations per CPU-second.

Heuristic bots play a game (fixed seed). At every ``--every``-th decision with a choice (a
turn or a sealed slot), the seat's view and legal actions or slot go to a search bot at
``--level``, once per rollout mode: the level as it is (the heuristic rollout policy on the
contract path, ``fast_depth`` 0) and the same level with ``fast_depth`` = each of ``--depths``
(random seats on a clone of the state, through the rollout driver). Each mode gets the same
decisions and the level's iteration budget without a deadline; the report is iterations per
CPU-second per mode and how often each mode picks the plain level's move.

```sh
python -m bench.search_rollouts --games empire,empire-engine --level hard --depths 30,200
```
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from typing import Any

from shared.ai import registry as ai
from shared.ai.search import LEVELS, SearchBot
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Game, Json, SealedSlot

SEATS = {"empire": 3, "empire-engine": 3, "empires-end": 3, "empire-nyc": 3, "empire-cards": 3}
OPTIONS: dict[str, dict[str, Json]] = {"empire-nyc": {"max_rounds": 8},
                                       "empire-cards": {"max_hands": 2}}


def measure(game_name: str, level: str, depths: list[int], every: int, decisions: int,
            seed: int) -> dict[str, Any]:
    game: Game = registry.get(game_name)
    driver = registry.get_rollout(game_name)
    spec = ai.get_search_spec(game_name)
    base = LEVELS[level]
    modes = {"policy": base} | {f"fast{d}": dataclasses.replace(base, fast_depth=d)
                                for d in depths}
    cpu = dict.fromkeys(modes, 0.0)
    iters = dict.fromkeys(modes, 0)
    same = dict.fromkeys(modes, 0)
    seen = [0, 0]  # turns with a choice, decisions searched
    heuristic = ai.get_bot(game_name)

    def search(ask: Any) -> None:
        """One decision per mode: ``ask(bot)`` is the bot's act or choose call."""
        seen[0] += 1
        if seen[0] % every or seen[1] >= decisions:
            return
        seen[1] += 1
        picks = {}
        for name, lvl in modes.items():
            bot = SearchBot(game, spec, lvl, seed=seen[1], rollout=driver)
            t0 = time.process_time()
            picks[name] = ask(bot)
            cpu[name] += time.process_time() - t0
            iters[name] += bot.last_iterations
        for name in modes:
            same[name] += picks[name] == picks["policy"]

    def actor(g: Game, state: Any, seat: int, rng: random.Random) -> Json:
        legal = list(g.legal_actions(state, seat))
        view = g.view(state, seat)
        if len(legal) > 1:
            search(lambda bot: bot.act(view, legal, seat))
        return heuristic.act(view, legal, seat)  # type: ignore[no-any-return]

    def chooser(g: Game, state: Any, slot: SealedSlot, rng: random.Random,
                publics: dict[str, Json]) -> Json:
        view = g.view(state, slot.seat)
        if slot.allowed is not None and len(slot.allowed) > 1:
            search(lambda bot: bot.choose(view, slot, slot.seat, publics))
        return heuristic.choose(view, slot, slot.seat, publics)  # type: ignore[no-any-return]

    n = SEATS[game_name]
    play(game, n, dict(OPTIONS.get(game_name, {})), seed=seed,
         actors=dict.fromkeys(range(n), actor),
         choosers=dict.fromkeys(range(n), chooser), max_steps=20_000)
    return {"game": game_name, "level": level, "decisions": seen[1],
            "iterations_per_cpu_s": {m: round(iters[m] / cpu[m], 1) if cpu[m] else None
                                     for m in modes},
            "same_as_policy": {m: same[m] for m in modes}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(SEATS))
    parser.add_argument("--level", default="normal")
    parser.add_argument("--depths", default="30,200")
    parser.add_argument("--every", type=int, default=7)
    parser.add_argument("--decisions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",") if d]
    for g in args.games.split(","):
        print(measure(g, args.level, depths, args.every, args.decisions, args.seed), flush=True)


if __name__ == "__main__":
    main()
