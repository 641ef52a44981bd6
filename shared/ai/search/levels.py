"""The search bots' strength levels: each one's budget per decision and the shape of its
search (``LEVELS``: easy, normal, hard)."""

from __future__ import annotations

from dataclasses import dataclass


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
    # fast random rollouts through the game's rollout driver (``shared.rules._kit.rollout``),
    # when it has one: random seats on a clone of the state for ``fast_depth`` moves (chance
    # draws included), then evaluate; 0 = the rollout policy above on the contract path
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
    # with 4 it plays as well as normal there (0.51 of 60), with 2 normal beats it 0.78 of
    # 30 and the timeout seat still wins 1 of 30 against it (bench/README.md, the bot
    # ladder)
    "easy": Level("easy", iterations=40, time_s=0.15, tree_depth=1, rollout_depth=6,
                  heuristic=0.85, max_plans=2),
    "normal": Level("normal", iterations=100, time_s=0.5, tree_depth=2, rollout_depth=16,
                    heuristic=1.0),
    # normal's shape (the same estimator) with 4x its samples, and a smaller margin for the
    # heuristic's move at the final choice: prior_bias 0.3 is a fixed margin however many
    # samples, so 4x them leave the heuristic's move as often as normal (rarely); a deeper
    # shape (tree depth 3, rollouts of 30) does not beat normal (bench/README.md, the bot
    # ladder). At 3 or more seats no margin at all: a fair
    # share is 1/3 or less, the candidates' win chances differ by less, and a margin of 0.1
    # keeps the heuristic's plan where another is better. The Engine, one hard seat among two
    # seats of a heuristic without the 3-seat Invention value: 0.57 of 30 first places with
    # 0.1, 0.75-0.83 with 0 (against the heuristic with it: 0.23 with 0, 0.28 with 0.3). At
    # 2 seats no margin falls from 0.75 to 0.50 against normal in Empire (bench/README.md,
    # the bot ladder).
    "hard": Level("hard", iterations=400, time_s=2.0, tree_depth=2, rollout_depth=16,
                  heuristic=1.0, prior_bias=0.1, prior_bias_multi=0.0, tuned=True),
}  # fmt: skip

