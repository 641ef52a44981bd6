"""The search bot: a contract ``Bot`` whose ``act``/``choose`` search (``Searcher``) from the
seat's view, and the deadline a runner builds from its own clock."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from shared.ai.search.levels import LEVELS, Level
from shared.ai.search.spec import Deadline, SearchSpec, seeded_heuristic
from shared.ai.search.tree import Searcher, _Root
from shared.rules._kit.rollout import RolloutDriver
from shared.rules.api import Game, Json, SealedSlot, Seat


class SearchBot:
    """A contract ``Bot`` that searches. The runner may pass ``deadline`` to either method
    (``Level.time_s`` is the budget to build it from); without one, ``Level.iterations``
    bounds the work."""

    def __init__(self, game: Game, spec: SearchSpec, level: str | Level = "normal",
                 seed: int | None = None, rollout: RolloutDriver | None = None) -> None:
        self.game = game
        self.spec = spec
        self.rollout = rollout  # the game's rollout driver, for ``Level.fast_depth`` rollouts
        self.level = LEVELS[level] if isinstance(level, str) else level
        if self.level.name in spec.blunders:
            self.level = replace(self.level, blunder=spec.blunders[self.level.name])
        self.rng = random.Random(seed)
        self.heuristic = seeded_heuristic(spec, self.rng)  # the model of the others
        # its own seat's heuristic: the game's tuned one at a level that asks for it
        self.own = (seeded_heuristic(spec, self.rng, tuned=True)
                    if self.level.tuned and spec.tuned is not None else self.heuristic)
        self._sealed: dict[str, dict[str, Json]] = {}  # round id -> own slot -> choice
        # the public record remembered (``SearchSpec.remember``): complete from the game's
        # first event, else None; the bot runner passes it with each decision
        self.remembered: Json = None
        self.last_iterations = 0

    def observe(self, events: Sequence[dict[str, Json]], seat: Seat) -> None:
        """Remember the events the seat's client just received (all of them, in order, from
        the game's first; a caller that missed some must set ``remembered`` to None)."""
        if self.spec.remember is not None:
            self.remembered = self.spec.remember(self.remembered, events, seat)

    def _blunders(self) -> bool:
        """Whether this decision is one of the level's random ones (``Level.blunder``; the
        bot's own draws, so a seeded bot stays reproducible and a level without blunders
        draws nothing for it)."""
        return self.level.blunder > 0 and self.rng.random() < self.level.blunder

    def _searcher(self) -> Searcher:
        return Searcher(self.game, self.spec, self.level, self.rng, self.own, self.rollout,
                        self.remembered, model=self.heuristic)

    def act(self, view: dict[str, Json], legal: Sequence[Json], seat: Seat,
            deadline: Deadline | None = None) -> Json:
        options = list(legal)
        fallback = self.own.act(view, options, seat)
        if len(options) <= 1:
            return options[0] if options else fallback
        if self._blunders():
            self.last_iterations = 0
            return self.rng.choice(options)
        searcher = self._searcher()
        choice = searcher.run(view, _Root(seat=seat, legal=options), fallback, deadline)
        self.last_iterations = searcher.iterations
        return choice

    def choose(self, view: dict[str, Json], slot: SealedSlot, seat: Seat,
               public_parts: dict[str, Json], deadline: Deadline | None = None) -> Json:
        round_id = _round_id(view)
        fixed = self._sealed.get(round_id, {}) if round_id is not None else {}
        if slot.key in fixed:  # the rest of a plan searched at this round's first slot
            self.last_iterations = 0
            return fixed[slot.key]
        fallback: Json = self.own.choose(view, slot, seat, public_parts)
        allowed = list(slot.allowed) if slot.allowed is not None else None
        blunder = allowed is not None and len(allowed) > 1 and self._blunders()
        plans = (self.spec.plans(view, seat, self.own, self.level.max_plans)
                 if self.spec.plans and not blunder else [])
        plans = [p for p in plans if all(fixed.get(k, c) == c for k, c in p.items())]
        if blunder and allowed:
            self.last_iterations = 0
            choice = self.rng.choice(allowed)
        elif plans and len(plans) > 1:
            searcher = self._searcher()
            root = _Root(seat=seat, slot=slot, round_id=round_id, fixed=dict(fixed),
                         public_parts=dict(public_parts), plans=plans)
            plan = searcher.run(view, root, plans[0], deadline)
            self.last_iterations = searcher.iterations
            assert isinstance(plan, dict)
            choice = plan.get(slot.key, fallback)
            fixed = {**fixed, **{k: c for k, c in plan.items() if k != slot.key}}
        elif allowed is not None and len(allowed) > 1:
            searcher = self._searcher()
            root = _Root(seat=seat, slot=slot, round_id=round_id, fixed=dict(fixed),
                         public_parts=dict(public_parts))
            choice = searcher.run(view, root, fallback, deadline)
            self.last_iterations = searcher.iterations
        else:
            choice = fallback
        if round_id is not None:
            self._sealed = {round_id: {**fixed, slot.key: choice}}  # only the pending round
        return choice


def deadline_within(budget_s: float, clock: Callable[[], float]) -> Deadline:
    """A deadline that keeps a decision inside ``budget_s`` of ``clock`` (the runner's: wall
    or CPU time; this module reads none itself), counted from now. The search asks it once
    before each iteration, so the longest gap between two asks is the longest iteration
    yet: it says stop once another such iteration would end past the budget, not once the
    budget is spent (which let the last iteration run over it)."""
    end = clock() + budget_s
    last = clock()
    longest = 0.0

    def deadline() -> bool:
        nonlocal last, longest
        now = clock()
        longest = max(longest, now - last)
        last = now
        return now + longest >= end

    return deadline


def _round_id(view: dict[str, Json]) -> str | None:
    """The pending sealed round's id as the game's view names it (None if it shows none)."""
    for container in (view, view.get("you"), view.get("sealed"), view.get("pending")):
        if isinstance(container, dict):
            rid = container.get("round_id")
            if isinstance(rid, str):
                return rid
    return None
