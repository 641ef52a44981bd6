"""The search bots' contract (shared/ai/search/): a legal move at every
decision of every game from the view alone, the budget as an input (iterations, and a
``deadline`` callable instead of a clock), reproducible with a seed, and the three levels."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.ai.search import (
    LEVELS,
    Level,
    SearchBot,
    deadline_within,
    final_choice,
    win_shares,
)
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Act, Rejection, Simultaneous, Turn

pytestmark = pytest.mark.unit

# the iterations bound a tiny search, never the clock: a seeded search repeats itself only if
# it runs the same iterations, and a busy machine's clock would cut them at another point
TINY = Level("tiny", iterations=6, time_s=30.0, tree_depth=2, rollout_depth=4, heuristic=1.0)
SEATS = {"duel": 2, "empire": 2, "empire-engine": 2, "empires-end": 2, "empire-nyc": 3,
         "empire-cards": 3}  # fmt: skip


def decisions(name: str, limit: int = 6, seats: int | None = None
              ) -> list[tuple[Any, Any, int]]:
    """(state, pending node, seat) at a few decision points with a real choice."""
    game = registry.get(name)
    seen: list[Any] = []
    play(game, seats or SEATS[name], {"max_hands": 1} if name == "empire-cards" else {}, seed=3,
         max_steps=600, on_step=lambda s, m: seen.append(s))
    out: list[tuple[Any, Any, int]] = []
    for state in seen:
        node = game.next(state)
        if isinstance(node, Turn) and len(game.legal_actions(state, node.seats[0])) > 1:
            out.append((state, node, node.seats[0]))
        elif isinstance(node, Simultaneous) and len(node.slots[0].allowed or ()) > 1:
            out.append((state, node, node.slots[0].seat))
    return out[:: max(1, len(out) // limit)][:limit]


def decide(bot: SearchBot, game: Any, state: Any, node: Any, seat: int, **kw: Any) -> Any:
    view = game.view(state, seat)
    if isinstance(node, Turn):
        return bot.act(view, list(game.legal_actions(state, seat)), seat, **kw)
    slot = next(s for s in node.slots if s.seat == seat)
    return bot.choose(view, slot, seat, {}, **kw)


def _assert_legal(game: Any, state: Any, node: Any, seat: int, choice: Any) -> None:
    """``choice`` is a legal act at a turn, or a legal choice for the seat's sealed slot."""
    if isinstance(node, Turn):
        assert not isinstance(game.apply(state, Act(seat=seat, action=choice)), Rejection)
    else:
        slot = next(s for s in node.slots if s.seat == seat)
        assert game.check_choice(slot, choice)


def _root_of(game: Any, state: Any, node: Any, seat: int) -> Any:
    """The search's root for ``seat`` at ``node``: its legal acts, or its first sealed slot."""
    from shared.ai.search.tree import _Root

    if isinstance(node, Turn):
        return _Root(seat=seat, legal=list(game.legal_actions(state, seat)))
    return _Root(seat=seat, slot=next(x for x in node.slots if x.seat == seat))


@pytest.mark.parametrize("name", registry.names())
def test_the_search_bot_picks_a_legal_move_from_the_view(name: str) -> None:
    game = registry.get(name)
    bot = SearchBot(game, ai.get_search_spec(name), TINY, seed=1)
    cases = decisions(name)
    assert cases
    for state, node, seat in cases:
        choice = decide(bot, game, state, node, seat)
        _assert_legal(game, state, node, seat, choice)
        assert 0 < bot.last_iterations <= TINY.iterations


def test_the_deadline_is_an_input_and_bounds_the_work() -> None:
    game = registry.get("empire")
    state, node, seat = decisions("empire")[0]
    bot = SearchBot(game, ai.get_search_spec("empire"), "hard", seed=1)
    calls = iter(range(10**6))
    choice = decide(bot, game, state, node, seat, deadline=lambda: next(calls) >= 5)
    assert bot.last_iterations == 5  # stopped by the runner's callable, not a clock
    decide(bot, game, state, node, seat, deadline=lambda: True)
    assert bot.last_iterations == 0  # no time at all: the heuristic's move
    assert choice is not None


