"""HeuristicBot: sensible single decisions, full games through the playout kit, and (slow)
its win rate against random seats."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from shared.ai.empire_nyc import bot
from shared.ai.empire_nyc.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import Act, SealedSlot, Transition
from shared.rules.empire_nyc import GAME, board
from tests.unit.rules.empire_nyc.helpers import legal, make, view_of

BOT = HeuristicBot()


def _decide(state: Any, seat: int = 0) -> Any:
    action = BOT.act(view_of(state, seat), list(legal(state, seat)), seat)
    assert isinstance(GAME.apply(state, Act(seat=seat, action=action)), Transition)
    return action


@pytest.mark.unit
def test_bot_reads_only_the_view() -> None:
    src = inspect.getsource(bot)
    assert "empire_nyc" not in src.split('"""', 2)[2]  # no engine / state imports


@pytest.mark.unit
def test_bot_trades_a_set_when_offered_and_keeps_wilds() -> None:
    s = make(
        owners={"MN01": 0},
        phase="reinforce",
        pool=3,
        hands=(("MN01", "MN02", "MN05", "RW1"), (), ()),
    )
    assert _decide(s) == {"type": "trade", "cards": ["MN01", "MN02", "MN05"]}


@pytest.mark.unit
def test_bot_puts_all_reinforcements_on_one_frontier_stack() -> None:
    """Holding 3 of Jersey's 4 neighborhoods, it stacks everything next to Bayonne."""
    s = make(owners={"NJ01": 0, "NJ02": 0, "NJ03": 0, "MN01": 0}, phase="reinforce", pool=6)
    assert _decide(s) == {"type": "place", "nb": "NJ03", "n": 6}


@pytest.mark.unit
def test_bot_attacks_weak_neighbors_and_stops_against_strong_ones() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 6, "BX01": 1})
    assert _decide(s) == {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3}
    s = make(
        owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 3, "BX01": 5, "MN03": 5, "BX03": 5, "NJ01": 5}
    )
    assert _decide(s) == {"type": "end_attack"}


