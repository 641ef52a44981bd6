"""What the search needs from a game besides the contract (``SearchSpec``, each game's
``shared/ai/<package>/determinize.py``: ``SEARCH``), and the helpers a game's spec is built
from."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.ai.search.levels import Level
from shared.rules.api import Json, Seat

Determinizer = Callable[[dict[str, Json], Seat, random.Random], Any]
# the seat's memory of the public record so far, the events it saw since (as its client gets
# them: ``client_events``), the seat -> the new memory (JSON; None = nothing remembered)
Remember = Callable[[Json, Sequence[dict[str, Json]], Seat], Json]
# a determinizer that also uses that memory (``SearchSpec.recall``)
Recaller = Callable[[dict[str, Json], Seat, random.Random, Json], Any]
Evaluator = Callable[[Any], Sequence[float]]
# a rollout heuristic, rng -> none: a fresh draw of that bot's style from the population the
# game's heuristic bots come from (``SearchSpec.restyle``)
Restyle = Callable[[Any, random.Random], None]
# view, seat, heuristic bot, most plans (``Level.max_plans``) -> the seat's candidate plans
# for a sealed round in which it fills several slots (slot key -> choice), the heuristic's
# plan first; [] = slot by slot
Planner = Callable[[dict[str, Json], Seat, Any, int], list[dict[str, Json]]]
Deadline = Callable[[], bool]  # True: stop searching now (the runner's clock, not ours)


@dataclass(frozen=True)
class SearchSpec:
    """What the search needs from a game besides the contract (each game's package)."""

    determinize: Determinizer  # view, seat, rng -> a full state consistent with the view
    evaluate: Evaluator  # state -> each seat's estimated chance of winning, in [0, 1]
    heuristic: Callable[[], Any]  # a fresh heuristic ``Bot``: rollout policy and prior
    plans: Planner | None = None  # several own slots in one round: search whole plans
    # A bot's memory of the public record: what a player who watched every public
    # event knows and the view no longer shows (the Engine's hidden score piles, EE-12, are
    # the sum of public moves but one). ``remember`` folds the events a seat saw into a
    # summary; ``recall`` determinizes with it. The memory must be complete (every public
    # event since the game began, or since whatever start the game's memory folds from: the
    # Card Game's, a hand's deal) or None: then ``determinize`` samples without it.
    remember: Remember | None = None
    recall: Recaller | None = None
    # Other seats' styles: a game whose heuristic bots differ in style (the
    # Engine's, each drawing once a game what an Invention is worth to it at 3+ seats) gives
    # ``restyle``; the search then models each other seat by its own heuristic, its style
    # drawn afresh every iteration (the seat's style is hidden: it is sampled like a hand).
    # Without it every seat plays the search's own heuristic, its own style included.
    restyle: Restyle | None = None
    # the smallest table at which ``restyle`` applies (the Engine's styles are a 3+ seat
    # matter; at 2 seats its search against normal does no better with it: bench/README.md,
    # the bot ladder)
    restyle_seats: int = 3
    # the least margin (``Level.margin``) the heuristic's move keeps at a table of 3 or more
    # in this game: where the search's estimates there are too close to tell moves apart,
    # hard's margin of 0 lets it leave the heuristic on noise (bench/README.md, the bot
    # ladder: ``bench.search_deviation --judge``)
    margin_multi: float = 0.0
    # level name -> ``Level.blunder`` in this game: where every level keeps the
    # heuristic's move almost everywhere (the Card Game and New York at 3+ seats, under
    # ``margin_multi``), the levels play alike; the lower levels then play some random moves,
    # as weaker players do, so that the levels a host picks differ
    blunders: Mapping[str, float] = field(default_factory=dict)
    # a fresh heuristic ``Bot`` of a stronger style: the game's heuristic with its
    # weights tuned by ``bench.tune_style`` against seats of the plain heuristic (and, in the
    # Card Game, switches chosen against them). A level with ``Level.tuned`` plays its own
    # seat with it; None: the game has none, and every level plays its own seat with
    # ``heuristic``
    tuned: Callable[[], Any] | None = None
    # at a table of 3 or more, a level with ``Level.tuned`` plays the tuned heuristic's move
    # without searching: where the search's estimates there cannot tell moves apart, its few
    # departures from a stronger prior cost more than they gain (Empire's End, one hard seat
    # among heuristic seats: 0.48 of 21 first places with the search, 0.80 of 60 with the
    # tuned move alone; bench/README.md, the bot ladder)
    tuned_alone_multi: bool = False

    def margin(self, level: Level, seats: int) -> float:
        """The heuristic's margin for ``level`` at a table of ``seats`` in this game."""
        if seats >= 3:
            return max(level.margin(seats), self.margin_multi)
        return level.margin(seats)


def win_shares(strengths: Sequence[float], scale: float) -> list[float]:
    """Estimated win chances from per-seat strengths (softmax; ``scale`` = one "unit" of
    lead that makes a seat e times likelier to win)."""
    top = max(strengths)
    weights = [math.exp((v - top) / scale) for v in strengths]
    total = sum(weights)
    return [w / total for w in weights]


def seeded_heuristic(spec: SearchSpec, rng: random.Random, tuned: bool = False) -> Any:
    """A fresh heuristic of the spec (``tuned``: its tuned one, ``SearchSpec.tuned``), its
    own draws (if it has an ``rng``) seeded from ``rng``, so a seeded search is
    reproducible."""
    bot = spec.tuned() if tuned and spec.tuned is not None else spec.heuristic()
    if isinstance(getattr(bot, "rng", None), random.Random):
        bot.rng.seed(rng.random())
    return bot