def test_a_seeded_search_is_reproducible_and_ignores_the_global_rng() -> None:
    name = "empire-cards"
    game = registry.get(name)
    cases = decisions(name, 3)
    first = [decide(SearchBot(game, ai.get_search_spec(name), TINY, seed=7), game, *c)
             for c in cases]
    random.seed(12345)
    again = [decide(SearchBot(game, ai.get_search_spec(name), TINY, seed=7), game, *c)
             for c in cases]
    assert first == again


def test_the_levels_grow_in_budget_and_fit_the_time_limits() -> None:
    easy, normal, hard = LEVELS["easy"], LEVELS["normal"], LEVELS["hard"]
    assert easy.iterations < normal.iterations < hard.iterations
    assert easy.tree_depth <= normal.tree_depth <= hard.tree_depth
    assert normal.time_s <= 0.5 and hard.time_s <= 2.0
    assert ai.get_search_bot("duel", "hard").level is hard


def test_hard_is_normals_estimator_with_more_samples_and_a_smaller_margin() -> None:
    """Hard's deeper tree (3) and longer rollouts (30) did not beat normal, and
    more samples of one estimator cannot hurt in expectation: hard keeps normal's shape."""
    normal, hard = LEVELS["normal"], LEVELS["hard"]
    shape = ("tree_depth", "rollout_depth", "heuristic", "exploration", "widening", "caution",
             "fast_depth")
    assert [getattr(hard, f) for f in shape] == [getattr(normal, f) for f in shape]
    assert hard.iterations >= 3 * normal.iterations
    assert hard.prior_bias < normal.prior_bias


def test_hard_keeps_no_margin_for_the_heuristic_at_three_or_more_seats() -> None:
    """The multi-player target: at 3+ seats hard's margin is 0 (the Engine, one hard
    seat among the old heuristic's seats: 0.57 of 30 first places with 0.1, 0.83 with 0), at 2 seats
    it stays 0.1 (Empire, 2 seats: no margin fell from 0.75 to 0.50 against normal)."""
    hard, normal = LEVELS["hard"], LEVELS["normal"]
    assert [hard.margin(n) for n in (2, 3, 4, 6)] == [0.1, 0.0, 0.0, 0.0]
    assert [normal.margin(n) for n in (2, 3, 5)] == [0.3, 0.3, 0.3]
    close = {"h": (0.30, 100), "x": (0.36, 100)}  # another plan better by 0.06
    assert final_choice(close, "h", hard, seats=2) == "h"
    assert final_choice(close, "h", hard, seats=3) == "x"


@pytest.mark.parametrize(("name", "seats"), [("empire-engine", 3), ("empire", 2)])
def test_the_search_reads_the_table_size_off_its_determinization(name: str, seats: int) -> None:
    """The margin follows the real table: a 3-seat search runs with ``prior_bias_multi``,
    a 2-seat one with ``prior_bias`` (in the tree's UCB bonus as in the final choice)."""
    from shared.ai.search.tree import Searcher, _Node

    game = registry.get(name)
    spec = ai.get_search_spec(name)
    level = Level("m", iterations=2, time_s=1.0, tree_depth=2, rollout_depth=2, heuristic=1.0,
                  prior_bias=0.25, prior_bias_multi=0.05)
    searcher = Searcher(game, spec, level, random.Random(1), spec.heuristic())
    assert searcher.bias == 0.25 and searcher.seats == 0
    state, node, seat = decisions(name, 1, seats=seats)[0]
    root = _root_of(game, state, node, seat)
    searcher.iterate(game.view(state, seat), root, _Node(), None)
    assert searcher.seats == seats
    assert searcher.bias == (0.05 if seats >= 3 else 0.25)


