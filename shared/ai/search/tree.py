"""Search bots: information-set Monte Carlo tree search over the game contract (issue 22).

A search bot sees what a client sees: its view (``game.view(state, seat)``) and its legal
actions or sealed slot. The bot runner calls it through the contract's ``Bot`` methods, so it
gets nothing more. The search takes no input from a clock. The runner may pass a ``deadline``
callable, built from ``Level.time_s`` and the runner's clock by ``deadline_within``, that says
when to stop (before an iteration would run past the budget). Every iteration:

1. **Determinize.** It samples a full state consistent with the view with the game's
   ``determinize(view, seat, rng)``: hidden hands, deck orders and missions, drawn afresh
   from what the seat cannot see. The sample never looks at the true state, because it only
   has the view, and what the seat remembers of the public record: a game whose view forgets
   what every player saw (the Engine's hidden score piles, EE-12; the Card Game's discard
   piles under their tops, CG-16) gives ``SearchSpec.remember``
   and ``recall``, and the bot folds the public events it was sent into its memory
   (``SearchBot.observe``; the bot runner reads them off the game's record).
2. **Tree.** This is open-loop, single-observer ISMCTS (Cowling, Powley & Whitehouse, 2012).
   The tree's nodes are the observer's own decisions, keyed by the actions taken so far.
   UCB1 with availability counts chooses among the actions legal in this determinization.
   Progressive widening admits candidates in prior order: the game's heuristic choice
   first, then the others in a fixed shuffled order.
3. **The others.** Other seats move by the rollout policy: the game's heuristic bot with
   probability ``Level.heuristic``, otherwise a uniformly random legal move. Their sealed
   choices are hidden, so they are drawn in each iteration and never branched on. This
   applies to simultaneous rounds. In an ordered round, it also applies to the public part
   already committed, except that the sample respects that part. Chance outcomes are
   sampled. A game whose heuristic bots differ in style gives ``SearchSpec.restyle``: each
   other seat then plays its own heuristic, its style drawn afresh every iteration, as a
   hidden hand is (the Engine: what an Invention is worth to it at 3+ seats).
4. **Rollout.** After leaving the tree, everyone plays ``Level.rollout_depth`` more moves by
   the rollout policy. Then the game's ``evaluate(state)`` gives an estimated win chance per
   seat. At Terminal, the reward is half the result (1 for a win, 1/k for a k-way shared
   first place, 0 otherwise) and half ``evaluate``, the margin, which makes it less noisy.
   With ``Level.fast_depth`` the rollout instead runs on the game's fast engine
   (``_kit/fast.py``): random seats on the compact state, the models only at its two ends.
   No level uses it: random rollouts played weaker than the heuristic's, even with 4x the
   iterations (``bench/README.md``, "Search rollouts on the fast engines").

The chosen move is the root candidate with the best lower confidence bound (mean minus
``caution / sqrt(visits)``), where the heuristic's own choice gets a margin added
(``Level.margin``: ``prior_bias``, or ``prior_bias_multi`` at a table of 3 or more seats,
whose size the search reads off its first determinization). A small budget therefore keeps
the heuristic's move unless the samples clearly disagree; a game whose search cannot tell close
moves apart at 3+ seats keeps a margin there whatever the level (``SearchSpec.margin_multi``:
Empire's End, the Card Game and New York keep 0.1). Levels differ in iterations, tree
depth, rollout length, that margin and the time the runner should allow (``LEVELS``). Hard is
normal's estimator with 4x the samples, a smaller margin at 2 seats and none at 3 or more
(issue 22: with a deeper tree and longer rollouts it did not beat normal). Where that still
leaves every level on the heuristic's move (the Card Game and New York at 3+ seats), the levels
differ by the share of their decisions they play at random, as weaker players would
(``Level.blunder``, set per game and level by ``SearchSpec.blunders``: each game's
``determinize.py`` says its shares and the figures behind them). Hard plays its own seat with
the game's tuned heuristic where the game has one (``Level.tuned``, ``SearchSpec.tuned``:
Empire's End, New York and the Card Game, whose heuristic bots take a ``Style`` of weights
that ``bench.tune_style`` tuned against the plain heuristic, and switches): its prior, its
fallback and its own rollout moves; the other seats are still modelled by the plain
heuristic. At a table of 3 or more those three games' hard plays the tuned move without
searching (``SearchSpec.tuned_alone_multi``: there the search's departures from it cost
strength).
The references are Cowling et al., "Information Set Monte Carlo Tree Search", IEEE TCIAIG
4(2), 2012, and OpenSpiel's ``ISMCTSBot``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Game,
    JointAction,
    Json,
    Rejection,
    SealedSlot,
    Seat,
    Simultaneous,
    Terminal,
    Turn,
)

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
class Level:
    """One strength level: the budget of a decision and the shape of the search."""

    name: str
    iterations: int  # most simulations per decision
    time_s: float  # the time a runner should allow per decision (it builds the deadline)
    tree_depth: int  # own decisions kept in the tree below the root (1 = flat Monte Carlo)
    rollout_depth: int  # moves played by the rollout policy after the tree, then evaluate
    heuristic: float  # chance that a rollout move is the heuristic bot's (else random)
    exploration: float = 0.7  # UCB1 constant (values are win chances in [0, 1])
    widening: float = 2.0  # candidates admitted at a node: widening + sqrt(visits)
    prior_bias: float = 0.3  # UCB bonus of the heuristic's choice: prior_bias / (1 + visits)
    # prior_bias at a table of 3 or more seats (None: ``prior_bias`` at every table size)
    prior_bias_multi: float | None = None
    caution: float = 0.5  # final choice: mean - caution / sqrt(visits) (+ prior_bias, prior)
    # the rollout on the game's fast engine (``_kit/fast.py``), when it has one: random seats
    # on the compact state for ``fast_depth`` moves (chance draws included), then evaluate;
    # 0 = the rollout policy above on the contract path
    fast_depth: int = 0
    # the heuristic's best whole plans searched in a round where a seat fills several slots
    # (``SearchSpec.plans``: the Engine's Plan round), its own pick added first
    max_plans: int = 4
    # the share of its decisions (among two or more moves, or a slot's two or more allowed
    # choices) at which the bot plays a uniformly random one instead of searching: a weaker
    # level by design where the search at this budget never leaves the heuristic's move
    # (``SearchSpec.blunders``); 0 at every level by default
    blunder: float = 0.0
    # the search plays its own seat with the game's tuned heuristic (``SearchSpec.tuned``)
    # where the game has one: its prior, its fallback and its own rollout moves; the other
    # seats keep the game's heuristic, the model of the others
    tuned: bool = False

    def margin(self, seats: int) -> float:
        """The heuristic's margin (``prior_bias``) at a table of ``seats``."""
        if seats >= 3 and self.prior_bias_multi is not None:
            return self.prior_bias_multi
        return self.prior_bias


