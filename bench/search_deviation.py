"""How often a search level leaves the heuristic's move (issue 22), on the same positions.

The positions are every k-th decision with a real choice in heuristic games (2 seats unless
``--seats``; the Card Game needs 3; seeds 20001-20003, the tuning seeds, not the ladder's
10000+; ``--options`` as in ``bench.ladder``). Each variant decides each position
once from the seat's view (a fresh bot, seed = the position's number); the count is how often
its choice differs from the heuristic's own choice there. Variants are ``bench.ladder``
entrants (``normal``, ``hard``, ``normal~iterations=400~prior_bias=0.1``, ...).

```sh
python -m bench.search_deviation --game empires-end --positions 30 --levels normal,hard
python -m bench.search_deviation --game empire-cards --seats 3 --options '{"max_hands": 2}'
```
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from bench.ladder import search_level
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules._kit.search import SearchBot
from shared.rules.api import Simultaneous, Turn


def positions(name: str, n: int, seats: int = 2, options: dict[str, Any] | None = None
              ) -> list[tuple[Any, Any, int]]:
    """(state, pending node, seat) at ``n`` decisions with more than one choice."""
    game = registry.get(name)
    seen: list[Any] = []
    for seed in (20001, 20002, 20003):
        play(game, seats, options or {}, seed=seed, max_steps=3000,
             on_step=lambda s, m: seen.append(s))
    cases: list[tuple[Any, Any, int]] = []
    for state in seen:
        node = game.next(state)
        if isinstance(node, Turn) and len(game.legal_actions(state, node.seats[0])) > 1:
            cases.append((state, node, node.seats[0]))
        elif isinstance(node, Simultaneous) and len(node.slots[0].allowed or ()) > 1:
            cases.append((state, node, node.slots[0].seat))
    return cases[:: max(1, len(cases) // n)][:n]


def deviations(name: str, level: str, cases: list[tuple[Any, Any, int]]) -> int:
    game = registry.get(name)
    out = 0
    for i, (state, node, seat) in enumerate(cases):
        bot = SearchBot(game, registry.get_search_spec(name), search_level(level), seed=i)
        view = game.view(state, seat)
        if isinstance(node, Turn):
            legal = list(game.legal_actions(state, seat))
            heuristic = bot.heuristic.act(view, legal, seat)
            choice = bot.act(view, legal, seat)
        else:
            slot = next(s for s in node.slots if s.seat == seat)
            heuristic = bot.heuristic.choose(view, slot, seat, {})
            choice = bot.choose(view, slot, seat, {})
        out += choice != heuristic
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="empires-end")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--levels", default="normal,normal~iterations=400,hard")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--options", default="{}", help="the game's options, JSON")
    args = parser.parse_args(argv)
    cases = positions(args.game, args.positions, args.seats, json.loads(args.options))
    for level in args.levels.split(","):
        n = deviations(args.game, level, cases)
        print(f"{args.game} {level:40} leaves the heuristic's move in {n}/{len(cases)}",
              flush=True)


if __name__ == "__main__":
    main()
