"""HeuristicBot: legal, sensible choices from the view only; bot games through the playout
kit's bot_actor/bot_chooser (what the services run); strength against random seats."""

from __future__ import annotations

from typing import Any, cast

import pytest

from shared.ai.empire_engine.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.model import Events
from shared.rules._kit.playout import default_actor, default_chooser, play
from shared.rules.api import Json, Simultaneous, Transition
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.data import Action
from shared.rules.empire_engine.planning import resolve_plan
from shared.rules.empire_engine.scenario import position, round1
from shared.rules.empire_engine.state import State

BOT = HeuristicBot(seed=0, jitter=0.0)  # the plan without the tie-breaking noise


def bot_plan_tops(state: State, seat: int) -> tuple[str, str]:
    """Let the bot fill its own slots (others default) and read its revealed tops."""
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    choices: dict[str, Json] = {}
    for slot in node.slots:
        if slot.seat == seat:
            choice = BOT.choose(GAME.view(state, seat), slot, seat, {})
            assert GAME.check_choice(slot, choice)
            choices[slot.key] = choice
        else:
            choices[slot.key] = slot.default
    revealed = state.clone()
    resolve_plan(revealed, choices, Events())
    left, right = (p.top for p in revealed.placements if p.seat == seat)
    assert not any(p.overridden for p in revealed.placements if p.seat == seat)
    return left, right


@pytest.mark.unit
def test_bot_exports_its_goods_in_the_last_round() -> None:
    """Ready resources are worth nothing at the end: with 4 Goods it Produces and Exports."""
    tops: list[tuple[Action, Action]] = [("arm", "attack"), ("arm", "invent")]
    state = position(2, ready=[(0, 4), (0, 0)], tops=tops, round=8)
    assert bot_plan_tops(state, 0) == ("produce", "export")


@pytest.mark.unit
def test_bot_does_not_attack_without_soldiers() -> None:
    state = position(3, ready=[(0, 0)] * 3, round=1)
    left, right = bot_plan_tops(state, 0)
    assert "attack" not in (left, right) or left == "arm"


@pytest.mark.unit
def test_bot_spends_a_resource_to_reach_export_with_many_goods() -> None:
    """From L=Arm / R=Invent, Export needs R +2 ('2' gear) and the bot has 5 Goods."""
    state = position(2, ready=[(1, 5), (0, 0)], tops=[("arm", "invent")] * 2, round=8)
    assert bot_plan_tops(state, 0)[1] == "export"


@pytest.mark.unit
def test_bot_decisions_are_legal() -> None:
    state = position(3, ready=[(1, 0), (1, 1), (1, 0)])
    tops: dict[int, tuple[Action, Action]] = {
        0: ("attack", "defend"),
        1: ("salvage", "defend"),
        2: ("produce", "attack"),
    }
    result = GAME.apply(state, round1(state, tops))
    assert isinstance(result, Transition) and result.state.phase == "block"
    legal = GAME.legal_actions(result.state, 1)
    assert BOT.act(GAME.view(result.state, 1), legal, 1) in legal


@pytest.mark.unit
@pytest.mark.parametrize("n", [2, 3, 4])
def test_bot_only_games_play_to_the_end_through_the_playout_kit(n: int) -> None:
    """All seats HeuristicBot via bot_actor/bot_chooser, as the services will run them."""
    seats = range(n)
    for seed in range(3):
        out = play(
            GAME,
            n,
            seed=seed,
            actors={s: bot_actor(BOT) for s in seats},
            choosers={s: bot_chooser(BOT) for s in seats},
        )
        assert out.finished
        outcome = GAME.score(out.state)
        assert all(cast(int, r.figures["points"]) > 0 for r in outcome.results)