@pytest.mark.unit
def test_bot_defends_with_two_dice() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 6, "BX01": 3})
    r = GAME.apply(
        s, Act(seat=0, action={"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    )
    assert isinstance(r, Transition)
    assert _decide(r.state, 1) == {"type": "defend", "dice": 2}


@pytest.mark.unit
def test_bot_moves_interior_stack_toward_the_front() -> None:
    own = {
        "MN05": 0,
        "MN06": 0,
        "MN08": 0,
        "MN03": 0,
        "MN04": 0,
        "MN07": 0,
        "MN09": 0,
        "MN10": 0,
        "MN11": 0,
    }
    s = make(owners=own, cubes={"MN05": 9}, phase="fortify")
    a = _decide(s)
    assert a["type"] == "fortify" and a["from"] == "MN05" and a["n"] == 8


@pytest.mark.unit
def test_bot_choose_returns_the_default() -> None:
    slot = SealedSlot(seat=0, key="s0", allowed=(1, 2), default=1)
    assert BOT.choose({}, slot, 0, {}) == 1


def _bot_game(n: int, seed: int, bots: list[int], options: dict[str, Any]) -> Any:
    return play(
        GAME,
        n,
        options,
        seed=seed,
        actors={s: bot_actor(BOT) for s in bots},
        choosers={s: bot_chooser(BOT) for s in bots},
        max_steps=60_000,
    )


@pytest.mark.unit
@pytest.mark.parametrize(
    ("n", "seed", "options"),
    [
        (3, 11, {}),
        (4, 12, {"missions": True}),
        (6, 13, {}),
    ],
)
def test_bot_beats_random_seats_through_the_playout_kit(
    n: int, seed: int, options: dict[str, Any]
) -> None:
    out = _bot_game(n, seed, [seed % n], options)
    assert out.finished
    assert out.state.winner == seed % n
    assert GAME.score(out.state).winners == (seed % n,)


@pytest.mark.unit
@pytest.mark.parametrize(("n", "options"), [(3, {}), (5, {"missions": True})])
def test_all_bot_games_end(n: int, options: dict[str, Any]) -> None:
    out = _bot_game(n, 5, list(range(n)), options)
    assert out.finished and out.state.winner is not None


@pytest.mark.slow
@pytest.mark.unit
def test_bot_win_rate_against_random_seats() -> None:
    """240 games, 3–6 seats, both variants, one HeuristicBot against random seats."""
    wins = games = 0
    for g in range(240):
        n = 3 + g % 4
        seat = g % n
        out = _bot_game(n, 1000 + g, [seat], {"missions": bool(g % 2)})
        assert out.finished
        games += 1
        wins += out.state.winner == seat
    rate = wins / games
    print(f"HeuristicBot vs random: {wins}/{games} = {rate:.1%}")
    assert rate >= 0.9


def _first_of(borough: str) -> str:
    return board.NB_IDS[board.BOROUGH_MEMBERS[borough][0]]


@pytest.mark.unit
def test_tuned_deny_weighs_a_rivals_whole_borough_by_its_bonus() -> None:
    """``Style.deny`` (the tuned style): a neighborhood of a borough one opponent holds
    whole is worth ``deny`` x the borough's bonus more as a target; the plain bot (deny 0)
    weighs it as before. Seat 1 holds everything but one neighborhood of each borough (seat
    2's), except the Bronx, which it holds whole."""
    owners = {"MN01": 0}
    for borough in ("manhattan", "queens", "brooklyn", "staten_island", "jersey"):
        owners.setdefault(_first_of(borough), 2)
    state = make(owners=owners)
    view = view_of(state, 0)
    plain = HeuristicBot()._targets(view, bot._board(view), 0)
    denying = HeuristicBot(bot.Style(deny=1.0))._targets(view, bot._board(view), 0)
    bronx = {board.NB_IDS[i] for i in board.BOROUGH_MEMBERS["bronx"]}
    assert {n for n in plain if denying[n] != plain[n]} == bronx
    assert all(denying[n] - plain[n] == pytest.approx(3.0) for n in bronx)  # bonus 3


@pytest.mark.unit
def test_tuned_holds_a_cheap_set_the_plain_bot_trades() -> None:
    """``Style.trade_min`` / ``trade_hand``: a set worth less than ``trade_min`` cubes is kept
    while the hand is short of ``trade_hand`` cards (the plain bot trades whenever offered)."""
    s = make(owners={"MN01": 0}, phase="reinforce", pool=3,
             hands=(("MN01", "MN02", "MN05"), (), ()))
    view, acts = view_of(s, 0), list(legal(s, 0))
    assert BOT.act(view, acts, 0)["type"] == "trade"
    holding = HeuristicBot(bot.Style(trade_min=10, trade_hand=4)).act(view, acts, 0)
    assert holding["type"] == "place"
    assert bot.TUNED.trade_min == 10 and bot.TUNED.trade_hand == 4


@pytest.mark.unit
def test_tuned_threat_attacks_away_from_a_big_enemy_stack() -> None:
    """``Style.threat`` (the tuned style): an attack is worth ``threat`` less per cube of
    the biggest enemy stack next to its target, so a sweep heads where its one-cube trail will
    not be eaten at once. From Washington Heights (8 cubes) the plain bot takes Harlem, deeper
    into Manhattan, though a 9-cube enemy stack waits next to it on the Upper West Side; with a
    threat weight it takes Inwood, whose other neighbor holds one cube."""
    s = make(owners={"MN02": 0}, cubes={"MN02": 8, "MN05": 9})
    view, acts = view_of(s, 0), list(legal(s, 0))
    assert BOT.act(view, acts, 0) == {"type": "attack", "from": "MN02", "to": "MN03", "dice": 3}
    wary = HeuristicBot(bot.Style(threat=1.0)).act(view, acts, 0)
    assert wary == {"type": "attack", "from": "MN02", "to": "MN01", "dice": 3}
    assert bot.TUNED.threat > 0


@pytest.mark.unit
def test_tuned_patience_takes_one_neighborhood_while_an_unspent_setup_pile_waits() -> None:
    """``Style.patience`` (the tuned style): in round 1, once this turn's first
    neighborhood is taken (its card, NY-4), the tuned bot stops attacking while an opponent
    still to play its first turn holds a stack of ``patience`` cubes or more (its setup pile,
    unspent), which would sweep a long trail of single cubes. Before the first conquest, below
    the threshold, after round 1 and once that opponent has played, it attacks as the plain
    bot does: a stack kept back is not waited for (two patient players would otherwise wait on
    each other for ever)."""
    patient = HeuristicBot(bot.Style(patience=20))
    cases = [  # (round, order, conquered this turn, the pile, stops)
        (1, (0, 1, 2), True, 20, True),
        (1, (0, 1, 2), False, 20, False),
        (1, (0, 1, 2), True, 19, False),
        (2, (0, 1, 2), True, 20, False),
        (1, (1, 2, 0), True, 20, False),  # seat 1 (the pile's owner) has played
    ]
    for rnd, order, conquered, pile, stops in cases:
        s = make(owners={"MN02": 0}, cubes={"MN02": 8, "SI01": pile}, conquered=conquered,
                 round=rnd, order=order)
        view, acts = view_of(s, 0), list(legal(s, 0))
        assert BOT.act(view, acts, 0)["type"] == "attack"
        assert (patient.act(view, acts, 0)["type"] == "end_attack") is stops, (rnd, order)
    assert bot.TUNED.patience == 20