LEVELS: dict[str, Level] = {
    # easy searches the heuristic's 2 best whole plans in the Engine's Plan round, not 4:
    # with 4 it played as well as normal there (0.51 of 60), with 2 normal beats it 0.78 of
    # 30 and the timeout seat still wins 1 of 30 against it (bench/README.md, "Bot ladder,
    # 2026-11-29, second pass")
    "easy": Level("easy", iterations=40, time_s=0.15, tree_depth=1, rollout_depth=6,
                  heuristic=0.85, max_plans=2),
    "normal": Level("normal", iterations=100, time_s=0.5, tree_depth=2, rollout_depth=16,
                    heuristic=1.0),
    # normal's shape (the same estimator) with 4x its samples, and a smaller margin for the
    # heuristic's move at the final choice: prior_bias 0.3 is a fixed margin however many
    # samples, so 4x them left the heuristic's move as often as normal (rarely); hard's old
    # shape (tree depth 3, rollouts of 30) did not beat normal (bench/README.md, "Bot
    # ladder: levels that rank (issue 22)"). At 3 or more seats no margin at all: a fair
    # share is 1/3 or less, the candidates' win chances differ by less, and the 0.1 kept the
    # heuristic's plan where another was better. The Engine, one hard seat among two seats of
    # its heuristic before the 3-seat Invention value: 0.57 of 30 first places with 0.1,
    # 0.75-0.83 with 0 (against the new, much stronger heuristic: 0.23 with 0, 0.28 with
    # 0.3). At 2 seats no margin fell from 0.75 to 0.50 against normal in Empire
    # (bench/README.md, "Bot ladder, 2026-11-29" and "Bot ladder, 2026-11-29, second pass").
    "hard": Level("hard", iterations=400, time_s=2.0, tree_depth=2, rollout_depth=16,
                  heuristic=1.0, prior_bias=0.1, prior_bias_multi=0.0, tuned=True),
}  # fmt: skip


