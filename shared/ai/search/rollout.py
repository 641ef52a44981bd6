"""The rollouts of a search: the policy that plays the other seats (and the observer once
the tree ends), the sampled chance outcomes, and the rewards at the end of a rollout."""

from __future__ import annotations

import random
from typing import Any

from shared.ai.search.levels import Level
from shared.ai.search.spec import SearchSpec, seeded_heuristic
from shared.rules._kit.rollout import RolloutDriver
from shared.rules.api import Chance, ChanceOutcome, Game, Json, SealedSlot, Seat


def result_values(game: Game, state: Any) -> list[float]:
    """A finished game's reward per seat: 1 for a sole win, 1/k shared by k winners, else 0."""
    outcome = game.score(state)
    winners = [r.seat for r in outcome.results if r.place == 1]
    out = [0.0] * len(outcome.results)
    for s in winners:
        out[s] = 1.0 / len(winners)
    return out


def sample_chance(node: Chance, rng: random.Random) -> ChanceOutcome:
    if node.draw == "shuffle":
        values = rng.sample(range(node.n), node.n)
    elif node.draw == "below":
        values = [rng.randrange(node.n) for _ in range(node.count)]
    else:
        values = [rng.randint(1, node.n) for _ in range(node.count)]
    return ChanceOutcome(label=node.label, values=tuple(values))


class Rollouts:
    """The rollout policy of one search (``Searcher``): the observer's own heuristic, the model
    of the other seats, and the random rollout. ``rollout``: the game's rollout driver
    (``shared.rules.registry.get_rollout``), for random rollouts when ``Level.fast_depth``."""

    def __init__(self, game: Game, spec: SearchSpec, level: Level, rng: random.Random,
                 heuristic: Any, rollout: RolloutDriver | None = None, model: Any = None
                 ) -> None:
        self.game = game
        self.spec = spec
        self.level = level
        self.rng = rng
        self.heuristic = heuristic  # the observer's own policy and prior
        # the other seats' policy, unless ``SearchSpec.restyle`` gives each its own (None:
        # the observer's, as when the level plays the game's plain heuristic)
        self.model = model if model is not None else heuristic
        self.rollout = rollout if level.fast_depth > 0 else None
        self.others: dict[Seat, Any] = {}  # the other seats' heuristics (``SearchSpec.restyle``)
        self.seats = 0  # the table size, read off the first determinization

    def policy(self, seat: Seat, observer: Seat) -> Any:
        """The heuristic that plays ``seat`` in this iteration's rollouts: the search's own
        for the observer; for another seat the model of the others (the game's heuristic)
        without ``SearchSpec.restyle`` or at a table smaller than ``restyle_seats``, else the
        seat's own, styled at this iteration's start (``restyle_others``)."""
        if seat == observer:
            return self.heuristic
        if self.spec.restyle is None or self.seats < self.spec.restyle_seats:
            return self.model
        bot = self.others.get(seat)
        if bot is None:
            bot = self.others[seat] = seeded_heuristic(self.spec, self.rng)
            self.spec.restyle(bot, self.rng)
        return bot

    def restyle_others(self) -> None:
        """A fresh style for every other seat's heuristic (one iteration = one sample of the
        hidden styles, as of the hidden cards)."""
        if self.spec.restyle is not None:
            for bot in self.others.values():
                self.spec.restyle(bot, self.rng)

    def policy_act(self, state: Any, seat: Seat, observer: Seat) -> Json:
        legal = list(self.game.legal_actions(state, seat))
        if len(legal) == 1:
            return legal[0]
        if self.rng.random() < self.level.heuristic:
            choice = self.policy(seat, observer).act(self.game.view(state, seat), legal, seat)
            if choice is not None:
                return choice  # type: ignore[no-any-return]
        return self.rng.choice(legal)

    def policy_choose(self, state: Any, slot: SealedSlot, publics: dict[str, Json],
                      observer: Seat, known: Json,
                      views: dict[Seat, dict[str, Json]]) -> Json:
        """A sealed choice by the rollout policy. ``known``: the public part already
        committed for this slot (the choice must agree with it). ``views``: the seats' views
        of ``state`` made so far in this round (one per seat, however many slots it fills:
        in the Engine's Plan round, remaking the same view would take 43% of hard's time)."""
        allowed = list(slot.allowed) if slot.allowed is not None else None
        if isinstance(known, dict) and allowed is not None:
            allowed = [a for a in allowed if isinstance(a, dict)
                       and all(a.get(k) == v for k, v in known.items())] or allowed
        if allowed is None or self.rng.random() < self.level.heuristic:
            if slot.seat not in views:
                views[slot.seat] = self.game.view(state, slot.seat)
            choice = self.policy(slot.seat, observer).choose(views[slot.seat], slot, slot.seat,
                                                             publics)
            if allowed is None or choice in allowed:
                return choice  # type: ignore[no-any-return]
        return self.rng.choice(allowed) if allowed else slot.default

    def _random_rollout(self, state: Any) -> list[float]:
        """Random seats on a clone of the state for ``Level.fast_depth`` moves, from a
        fresh draw key (the chance outcomes: the dealer's draws under a key nobody knows,
        as uniform as ``sample_chance``); the models only at the two ends."""
        driver = self.rollout
        assert driver is not None
        key = self.rng.getrandbits(256).to_bytes(32, "big")
        out = driver.playout(driver.from_state(state), self.rng, key, self.level.fast_depth)
        end = driver.to_state(out.state)
        if out.finished:
            won, margin = result_values(self.game, end), self.spec.evaluate(end)
            return [0.5 * w + 0.5 * m for w, m in zip(won, margin, strict=True)]
        return list(self.spec.evaluate(end))
