"""The tree search: open-loop, single-observer ISMCTS over the observer's own decisions
(``Searcher``), and the final choice among the root's candidates."""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from typing import Any

from shared.ai.search.levels import Level
from shared.ai.search.rollout import Rollouts, result_values, sample_chance
from shared.ai.search.spec import Deadline, SearchSpec
from shared.rules._kit.rollout import RolloutDriver
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


@dataclass
class _Node:
    visits: int = 0
    value: float = 0.0  # sum of the observer's rewards
    avail: int = 0  # times this node was a candidate (availability count)
    children: dict[str, _Node] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # candidate keys in widening order


def key_of(choice: Json) -> str:
    return json.dumps(choice, sort_keys=True, separators=(",", ":"))


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


class Searcher(Rollouts):
    """One search: ``run`` returns the chosen action or sealed choice. ``rollout``: the game's
    rollout driver (``shared.rules.registry.get_rollout``), for random rollouts when
    ``Level.fast_depth``."""

    def __init__(self, game: Game, spec: SearchSpec, level: Level, rng: random.Random,
                 heuristic: Any, rollout: RolloutDriver | None = None, remembered: Json = None,
                 model: Any = None) -> None:
        super().__init__(game, spec, level, rng, heuristic, rollout, model)
        self.remembered = remembered  # the public record as the bot remembers it (``recall``)
        self.iterations = 0
        self.bias = level.prior_bias  # the margin at this table (``Level.margin``)

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
            if node is None and self.rollout is not None:  # random seats to the depth
                values = self._random_rollout(state)
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