def win_share(n: int, games: int) -> tuple[float, float, float]:
    """(bot's win share with ties split, bot's mean points, random seats' mean points)."""
    wins = bot_points = random_points = 0.0
    for g in range(games):
        seat = g % n
        out = play(
            GAME,
            n,
            seed=10_000 + g,
            actors={seat: bot_actor(BOT)},
            choosers={seat: bot_chooser(BOT)},
        )
        outcome = GAME.score(out.state)
        if seat in outcome.winners:
            wins += 1 / len(outcome.winners)
        points = [cast(int, r.figures["points"]) for r in outcome.results]
        bot_points += points[seat]
        random_points += (sum(points) - points[seat]) / (n - 1)
    return wins / games, bot_points / games, random_points / games


@pytest.mark.unit
def test_bot_beats_random_seats_quick() -> None:
    share, _, _ = win_share(3, 30)
    assert share > 0.6  # random would be 1/3


@pytest.mark.slow
@pytest.mark.unit
@pytest.mark.parametrize("n", [2, 3, 4])
def test_bot_against_random_seats(n: int) -> None:
    """300 games per seat count, one HeuristicBot against random seats (rotating seat)."""
    share, bot_pts, rnd_pts = win_share(n, 300)
    print(
        f"\n{n} seats: bot win share {share:.3f} (random {1 / n:.3f}), "
        f"mean points bot {bot_pts:.2f} vs random {rnd_pts:.2f}"
    )
    assert share > 0.8 and bot_pts > rnd_pts + 5


@pytest.mark.unit
def test_bot_only_tables_do_not_mirror_into_all_way_ties() -> None:
    """Identical deterministic bots in this symmetric game played identical plans,
    and 30 of 30 three-player games ended in an all-way tie. Seeded tie-breaking among
    near-equal plans (``JITTER``) lets the seats part ways. Random play ties 0-3% of games."""
    ties = 0
    for seed in range(20):
        bots = {i: HeuristicBot(seed=100 * seed + i) for i in range(3)}
        out = play(GAME, 3, {}, seed=seed, actors={i: bot_actor(b) for i, b in bots.items()},
                   choosers={i: bot_chooser(b) for i, b in bots.items()})
        ties += len(GAME.score(out.state).winners) == 3
    assert ties <= 2


@pytest.mark.unit
def test_the_two_slots_of_a_round_follow_one_plan() -> None:
    bot = HeuristicBot(seed=5)
    state = position(3, ready=[(1, 2)] * 3, tops=[("arm", "invent")] * 3, round=3)
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    view = GAME.view(state, 0)
    mine = [s for s in node.slots if s.seat == 0]
    first = bot.choose(view, mine[0], 0, {})
    again = bot.choose(view, mine[0], 0, {})
    assert first == again and bot.plan(view, 0)[0] == first


@pytest.mark.unit
def test_restyle_draws_another_invention_value_and_keeps_plans_per_style() -> None:
    """The search's model of another seat (``SearchSpec.restyle``): a fresh
    Invention value at 3+ seats, drawn from the search's rng; a plan is kept per (table,
    style), so at 2 seats, where every bot has one style, a table seen again keeps its plan."""
    import random

    rng = random.Random(9)
    three = position(3, ready=[(1, 2)] * 3, tops=[("arm", "invent")] * 3, round=3)
    bot = HeuristicBot(seed=5)
    view3 = GAME.view(three, 0)
    values = []
    for _ in range(6):
        bot.restyle(rng)
        values.append(bot._invent(view3))
        bot.plan(view3, 0)
    lo, hi = HeuristicBot.invent_range_multi
    assert len(set(values)) == 6 and all(lo <= v <= hi for v in values)
    assert len(bot._plans) == 6  # one plan per style of this table
    two = position(2, ready=[(1, 2)] * 2, tops=[("arm", "invent")] * 2, round=3)
    view2 = GAME.view(two, 0)
    first = bot.plan(view2, 0)
    for _ in range(5):
        bot.restyle(rng)
        assert bot._invent(view2) == HeuristicBot.invent_value
        assert bot.plan(view2, 0) == first  # cached: no new jitter draw
    assert len(bot._plans) == 7