def test_a_game_may_keep_a_margin_at_three_seats_and_more() -> None:
    """``SearchSpec.margin_multi``: the least margin the heuristic's move keeps at 3+ seats in
    a game whose search cannot tell close moves apart there (hard's own is 0); a level's
    larger margin stays, and 2 seats are the level's alone. The search's tree and its final
    choice both use it."""
    from shared.ai.search.tree import Searcher, _Node

    spec = dataclasses.replace(ai.get_search_spec("empire-engine"), margin_multi=0.2)
    hard, normal = LEVELS["hard"], LEVELS["normal"]
    assert [spec.margin(hard, n) for n in (2, 3, 4)] == [0.1, 0.2, 0.2]
    assert [spec.margin(normal, n) for n in (2, 3)] == [0.3, 0.3]
    close = {"h": (0.30, 100), "x": (0.45, 100)}  # better by 0.15: hard's 0 would take it
    assert final_choice(close, "h", hard, 3) == "x"
    assert final_choice(close, "h", hard, 3, spec.margin(hard, 3)) == "h"
    game = registry.get("empire-engine")
    searcher = Searcher(game, spec, hard, random.Random(1), spec.heuristic())
    state, node, seat = decisions("empire-engine", 1, seats=3)[0]
    searcher.iterate(game.view(state, seat), _root_of(game, state, node, seat), _Node(), None)
    assert (searcher.seats, searcher.bias) == (3, 0.2)


def test_easy_and_normal_blunder_only_where_the_game_says_its_levels_would_play_alike() -> None:
    """``SearchSpec.blunders``: in the Card Game and New York every level keeps the
    heuristic's move at 3+ seats almost everywhere, so the levels differ by how often they play
    a random move instead: in the Card Game easy two in five of its decisions, normal one in
    five, hard none; in New York easy a quarter; every other game and level keeps
    ``Level.blunder`` 0."""
    want = {("empire-cards", "easy"): 0.4, ("empire-cards", "normal"): 0.2,
            ("empire-nyc", "easy"): 0.25}
    for name in registry.names():
        for level in ("easy", "normal", "hard"):
            got = ai.get_search_bot(name, level).level.blunder
            assert got == want.get((name, level), 0.0), (name, level)
    for level in ("easy", "normal"):  # only the blunder differs
        assert dataclasses.replace(ai.get_search_bot("empire-cards", level).level,
                                   blunder=0.0) == LEVELS[level]


@pytest.mark.parametrize("name", ["empire-cards", "empire-nyc", "empire-engine"])
def test_a_blunder_is_a_random_legal_choice_made_without_searching(name: str) -> None:
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    always = dataclasses.replace(TINY, blunder=1.0)
    cases = decisions(name, 8)
    picks = []
    for state, node, seat in cases:
        bot = SearchBot(game, spec, always, seed=5)
        choice = decide(bot, game, state, node, seat)
        _assert_legal(game, state, node, seat, choice)
        assert bot.last_iterations == 0  # no search ran
        again = decide(SearchBot(game, spec, always, seed=5), game, state, node, seat)
        assert again == choice  # the bot's own seeded draw
        picks.append({repr(decide(SearchBot(game, spec, always, seed=k), game, state, node, seat))
                      for k in range(12)})
    assert any(len(p) > 1 for p in picks)  # random, not the heuristic's move every time


def test_a_level_without_blunders_draws_nothing_for_them() -> None:
    """A game's seeded bots play as before the blunders were added: a level at 0 consumes no
    draw of the bot's rng for them, while a level that blunders draws once per decision."""
    game = registry.get("empire-cards")
    spec = ai.get_search_spec("empire-cards")
    calm = SearchBot(game, spec, TINY, seed=9)
    before = calm.rng.getstate()
    assert not calm._blunders()
    assert calm.rng.getstate() == before
    half = SearchBot(game, spec, dataclasses.replace(TINY, blunder=0.5), seed=9)
    half._blunders()
    assert half.rng.getstate() != before


def test_the_final_choice_leaves_the_heuristic_only_on_a_margin_beyond_the_noise() -> None:
    """The heuristic's move (``h``) at 0.50 and another at 0.65, 100 samples each: normal's
    fixed margin (0.3) keeps the heuristic's move, hard's (0.1) takes the better one; seen in
    4 samples only, the other's noise term (0.5 / sqrt 4) keeps the heuristic's at hard too."""
    many = {"h": (0.50, 100), "x": (0.65, 100)}
    assert final_choice(many, "h", LEVELS["normal"]) == "h"
    assert final_choice(many, "h", LEVELS["hard"]) == "x"
    assert final_choice({"h": (0.50, 100), "x": (0.65, 4)}, "h", LEVELS["hard"]) == "h"
    assert final_choice({}, "h", LEVELS["hard"]) is None


