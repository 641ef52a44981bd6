"""HeuristicBot: plays through the playout kit as a client would (view + legal list only)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from shared.ai.empires_end.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import Simultaneous
from shared.rules.empires_end import GAME
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.state import Res

BOT = HeuristicBot()


def bot_seats(n: int, seats: range | list[int]) -> dict[str, Any]:
    return {
        "actors": {s: bot_actor(BOT) for s in seats},
        "choosers": {s: bot_chooser(BOT) for s in seats},
    }


@pytest.mark.unit
@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_bot_game_plays_to_the_end(n: int) -> None:
    out = play(GAME, n, seed=7 + n, **bot_seats(n, range(n)))
    assert out.finished
    outcome = GAME.score(out.state)
    assert sorted(r.place for r in outcome.results) == list(range(1, n + 1))
    # Bots keep most of their empire: better than losing a location every disaster.
    totals: list[Any] = [r.figures["total"] for r in outcome.results]
    assert all(t > 60 for t in totals)


@pytest.mark.unit
def test_bot_protects_the_city_and_takes_a_cheap_disaster() -> None:
    order = ("city", "road-2", *[t for t in sc.new_game(2).order if t not in ("city", "road-2")])
    state = sc.new_game(2, order=tuple(order), deck=["flood-1"])  # target 1: the City
    action = BOT.act(sc.view(state, 0), list(GAME.legal_actions(state, 0)), 0)
    assert action == {"type": "bid", "disaster": 0, "resource": "hammer"}
    # Already destroyed City: the 2-VP Road next to it would go, and the pool is big.
    state = sc.set_empire(state, 0, destroyed=["city"])
    dp = state.disaster
    assert dp is not None
    slot = replace(dp.slots[0], pool=Res(coin=3))
    state = replace(state, disaster=replace(dp, slots=(slot,)))
    action = BOT.act(sc.view(state, 0), list(GAME.legal_actions(state, 0)), 0)
    assert action == {"type": "take", "disaster": 0}


@pytest.mark.unit
def test_bot_conflict_bid_is_allowed_and_reaches_a_tier() -> None:
    state = sc.new_game(2, conflicts=["K1"])
    state, _ = sc.goto_phase(state, 5)
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    slot = node.slots[0]
    choice: Any = BOT.choose(sc.view(state, 0), slot, 0, {})
    assert GAME.check_choice(slot, choice)
    assert isinstance(choice, dict) and 4 + choice["axes"] + choice["coins"] >= 5


@pytest.mark.slow
@pytest.mark.unit
@pytest.mark.parametrize("n", [2, 3, 4])
def test_bot_beats_random_seats(n: int) -> None:
    """One HeuristicBot seat (rotating) against random seats, 240 games per seat count."""
    games, wins = 240, 0
    for seed in range(games):
        seat = seed % n
        out = play(GAME, n, seed=seed, **bot_seats(n, [seat]))
        assert out.finished
        wins += seat in GAME.score(out.state).winners
    rate = wins / games
    print(
        f"\n{n} seats: HeuristicBot won {wins}/{games} = {rate:.1%} (random baseline {1 / n:.0%})"
    )
    assert rate > 0.75