@pytest.mark.unit
def test_bot_exports_its_goods_rather_than_paying_to_hold_invent() -> None:
    """The old evaluation (Invent 1.3, every ready resource worth 0.6) paid a boost
    round after round to hold R on Invent (the '1' gear boosted to 0 turns) and let its
    Goods pile up unexported: here it chose Arm + Invent with 3 Goods in hand. Now R turns to
    Export ('2' gear) and L stays on Produce (boosted '1' gear): 5 Goods scored."""
    tops: list[tuple[Action, Action]] = [("produce", "invent")] * 2
    state = position(2, ready=[(1, 3), (1, 3)], tops=tops, round=3)
    assert bot_plan_tops(state, 0) == ("produce", "export")


@pytest.mark.unit
def test_bot_attacks_a_neighbour_who_can_export() -> None:
    """A successful Attack also voids the target's Export and Salvage (group 3). The
    neighbour holds 3 Goods and its '2' gear brings Export up; the bot has 2 Soldiers and
    now Arms and Attacks (the old evaluation counted only the loot: Arm + Invent)."""
    tops: list[tuple[Action, Action]] = [("produce", "invent")] * 2
    state = position(2, ready=[(2, 0), (1, 3)], tops=tops, round=3)
    assert bot_plan_tops(state, 0) == ("arm", "attack")


@pytest.mark.unit
def test_the_search_gets_only_the_heuristics_best_plans() -> None:
    """The search levels choose among the heuristic's best whole plans
    (``Level.max_plans`` of them, its own pick first), not all 18 affordable gear/boost plans,
    of which the easy level's 40 iterations picked wasted ones (Attack without a Soldier)
    against the defaults seat."""
    from shared.ai.empire_engine.determinize import plans
    from shared.ai.search import LEVELS

    MAX_PLANS = LEVELS["normal"].max_plans
    assert LEVELS["easy"].max_plans < MAX_PLANS  # easy: 2 (normal beats it)

    state = position(2, ready=[(0, 2), (1, 3)], tops=[("produce", "invent")] * 2, round=4)
    view = GAME.view(state, 0)
    bot = HeuristicBot(seed=3, jitter=0.0)
    found = plans(view, 0, bot, MAX_PLANS)
    assert 1 < len(found) <= MAX_PLANS
    assert len(plans(view, 0, bot, 2)) <= 2 < len(plans(view, 0, bot, 8))
    left, right = bot.plan(view, 0)
    assert list(found[0].values()) == [left, right]
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    slots = {s.key: s for s in node.slots}
    ranked = [v for v, _ in bot.ranked_plans(view, 0)]
    for plan in found:
        assert all(GAME.check_choice(slots[k], c) for k, c in plan.items())
    assert len(ranked) > MAX_PLANS  # there was something to prune


@pytest.mark.unit
@pytest.mark.parametrize("seats", [3, 4])
def test_a_timeout_seat_alone_among_bots_rarely_takes_first_place(seats: int) -> None:
    """A seat that plays only defaults beats the bots at most 10% of the time. With an Invention
    valued at its point alone, the timeout seat alone among these bots took first place in 44% of
    3-seat games and 42% at 4 seats: 7 Inventions and the Invention majority (EE-13) while the bots
    split the Goods. At 3+ seats each bot draws what an Invention is worth to it, 1.0-3.0, once a
    game (``invent_range_multi``; a fixed 1.9 mirrored bot-only tables into all-way ties)."""
    games, first = 60, 0.0
    for i in range(games):
        lone = i % seats
        bots = {s: HeuristicBot(seed=10 * i + s) for s in range(seats) if s != lone}
        actors: dict[int, Any] = {s: bot_actor(b) for s, b in bots.items()}
        choosers: dict[int, Any] = {s: bot_chooser(b) for s, b in bots.items()}
        actors[lone], choosers[lone] = default_actor, default_chooser
        out = play(GAME, seats, {}, seed=20_000 + i, actors=actors, choosers=choosers)
        winners = GAME.score(out.state).winners
        first += (lone in winners) / len(winners)
    assert first / games <= 0.10, first / games