def test_win_shares_are_a_softmax_of_strengths() -> None:
    assert win_shares([1.0, 1.0], 1.0) == [0.5, 0.5]
    a, b = win_shares([3.0, 0.0], 1.0)
    assert a > 0.95 and abs(a + b - 1) < 1e-9


@pytest.mark.parametrize("name", ["empire-engine", "duel"])
def test_a_whole_game_with_search_seats_finishes(name: str) -> None:
    game = registry.get(name)
    n = SEATS[name]
    bots = {i: SearchBot(game, ai.get_search_spec(name), TINY, seed=i) for i in range(n)}
    out = play(game, n, {}, seed=4, actors={i: bot_actor(b) for i, b in bots.items()},
               choosers={i: bot_chooser(b) for i, b in bots.items()})
    assert out.finished


class _Counted:
    """The game's real rollout driver, counting the rollouts played on it."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.playouts = 0
        self.finished = 0

    def from_state(self, state: Any) -> Any:
        return self.driver.from_state(state)

    def to_state(self, state: Any) -> Any:
        return self.driver.to_state(state)

    def playout(self, *args: Any) -> Any:
        self.playouts += 1
        out = self.driver.playout(*args)
        self.finished += out.finished
        return out


@pytest.mark.parametrize("name", registry.rollout_names())
def test_fast_rollouts_run_on_the_rollout_driver_and_reproduce(name: str) -> None:
    """``Level.fast_depth``: every iteration's rollout is one playout on the game's rollout
    driver (none on the contract path), the move is legal and a seed repeats it."""
    game = registry.get(name)
    level = Level("tiny-fast", iterations=6, time_s=30.0, tree_depth=2, rollout_depth=4,
                  heuristic=1.0, fast_depth=400)
    cases = decisions(name, 3)
    picks = []
    for state, node, seat in cases:
        counted = _Counted(registry.get_rollout(name))
        bot = SearchBot(game, ai.get_search_spec(name), level, seed=5, rollout=counted)
        choice = decide(bot, game, state, node, seat)
        _assert_legal(game, state, node, seat, choice)
        assert 0 < counted.playouts <= bot.last_iterations
        picks.append(choice)
    again = [decide(SearchBot(game, ai.get_search_spec(name), level, seed=5,
                              rollout=registry.get_rollout(name)), game, *c) for c in cases]
    assert picks == again


def test_the_registry_gives_search_bots_their_rollout_driver() -> None:
    assert ai.get_search_bot("empire", "hard").rollout is registry.get_rollout("empire")
    assert ai.get_search_bot("duel", "hard").rollout is None  # no rollout driver: policy


class _ViewCounted:
    """The game, with every ``view`` call recorded as (the state object, seat)."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.calls: list[tuple[Any, Any]] = []  # the states are kept: ids stay unique

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def view(self, state: Any, seat: Any) -> Any:
        self.calls.append((state, seat))
        return self.game.view(state, seat)


def test_the_rollout_policy_makes_one_view_per_seat_of_a_sealed_round() -> None:
    """The Engine's Plan round: each seat fills two slots of one state, and the rollout
    policy asks the heuristic once per slot; the seat's view is made once and shared (it
    was made per slot, 43% of hard's time there)."""
    name = "empire-engine"
    game = registry.get(name)
    cases = [c for c in decisions(name, 8, seats=3) if isinstance(c[1], Simultaneous)]
    assert cases
    for state, node, seat in cases[:2]:
        counted = _ViewCounted(game)
        bot = SearchBot(counted, ai.get_search_spec(name), TINY, seed=2)  # type: ignore[arg-type]
        _assert_legal(game, state, node, seat, decide(bot, game, state, node, seat))
        keys = [(id(s), seat_) for s, seat_ in counted.calls]
        assert keys and len(keys) == len(set(keys)), "a view of one state and seat made twice"