@dataclass(frozen=True)
class SearchSpec:
    """What the search needs from a game besides the contract (each game's package)."""

    determinize: Determinizer  # view, seat, rng -> a full state consistent with the view
    evaluate: Evaluator  # state -> each seat's estimated chance of winning, in [0, 1]
    heuristic: Callable[[], Any]  # a fresh heuristic ``Bot``: rollout policy and prior
    plans: Planner | None = None  # several own slots in one round: search whole plans
    # A bot's memory of the public record (issue 22): what a player who watched every public
    # event knows and the view no longer shows (the Engine's hidden score piles, EE-12, are
    # the sum of public moves but one). ``remember`` folds the events a seat saw into a
    # summary; ``recall`` determinizes with it. The memory must be complete (every public
    # event since the game began, or since whatever start the game's memory folds from: the
    # Card Game's, a hand's deal) or None: then ``determinize`` samples without it.
    remember: Remember | None = None
    recall: Recaller | None = None
    # Other seats' styles (issue 22): a game whose heuristic bots differ in style (the
    # Engine's, each drawing once a game what an Invention is worth to it at 3+ seats) gives
    # ``restyle``; the search then models each other seat by its own heuristic, its style
    # drawn afresh every iteration (the seat's style is hidden: it is sampled like a hand).
    # Without it every seat plays the search's own heuristic, its own style included.
    restyle: Restyle | None = None
    # the smallest table at which ``restyle`` applies (the Engine's styles are a 3+ seat
    # matter; at 2 seats its search against normal did no better with it: bench/README.md,
    # "Bot ladder, 2026-11-29, fourth pass")
    restyle_seats: int = 3
    # the least margin (``Level.margin``) the heuristic's move keeps at a table of 3 or more
    # in this game: where the search's estimates there are too close to tell moves apart,
    # hard's margin of 0 lets it leave the heuristic on noise (bench/README.md, "Bot
    # ladder, 2026-11-29, fifth pass": ``bench.search_deviation --judge``)
    margin_multi: float = 0.0
    # level name -> ``Level.blunder`` in this game (issue 22): where every level keeps the
    # heuristic's move almost everywhere (the Card Game and New York at 3+ seats, under
    # ``margin_multi``), the levels play alike; the lower levels then play some random moves,
    # as weaker players do, so that the levels a host picks differ
    blunders: Mapping[str, float] = field(default_factory=dict)
    # a fresh heuristic ``Bot`` of a stronger style (issue 22): the game's heuristic with its
    # weights tuned by ``bench.tune_style`` against seats of the plain heuristic (and, in the
    # Card Game, switches chosen against them). A level with ``Level.tuned`` plays its own
    # seat with it; None: the game has none, and every level plays its own seat with
    # ``heuristic``
    tuned: Callable[[], Any] | None = None
    # at a table of 3 or more, a level with ``Level.tuned`` plays the tuned heuristic's move
    # without searching: where the search's estimates there cannot tell moves apart, its few
    # departures from a stronger prior cost more than they gained (Empire's End, one hard seat
    # among heuristic seats: 0.48 of 21 first places with the search, 0.80 of 60 with the
    # tuned move alone; bench/README.md, "Bot ladder, 2026-11-30, ninth pass")
    tuned_alone_multi: bool = False

    def margin(self, level: Level, seats: int) -> float:
        """The heuristic's margin for ``level`` at a table of ``seats`` in this game."""
        if seats >= 3:
            return max(level.margin(seats), self.margin_multi)
        return level.margin(seats)


