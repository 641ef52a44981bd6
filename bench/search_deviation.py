"""How often a search level leaves the heuristic's move, on the same positions.

The positions are every k-th decision with a real choice in heuristic games (2 seats unless
``--seats``; the Card Game needs 3; seeds 20001-20003, the tuning seeds, not the ladder's
10000+; ``--options`` as in ``bench.ladder``). Each variant decides each position
once from the seat's view and what it remembers of the events so far (a fresh bot, seed = the
position's number; ``--no-memory``: the view alone); the count is how often
its choice differs from the heuristic's own choice there. Variants are ``bench.ladder``
entrants (``normal``, ``hard``, ``normal~iterations=400~prior_bias=0.1``, ...), or ``random``:
a yardstick that always leaves it, for a random other legal move (turns only), so that
``--judge`` shows how much a move can matter there.

With ``--judge N`` each move the variant chose instead of the heuristic's (on a turn) is
judged against the heuristic's own: both are played from the true state (every hand and the
deck as they are), N playouts each to the end of the game, every seat played by its
heuristic with a random legal move one time in ten (so the playouts differ), scored as the
search scores a finished game (half the result, half ``evaluate``'s margin). The report gives
the mean difference per deviation (the variant's move minus the heuristic's, in the seat's
win share) with its standard error, and how many deviations came out better and worse. It
knows what no seat knows, so it says whether the moves were better in these deals, not
whether they were wise with what the seat could see; over many positions that is the usual
test of a search's deviations from its prior.

```sh
python -m bench.search_deviation --game empires-end --positions 30 --levels normal,hard
python -m bench.search_deviation --game empire-cards --seats 3 --options '{"max_hands": 2}'
python -m bench.search_deviation --game empire-cards --seats 3 --options '{"max_hands": 2}' \
    --levels hard,hard~prior_bias_multi=0.1 --positions 40 --judge 24
```
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
from collections.abc import Sequence
from typing import Any

from bench.ladder import search_level
from shared.ai import registry as ai
from shared.ai.search import (
    Level,
    SearchBot,
    Searcher,
    key_of,
    seeded_heuristic,
)
from shared.ai.search.tree import _Node, _Root
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Event, Simultaneous, Turn, client_events

Case = tuple[Any, Any, int, list[Event]]


def positions(name: str, n: int, seats: int = 2, options: dict[str, Any] | None = None
              ) -> list[Case]:
    """(state, pending node, seat, the game's events so far) at ``n`` decisions with more
    than one choice."""
    game = registry.get(name)
    seen: list[tuple[Any, list[Event], int]] = []
    for seed in (20001, 20002, 20003):
        events: list[Event] = []

        def keep(state: Any, move: Any, events: list[Event] = events) -> None:
            seen.append((state, events, len(events)))

        play(game, seats, options or {}, seed=seed, max_steps=3000, on_step=keep,
             on_events=events.extend)
    cases: list[Case] = []
    for state, events, upto in seen:
        node = game.next(state)
        if isinstance(node, Turn) and len(game.legal_actions(state, node.seats[0])) > 1:
            cases.append((state, node, node.seats[0], events[:upto]))
        elif isinstance(node, Simultaneous) and len(node.slots[0].allowed or ()) > 1:
            cases.append((state, node, node.slots[0].seat, events[:upto]))
    return cases[:: max(1, len(cases) // n)][:n]


JUDGE = Level("judge", iterations=0, time_s=0.0, tree_depth=1, rollout_depth=1_000_000,
              heuristic=0.9)


def judge(name: str, state: Any, seat: int, move: Any, playouts: int, seed: int) -> float:
    """The seat's mean reward over ``playouts`` playouts from the true ``state`` after
    ``move`` (a turn's action): the search's own iteration with the true state as its only
    determinization, one candidate at the root and the rollout to the end of the game."""
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    oracle = dataclasses.replace(spec, determinize=lambda view, s, rng: state, recall=None)
    searcher = Searcher(game, oracle, JUDGE, random.Random(seed), seeded_heuristic(
        spec, random.Random(seed)))
    tree = _Node()
    root = _Root(seat=seat, legal=[move])
    for _ in range(playouts):
        searcher.iterate({}, root, tree, move)
    child = tree.children[key_of(move)]
    return child.value / max(1, child.visits)


def deviations(name: str, level: str, cases: list[Case], playouts: int = 0,
               memory: bool = True, margin_multi: float | None = None) -> int:
    """How often ``level`` leaves the heuristic's move; with ``playouts``, each such move on a
    turn is judged against the heuristic's (``judge``) and the figures printed. With
    ``memory`` the bot first observes the events the seat's client got so far, as in a game
    (``SearchSpec.remember``; the ladder and the bot runner do the same). ``margin_multi``
    replaces the game's ``SearchSpec.margin_multi`` (the least margin at 3+ seats)."""
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    if margin_multi is not None:
        spec = dataclasses.replace(spec, margin_multi=margin_multi)
    out = 0
    diffs: list[float] = []
    for i, (state, node, seat, events) in enumerate(cases):
        bot = SearchBot(game, spec, search_level("easy" if level == "random" else level), seed=i)
        if memory:
            bot.observe(client_events(events, seat), seat)
        view = game.view(state, seat)
        if isinstance(node, Turn):
            legal = list(game.legal_actions(state, seat))
            heuristic = bot.own.act(view, legal, seat)
            if level == "random":  # the yardstick: any other legal move
                others = [a for a in legal if a != heuristic]
                choice = random.Random(i).choice(others) if others else heuristic
            else:
                choice = bot.act(view, legal, seat)
        elif level == "random":
            continue
        else:
            slot = next(s for s in node.slots if s.seat == seat)
            heuristic = bot.own.choose(view, slot, seat, {})
            choice = bot.choose(view, slot, seat, {})
        out += choice != heuristic
        if playouts and choice != heuristic and isinstance(node, Turn):
            mine = judge(name, state, seat, choice, playouts, seed=1000 + i)
            theirs = judge(name, state, seat, heuristic, playouts, seed=1000 + i)
            diffs.append(mine - theirs)
    if diffs:
        mean = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
        better = sum(d > 0 for d in diffs)
        worse = sum(d < 0 for d in diffs)
        print(f"{name} {level:40} judged {len(diffs)} deviations ({playouts} playouts a move): "
              f"mean {mean:+.3f} (se {se:.3f}), better {better}, worse {worse}", flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="empires-end")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--levels", default="normal,normal~iterations=400,hard")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--options", default="{}", help="the game's options, JSON")
    parser.add_argument("--judge", type=int, default=0,
                        help="playouts per move to judge each deviation on a turn (0: none)")
    parser.add_argument("--no-memory", action="store_true",
                        help="the bots do not observe the game's events (SearchSpec.remember)")
    parser.add_argument("--margin-multi", type=float, default=None,
                        help="replace the game's SearchSpec.margin_multi (3+ seats)")
    args = parser.parse_args(argv)
    cases = positions(args.game, args.positions, args.seats, json.loads(args.options))
    for level in args.levels.split(","):
        n = deviations(args.game, level, cases, args.judge, memory=not args.no_memory,
                       margin_multi=args.margin_multi)
        print(f"{args.game} {level:40} leaves the heuristic's move in {n}/{len(cases)}"
              f"{' (no memory)' if args.no_memory else ''}", flush=True)


if __name__ == "__main__":
    main()
