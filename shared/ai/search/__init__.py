"""Search bots: information-set Monte Carlo tree search over the game contract.

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
   With ``Level.fast_depth`` the rollout instead plays random seats through the game's
   rollout (``registry.get_rollout``, ``shared/rules/_kit/rollout.py``), without events.
   No level uses it: random rollouts play weaker than the heuristic's, even with 4x the
   iterations (docs/performance.md, search rollouts).

The chosen move is the root candidate with the best lower confidence bound (mean minus
``caution / sqrt(visits)``), where the heuristic's own choice gets a margin added
(``Level.margin``: ``prior_bias``, or ``prior_bias_multi`` at a table of 3 or more seats,
whose size the search reads off its first determinization). A small budget therefore keeps
the heuristic's move unless the samples clearly disagree; a game whose search cannot tell close
moves apart at 3+ seats keeps a margin there whatever the level (``SearchSpec.margin_multi``:
Empire's End, the Card Game and New York keep 0.1). Levels differ in iterations, tree
depth, rollout length, that margin and the time the runner should allow (``LEVELS``). Hard is
normal's estimator with 4x the samples, a smaller margin at 2 seats and none at 3 or more
(a deeper tree and longer rollouts do not beat normal). Where that still
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

from shared.ai.search.bot import SearchBot, deadline_within
from shared.ai.search.levels import LEVELS, Level
from shared.ai.search.rollout import result_values, sample_chance
from shared.ai.search.spec import (
    Deadline,
    Determinizer,
    Evaluator,
    Planner,
    Recaller,
    Remember,
    Restyle,
    SearchSpec,
    seeded_heuristic,
    win_shares,
)
from shared.ai.search.tree import Searcher, final_choice, key_of

__all__ = [
    "LEVELS",
    "Deadline",
    "Determinizer",
    "Evaluator",
    "Level",
    "Planner",
    "Recaller",
    "Remember",
    "Restyle",
    "SearchBot",
    "SearchSpec",
    "Searcher",
    "deadline_within",
    "final_choice",
    "key_of",
    "result_values",
    "sample_chance",
    "seeded_heuristic",
    "win_shares",
]