@dataclass
class _Node:
    visits: int = 0
    value: float = 0.0  # sum of the observer's rewards
    avail: int = 0  # times this node was a candidate (availability count)
    children: dict[str, _Node] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # candidate keys in widening order


def key_of(choice: Json) -> str:
    return json.dumps(choice, sort_keys=True, separators=(",", ":"))


def result_values(game: Game, state: Any) -> list[float]:
    """A finished game's reward per seat: 1 for a sole win, 1/k shared by k winners, else 0."""
    outcome = game.score(state)
    winners = [r.seat for r in outcome.results if r.place == 1]
    out = [0.0] * len(outcome.results)
    for s in winners:
        out[s] = 1.0 / len(winners)
    return out


def win_shares(strengths: Sequence[float], scale: float) -> list[float]:
    """Estimated win chances from per-seat strengths (softmax; ``scale`` = one "unit" of
    lead that makes a seat e times likelier to win)."""
    top = max(strengths)
    weights = [math.exp((v - top) / scale) for v in strengths]
    total = sum(weights)
    return [w / total for w in weights]


def sample_chance(node: Chance, rng: random.Random) -> ChanceOutcome:
    if node.draw == "shuffle":
        values = rng.sample(range(node.n), node.n)
    elif node.draw == "below":
        values = [rng.randrange(node.n) for _ in range(node.count)]
    else:
        values = [rng.randint(1, node.n) for _ in range(node.count)]
    return ChanceOutcome(label=node.label, values=tuple(values))


@dataclass
class _Root:
    """The decision being searched: an act (``legal``) or a sealed slot (``slot``)."""

    seat: Seat
    legal: list[Json] | None = None
    slot: SealedSlot | None = None
    round_id: str | None = None
    fixed: dict[str, Json] = field(default_factory=dict)  # own slots already committed
    public_parts: dict[str, Json] = field(default_factory=dict)
    plans: list[dict[str, Json]] | None = None  # whole plans for the seat's slots (root)


