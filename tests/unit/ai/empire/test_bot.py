"""HeuristicBot: sensible choices from the view only, and its record against random play.

Slow figure (1,000 games):
    .venv/bin/pytest tests/unit/ai/empire/test_bot.py -m slow -s -q
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from shared.ai.empire.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import Simultaneous
from shared.rules.empire import GAME

POPS_SECOND = [0, 2, 1, 3, 4, 5]  # beginner row: goods (shortage), populations, goods, ...


@pytest.mark.unit
def test_bot_sells_surplus_goods_and_reads_the_price_curve(drv) -> None:
    bot = HeuristicBot()
    alone = drv.at_commerce([dict(goods=5, populations=1), dict(), dict()])
    node = GAME.next(alone)
    assert isinstance(node, Simultaneous)
    k_alone = bot.choose(GAME.view(alone, 0), node.slots[0], 0, {})
    assert GAME.check_choice(node.slots[0], k_alone)
    assert 1 <= k_alone <= 4  # sells surplus, keeps a good for its population's luxury
    crowded = drv.at_commerce([dict(goods=5, populations=1), dict(goods=7), dict(goods=7)])
    k_crowded = bot.choose(GAME.view(crowded, 0), node.slots[0], 0, {})
    assert k_crowded < k_alone  # the others' expected sales depress the price


@pytest.mark.unit
def test_bot_bids_for_what_it_can_use_and_not_for_revolts(drv) -> None:
    bot = HeuristicBot()
    useful = drv.at_exploration(
        [dict(gold=20, goods=3), dict(gold=20), dict(gold=20)], start_player=2, row=POPS_SECOND
    )
    assert useful.auction.resource == "populations"
    legal = GAME.legal_actions(useful, 0)
    assert bot.act(GAME.view(useful, 0), legal, 0) == {"type": "raise", "bid": 1}
    idle = drv.at_exploration(
        [dict(gold=20, populations=5), dict(gold=20), dict(gold=20)],
        start_player=2,
        row=POPS_SECOND,
    )
    # Five populations with no goods or colonies: one more would only add revolts.
    assert bot.act(GAME.view(idle, 0), GAME.legal_actions(idle, 0), 0) == {"type": "pass"}


@pytest.mark.unit
def test_bot_raises_only_to_the_cheapest_winning_bid_and_stops_at_its_value(drv) -> None:
    bot = HeuristicBot()
    state = drv.at_exploration(
        [dict(gold=60, goods=3), dict(gold=60), dict(gold=60)], start_player=0, row=POPS_SECOND
    )
    state, _ = drv.act(state, 1, {"type": "raise", "bid": 7})
    state, _ = drv.act(state, 2, {"type": "raise", "bid": 7})
    # 7 and 7 are tied, so its bid of 0 is already the highest untied bid (E-2): it waits.
    assert bot.act(GAME.view(state, 0), GAME.legal_actions(state, 0), 0) == {"type": "pass"}
    state, _ = drv.act(state, 0, {"type": "pass"})
    state, _ = drv.act(state, 1, {"type": "raise", "bid": 8})
    state, _ = drv.act(state, 2, {"type": "pass"})
    # Now 8 leads: the cheapest winning total is 9, well within a population's value.
    assert bot.act(GAME.view(state, 0), GAME.legal_actions(state, 0), 0) == {
        "type": "raise",
        "bid": 9,
    }
    state, _ = drv.act(state, 0, {"type": "raise", "bid": 9})
    state, _ = drv.act(state, 1, {"type": "raise", "bid": 55})
    state, _ = drv.act(state, 2, {"type": "pass"})
    assert bot.act(GAME.view(state, 0), GAME.legal_actions(state, 0), 0) == {"type": "pass"}


@pytest.mark.unit
def test_bot_accepts_only_favourable_trades(drv) -> None:
    bot = HeuristicBot()
    state = drv.at_exploration([dict(gold=5), dict(gold=9, revolts=2)], start_player=1)
    state, _ = drv.act(state, 1, {"type": "offer_trade", "to": 0, "give": {"revolts": 2}})
    state, _ = drv.act(state, 1, {"type": "offer_trade", "to": 0, "give": {"gold": 9}})
    legal = GAME.legal_actions(state, 0)
    assert bot.act(GAME.view(state, 0), legal, 0) == {"type": "accept", "offer": 2}
    state, _ = drv.act(state, 0, {"type": "accept", "offer": 2})
    legal = GAME.legal_actions(state, 0)
    assert bot.act(GAME.view(state, 0), legal, 0) == {"type": "decline", "offer": 1}


@pytest.mark.unit
def test_bot_claims_a_good_nation_and_resolves_collisions(drv) -> None:
    bots = [HeuristicBot(seed=1), HeuristicBot(seed=2)]
    state, _ = drv.start(2, "standard", nations=[6, 3, 0, 1, 2, 4, 5, 7])  # Britain, Dutch
    rounds = 0
    while state.phase == "claim":
        node = GAME.next(state)
        picks = [bots[s].choose(GAME.view(state, s), node.slots[s], s, {}) for s in range(2)]
        if rounds == 0:
            assert picks == [6, 6]  # Great Britain's commonwealth is worth more than a company
        state, _ = drv.joint(state, picks)
        rounds += 1
    assert sorted(state.nations) == [3, 6] and rounds <= 8


def bot_game(seed: int, n: int, version: str, bot_seat: int) -> tuple[bool, bool]:
    bot = HeuristicBot(seed=seed)
    out = play(
        GAME,
        n,
        {"version": version},
        seed=10_000 + seed,
        actors={bot_seat: bot_actor(bot)},
        choosers={bot_seat: bot_chooser(bot)},
    )
    assert out.finished
    winners = GAME.score(out.state).winners
    return bot_seat in winners, winners == (bot_seat,)


@pytest.mark.unit
def test_bot_beats_random_seats() -> None:
    wins = sum(bot_game(g, 2 + g % 5, ("beginner", "standard")[g % 2], g % 3)[0] for g in range(20))
    assert wins >= 16  # far above the fair share (~0.3)


@pytest.mark.unit
def test_heuristic_bots_against_each_other_finish_claiming() -> None:
    bots = {s: HeuristicBot(seed=s) for s in range(6)}
    out = play(
        GAME,
        6,
        {"version": "standard"},
        seed=4,
        actors={s: bot_actor(b) for s, b in bots.items()},
        choosers={s: bot_chooser(b) for s, b in bots.items()},
    )
    assert out.finished and len(set(out.state.nations)) == 6


@pytest.mark.slow
@pytest.mark.unit
def test_bot_against_random_over_1000_games() -> None:
    games = int(os.environ.get("EMPIRE_BOT_GAMES", "1000"))
    played: Counter[tuple[str, int]] = Counter()
    won: Counter[tuple[str, int]] = Counter()
    sole: Counter[tuple[str, int]] = Counter()
    for g in range(games):
        n, version = 2 + g % 5, ("beginner", "standard")[(g // 5) % 2]
        shared, alone = bot_game(g, n, version, g % n)
        played[(version, n)] += 1
        won[(version, n)] += shared
        sole[(version, n)] += alone
    total = sum(won.values())
    print(
        f"\nHeuristicBot (1 seat) vs random seats, {games} games: won {total} ({total / games:.1%})"
    )
    for key in sorted(played):
        print(
            f"  {key[0]:9s} {key[1]} seats: won {won[key]}/{played[key]} "
            f"(sole {sole[key]}), fair share {1 / key[1]:.0%}"
        )
    assert total >= 0.9 * games


@pytest.mark.unit
def test_bots_propose_trades_that_both_sides_accept() -> None:
    """E-3, E-6: in the trade window a bot proposes the card-for-card trade that
    raises both empires by its estimate, once a round to each seat still trading; another bot
    accepts it by the same estimate. Offers go only to seats that may still answer."""
    offered = accepted = 0
    for seed in range(4):
        bots = [HeuristicBot(seed=seed * 10 + s) for s in range(3)]
        out = play(GAME, 3, {}, seed=seed, actors={s: bot_actor(b) for s, b in enumerate(bots)},
                   choosers={s: bot_chooser(b) for s, b in enumerate(bots)}, max_steps=20_000)
        assert out.finished
        kinds = Counter(e.type for e in out.events)
        offered += kinds["trade_offered"]
        accepted += kinds["trade_accepted"]
        assert kinds["trade_offered"] <= 6 * 3 * 2  # at most once a round per seat and partner
        assert kinds["trade_cancelled"] == 0  # never withdrawn before its seat could answer
    assert offered >= 1 and accepted >= 1