def test_other_seats_are_modelled_by_their_own_heuristic_restyled_every_iteration() -> None:
    """``SearchSpec.restyle`` (the Engine: each heuristic bot draws what an Invention is worth
    to it at 3+ seats): every other seat plays its own heuristic in the rollouts, its style
    drawn afresh each iteration; the observer plays the search's own. Without it, or at a
    table smaller than ``restyle_seats``, every seat plays the search's own heuristic."""
    import dataclasses

    from shared.ai.search.tree import Searcher, _Node

    name = "empire-engine"
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    assert spec.restyle is not None
    drawn: list[tuple[int, float]] = []

    def restyle(bot: Any, rng: random.Random) -> None:
        assert spec.restyle is not None
        spec.restyle(bot, rng)
        drawn.append((id(bot), bot._invent({"n_seats": 3})))

    counting = dataclasses.replace(spec, restyle=restyle)
    state, node, seat = decisions(name, 1, seats=3)[0]
    view = game.view(state, seat)
    root = _root_of(game, state, node, seat)
    own = spec.heuristic()
    searcher = Searcher(game, counting, TINY, random.Random(3), own)
    for _ in range(5):
        searcher.iterate(view, root, _Node(), None)
    others = {s for s in range(3) if s != seat}
    assert set(searcher.others) == others
    assert own not in searcher.others.values()
    assert searcher.policy(seat, seat) is own
    assert len({id(b) for b in searcher.others.values()}) == 2
    per_bot = {b: [v for i, v in drawn if i == b] for b in {i for i, _ in drawn}}
    assert all(len(v) >= 4 for v in per_bot.values())  # once an iteration (first use included)
    assert len({round(v, 9) for vs in per_bot.values() for v in vs}) > 4  # fresh draws
    plain = Searcher(game, dataclasses.replace(spec, restyle=None), TINY, random.Random(3), own)
    plain.iterate(view, root, _Node(), None)
    assert not plain.others and all(plain.policy(s, seat) is own for s in range(3))
    # at 2 seats (below ``restyle_seats``) the one other seat plays the search's own too
    state2, node2, seat2 = decisions(name, 1, seats=2)[0]
    root2 = _root_of(game, state2, node2, seat2)
    duel = Searcher(game, counting, TINY, random.Random(3), own)
    duel.iterate(game.view(state2, seat2), root2, _Node(), None)
    assert duel.seats == 2 and not duel.others and duel.policy(1 - seat2, seat2) is own