class Searcher:
    """One search: ``run`` returns the chosen action or sealed choice. ``fast``: the game's
    fast engine module (``registry.get_fast``), for rollouts when ``Level.fast_depth``."""

    def __init__(self, game: Game, spec: SearchSpec, level: Level, rng: random.Random,
                 heuristic: Any, fast: Any = None, remembered: Json = None,
                 model: Any = None) -> None:
        self.game = game
        self.spec = spec
        self.remembered = remembered  # the public record as the bot remembers it (``recall``)
        self.level = level
        self.rng = rng
        self.heuristic = heuristic  # the observer's own policy and prior
        # the other seats' policy, unless ``SearchSpec.restyle`` gives each its own (None:
        # the observer's, as when the level plays the game's plain heuristic)
        self.model = model if model is not None else heuristic
        self.fast = fast if level.fast_depth > 0 else None
        self.iterations = 0
        self.others: dict[Seat, Any] = {}  # the other seats' heuristics (``SearchSpec.restyle``)
        self.bias = level.prior_bias  # the margin at this table (``Level.margin``)
        self.seats = 0  # the table size, read off the first determinization

    # ------------------------------------------------------------------ policies

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
        the Engine's Plan round spent 43% of hard's time remaking the same view)."""
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

    # ------------------------------------------------------------------ the tree

    def _candidates(self, node: _Node, options: list[Json], prior: Json | None
                    ) -> list[tuple[str, Json]]:
        """The options admitted at ``node`` now: the prior first, then the others in an order
        drawn once per node (progressive widening: ``widening + sqrt(visits)`` of them)."""
        keyed = {key_of(o): o for o in options}
        seen = set(node.order)
        new = [k for k in keyed if k not in seen]
        self.rng.shuffle(new)
        node.order.extend(new)
        order = [k for k in node.order if k in keyed]
        if prior is not None and (pk := key_of(prior)) in keyed:
            order.remove(pk)
            order.insert(0, pk)
        width = max(1, int(self.level.widening + math.sqrt(node.visits)))
        return [(k, keyed[k]) for k in order[:width]]

    def _select(self, node: _Node, options: list[Json], prior: Json | None) -> tuple[str, Json]:
        """UCB1 over the admitted candidates with availability counts (ISMCTS): an untried
        candidate first, in widening order."""
        cands = self._candidates(node, options, prior)
        prior_key = key_of(prior) if prior is not None else None
        untried: tuple[str, Json] | None = None
        best: tuple[float, str, Json] | None = None
        for k, choice in cands:
            child = node.children.setdefault(k, _Node())
            child.avail += 1
            if child.visits == 0:
                untried = untried or (k, choice)
                continue
            ucb = child.value / child.visits + self.level.exploration * math.sqrt(
                math.log(child.avail) / child.visits)
            if k == prior_key:
                ucb += self.bias / (1 + child.visits)
            if best is None or ucb > best[0]:
                best = (ucb, k, choice)
        if untried is not None:
            return untried
        assert best is not None
        return best[1], best[2]

    # ------------------------------------------------------------------ one iteration

    def iterate(self, view: dict[str, Json], root: _Root, tree: _Node,
                root_prior: Json | None) -> None:
        game, seat, level = self.game, root.seat, self.level
        self.restyle_others()
        if self.spec.recall is not None and self.remembered is not None:
            state = self.spec.recall(view, seat, self.rng, self.remembered)
        else:
            state = self.spec.determinize(view, seat, self.rng)
        if not self.seats:  # the table size: one estimate per seat
            self.seats = len(self.spec.evaluate(state))
            self.bias = self.spec.margin(level, self.seats)
        path: list[_Node] = [tree]
        node: _Node | None = tree
        depth = 0  # own decisions in the tree so far
        moves = 0  # moves after leaving the tree
        first = True
        while True:
            pending = game.next(state)
            if isinstance(pending, Terminal):  # the result, and by how much (less noise)
                won, margin = result_values(game, state), self.spec.evaluate(state)
                values = [0.5 * w + 0.5 * m for w, m in zip(won, margin, strict=True)]
                break
            if node is None and self.fast is not None:  # the rollout on compact state
                values = self._fast_rollout(state)
                break
            if node is None and moves >= level.rollout_depth:
                values = list(self.spec.evaluate(state))
                break
            in_tree = node is not None and depth < level.tree_depth
            move: Any
            if first and root.legal is not None:  # the root act, whoever is awaited
                assert node is not None
                k, choice = self._select(node, root.legal, root_prior)
                node = node.children[k]
                path.append(node)
                depth += 1
                move = Act(seat=seat, action=choice)
            elif isinstance(pending, Chance):
                move = sample_chance(pending, self.rng)
            elif isinstance(pending, Simultaneous):
                move, node, depth = self._joint(state, pending, root, node, path, depth,
                                                first and root.slot is not None, root_prior)
            elif isinstance(pending, Turn):
                actor = seat if seat in pending.seats else self.rng.choice(pending.seats)
                legal = list(game.legal_actions(state, seat)) if actor == seat else []
                if len(legal) == 1:  # a forced move takes no place in the tree
                    move = Act(seat=seat, action=legal[0])
                elif actor == seat and in_tree and node is not None:
                    prior = self._prior(state, seat, legal)
                    k, choice = self._select(node, legal, prior)
                    node = node.children[k]
                    path.append(node)
                    depth += 1
                    move = Act(seat=seat, action=choice)
                else:
                    if actor == seat:
                        node = None  # left the tree: the rollout starts
                    move = Act(seat=actor, action=self.policy_act(state, actor, seat))
            else:  # pragma: no cover - the Node union is closed
                raise AssertionError(pending)
            first = False
            if node is not None and depth >= level.tree_depth and not isinstance(pending,
                                                                                 Chance):
                node = None  # the tree ends here; the rollout follows
            result = game.apply(state, move)
            if isinstance(result, Rejection):  # not playable in this sample: worth nothing
                values = [0.0] * (seat + 1)
                break
            state = result.state
            if node is None and not isinstance(move, ChanceOutcome):
                moves += 1
        reward = values[seat]
        for n in path:
            n.visits += 1
            n.value += reward
        self.iterations += 1

    def _fast_rollout(self, state: Any) -> list[float]:
        """Random seats on the game's compact state for ``Level.fast_depth`` moves, from a
        fresh draw key (the chance outcomes: the dealer's draws under a key nobody knows,
        as uniform as ``sample_chance``); the models only at the two ends."""
        assert self.fast is not None
        key = self.rng.getrandbits(256).to_bytes(32, "big")
        out = self.fast.playout(self.fast.from_state(state), self.rng, key, self.level.fast_depth)
        end = self.fast.to_state(out.state)
        if out.finished:
            won, margin = result_values(self.game, end), self.spec.evaluate(end)
            return [0.5 * w + 0.5 * m for w, m in zip(won, margin, strict=True)]
        return list(self.spec.evaluate(end))

    def plays_tuned_alone(self) -> bool:
        """At this table the level plays its tuned heuristic's move without searching
        (``SearchSpec.tuned_alone_multi``)."""
        return (self.spec.tuned_alone_multi and self.level.tuned and self.seats >= 3
                and self.spec.tuned is not None)

    def _prior(self, state: Any, seat: Seat, legal: list[Json]) -> Json | None:
        try:
            return self.heuristic.act(self.game.view(state, seat), legal, seat)  # type: ignore[no-any-return]
        except Exception:  # a prior is advice only
            return None

    def _joint(self, state: Any, pending: Simultaneous, root: _Root, node: _Node | None,
               path: list[_Node], depth: int, at_root: bool, root_prior: Json | None
               ) -> tuple[JointAction, _Node | None, int]:
        """Every slot's choice: the observer's root slot from the tree root, its slots
        already committed as remembered, its later slots in the tree (while it lasts), all
        other slots by the rollout policy (hidden choices: sampled, never branched on)."""
        seat = root.seat
        root_key = root.slot.key if at_root and root.slot is not None else None
        reached = root_key is None  # own slots before the root slot are not searched
        fixed = dict(root.fixed) if at_root else {}
        if at_root and root.plans and node is not None:  # the seat's whole plan at once
            plans: list[Json] = list(root.plans)
            k, plan = self._select(node, plans, root_prior)
            node = node.children[k]
            path.append(node)
            depth += 1
            assert isinstance(plan, dict)
            fixed.update(plan)
        choices: dict[str, Json] = {}
        publics: dict[str, Json] = {}
        views: dict[Seat, dict[str, Json]] = {}  # the state does not change within a round
        for slot in pending.slots:
            known = root.public_parts.get(slot.key) if at_root else None
            mine = slot.seat == seat
            if mine and slot.key == root_key:
                reached = True
            if mine and slot.key in fixed:
                choice = fixed[slot.key]
            elif (mine and reached and node is not None and slot.allowed is not None
                  and (slot.key == root_key or depth < self.level.tree_depth)):
                prior = root_prior if slot.key == root_key else None
                k, choice = self._select(node, list(slot.allowed), prior)
                node = node.children[k]
                path.append(node)
                depth += 1
            else:
                choice = self.policy_choose(state, slot, dict(publics) if pending.ordered
                                            else {}, seat, known, views)
            choices[slot.key] = choice
            if pending.ordered and slot.public_keys and isinstance(choice, dict):
                publics[slot.key] = {k: choice.get(k) for k in slot.public_keys}
        return JointAction(round_id=pending.round_id, choices=choices), node, depth

    # ------------------------------------------------------------------ the decision

    def run(self, view: dict[str, Json], root: _Root, fallback: Json,
            deadline: Deadline | None) -> Json:
        tree = _Node()
        for _ in range(self.level.iterations):
            if deadline is not None and deadline():
                break
            self.iterate(view, root, tree, fallback)
            if self.plays_tuned_alone():  # the table's size is known after one iteration
                return fallback
        if not tree.children or all(c.visits == 0 for c in tree.children.values()):
            return fallback
        options: list[Json] = (
            root.legal if root.legal is not None
            else list(root.plans) if root.plans  # type: ignore[arg-type]
            else list(root.slot.allowed or ()) if root.slot is not None else [])
        by_key = {key_of(o): o for o in options}
        stats = {k: (c.value / c.visits, c.visits) for k, c in tree.children.items()
                 if k in by_key and c.visits}
        best = final_choice(stats, key_of(fallback), self.level, self.seats, self.bias)
        return by_key[best] if best is not None else fallback


def final_choice(stats: dict[str, tuple[float, int]], prior: str, level: Level,
                 seats: int = 2, bias: float | None = None) -> str | None:
    """The decision among the root candidates, ``stats``: key -> (mean reward, visits). Each
    gets a lower confidence bound, mean - ``caution / sqrt(visits)``, and the heuristic's
    choice (``prior``) the level's margin at a table of ``seats`` (``Level.margin``; ``bias``:
    the search's own, ``SearchSpec.margin``) more: it stays unless another is better by more
    than the noise of its samples and that margin (None: nothing was tried)."""
    if bias is None:
        bias = level.margin(seats)

    def confident(k: str) -> float:
        mean, visits = stats[k]
        return mean - level.caution / math.sqrt(visits) + (bias if k == prior else 0.0)

    return max(stats, key=confident) if stats else None


class SearchBot:
    """A contract ``Bot`` that searches. The runner may pass ``deadline`` to either method
    (``Level.time_s`` is the budget to build it from); without one, ``Level.iterations``
    bounds the work."""

    def __init__(self, game: Game, spec: SearchSpec, level: str | Level = "normal",
                 seed: int | None = None, fast: Any = None) -> None:
        self.game = game
        self.spec = spec
        self.fast = fast  # the game's fast engine module, for ``Level.fast_depth`` rollouts
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
        return Searcher(self.game, self.spec, self.level, self.rng, self.own, self.fast,
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


def seeded_heuristic(spec: SearchSpec, rng: random.Random, tuned: bool = False) -> Any:
    """A fresh heuristic of the spec (``tuned``: its tuned one, ``SearchSpec.tuned``), its
    own draws (if it has an ``rng``) seeded from ``rng``, so a seeded search is
    reproducible."""
    bot = spec.tuned() if tuned and spec.tuned is not None else spec.heuristic()
    if isinstance(getattr(bot, "rng", None), random.Random):
        bot.rng.seed(rng.random())
    return bot


def _round_id(view: dict[str, Json]) -> str | None:
    """The pending sealed round's id as the game's view names it (None if it shows none)."""
    for container in (view, view.get("you"), view.get("sealed"), view.get("pending")):
        if isinstance(container, dict):
            rid = container.get("round_id")
            if isinstance(rid, str):
                return rid
    return None