class _Clock:
    """A clock the test moves: each iteration of a search loop costs what the test says."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("costs", [[0.3] * 10, [0.1, 0.1, 0.2, 0.25, 0.25, 0.25, 0.25],
                                   [0.0, 0.05] * 40, [0.45, 0.4, 0.3, 0.3]])
def test_the_deadline_stops_before_an_iteration_would_run_past_the_budget(
        costs: list[float]) -> None:
    """Hard <= 2 s: the search asks the deadline before each iteration. One that
    only says "the budget is spent" lets the last iteration run over it (hard's decisions
    took up to 2.16 s); this one stops once an iteration as long as the longest yet would
    end past the budget, so iterations no longer than the longest seen end inside it."""
    clock = _Clock()
    deadline = deadline_within(1.0, clock)
    done = 0
    for cost in costs:
        if deadline():
            break
        clock.now += cost
        done += 1
    spent = clock.now - 100.0
    assert spent <= 1.0 + 1e-9, (costs, spent)
    assert done > 0 and spent > 1.0 - 2 * max(costs)  # and the budget is used, not wasted
    no_budget = deadline_within(0.0, clock)
    assert no_budget()


def test_a_tuned_level_plays_its_own_seat_by_the_tuned_heuristic_and_the_others_by_the_plain(
) -> None:
    """``SearchSpec.tuned``: a level with ``Level.tuned`` (hard, and only hard)
    plays its own seat with the game's tuned heuristic (its fallback, its prior and its own
    rollout moves) and models every other seat by the game's plain heuristic; a level
    without it plays the plain heuristic for every seat, its own included."""
    name = "empires-end"
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    assert spec.tuned is not None
    asked: list[tuple[str, int]] = []

    def counted(kind: str, factory: Any) -> Any:
        def make() -> Any:
            bot = factory()
            act, choose = bot.act, bot.choose

            def counted_act(view: Any, legal: Any, seat: int) -> Any:
                asked.append((kind, seat))
                return act(view, legal, seat)

            def counted_choose(view: Any, slot: Any, seat: int, public_parts: Any) -> Any:
                asked.append((kind, seat))
                return choose(view, slot, seat, public_parts)

            bot.act, bot.choose = counted_act, counted_choose
            return bot

        return make

    both = dataclasses.replace(spec, heuristic=counted("plain", spec.heuristic),
                               tuned=counted("tuned", spec.tuned))
    cases = [c for c in decisions(name, 6, seats=3) if isinstance(c[1], Turn)]
    assert cases
    for level, tuned_seats in ((dataclasses.replace(TINY, tuned=True), "own"), (TINY, "none")):
        for state, node, seat in cases[:2]:
            asked.clear()
            bot = SearchBot(game, both, level, seed=4)
            _assert_legal(game, state, node, seat, decide(bot, game, state, node, seat))
            tuned = {s for kind, s in asked if kind == "tuned"}
            plain = {s for kind, s in asked if kind == "plain"}
            if tuned_seats == "own":
                assert tuned == {seat} and seat not in plain and plain
            else:
                assert not tuned and seat in plain
    assert [n for n, lv in LEVELS.items() if lv.tuned] == ["hard"]
    hard, normal = ai.get_search_bot(name, "hard"), ai.get_search_bot(name, "normal")
    assert hard.own.style != hard.heuristic.style and normal.own is normal.heuristic


def test_only_the_games_with_a_tuned_style_have_a_tuned_heuristic() -> None:
    """Empire's End, New York and the Card Game have one (the Card Game's by switches, its
    numbers moved nothing: bench/README.md, "Bot ladder"); Empire and
    the Engine meet the multi-player target without."""
    have = {name for name in registry.names() if ai.get_search_spec(name).tuned}
    assert have == {"empires-end", "empire-nyc", "empire-cards"}
    assert all(ai.get_search_spec(name).tuned_alone_multi for name in have)


@pytest.mark.parametrize("name", ["empires-end", "empire-nyc", "empire-cards"])
def test_the_tuned_heuristic_is_the_plain_one_with_other_weights(name: str) -> None:
    """Each such game's tuned heuristic is its heuristic bot's class with a ``Style`` that
    differs from the default (weights ``bench.tune_style`` chose, or switches); the default
    ``Style`` is the heuristic bot's own, so the plain bot is unchanged."""
    module = ai.bot_module(name)
    spec = ai.get_search_spec(name)
    assert spec.tuned is not None
    tuned, plain = spec.tuned(), ai.get_bot(name)
    assert type(tuned) is type(plain) is module.HeuristicBot
    assert plain.style == module.Style() and tuned.style == module.TUNED != module.Style()


@pytest.mark.parametrize("name", ["empires-end", "empire-nyc", "empire-cards"])
def test_at_three_seats_a_tuned_level_plays_the_tuned_move_where_the_game_says_so(
        name: str) -> None:
    """``SearchSpec.tuned_alone_multi`` (Empire's End, New York, the Card Game): at a table of
    3 or more, hard plays its tuned heuristic's move after the one iteration that reads the
    table's size; at 2 seats (Empire's End) it searches its whole budget; a level that is not
    tuned searches."""
    module = ai.bot_module(name)
    game = registry.get(name)
    spec = ai.get_search_spec(name)
    assert spec.tuned_alone_multi
    tuned = dataclasses.replace(TINY, tuned=True)
    cases = [c for c in decisions(name, 6, seats=3) if isinstance(c[1], Turn)]
    assert cases
    for state, node, seat in cases:
        bot = SearchBot(game, spec, tuned, seed=2)
        choice = decide(bot, game, state, node, seat)
        view, legal = game.view(state, seat), list(game.legal_actions(state, seat))
        assert choice == module.HeuristicBot(module.TUNED).act(view, legal, seat)
        assert bot.last_iterations == 1
        plain = SearchBot(game, spec, TINY, seed=2)
        decide(plain, game, state, node, seat)
        assert plain.last_iterations == TINY.iterations
    if name != "empires-end":
        return  # no 2-seat table
    for state, node, seat in decisions(name, 3, seats=2):
        bot = SearchBot(game, spec, tuned, seed=2)
        decide(bot, game, state, node, seat)
        assert bot.last_iterations == TINY.iterations
