"""Exploration auctions (RULEBOOK §10.3): E-1 polling, E-2, E-3, E-4, E-17, E-20."""

from __future__ import annotations

import pytest

from shared.rules.api import Turn
from shared.rules.empire import GAME

pytestmark = pytest.mark.unit

GREG, KATHLEEN, TOBY, LIBBY, DAVE, STEVE = range(6)
ERIK, LAUREN = range(2)


def raise_to(bid: int) -> dict[str, object]:
    return {"type": "raise", "bid": bid}


PASS = {"type": "pass"}
WITHDRAW = {"type": "withdraw"}


def test_rulebook_greg_to_steve_highest_untied_bid_wins_e2(drv) -> None:
    state = drv.at_exploration([dict(gold=20)] * 6, start_player=STEVE)
    assert state.auction.card == 1 and state.auction.resource == "goods"
    assert GAME.next(state) == Turn(seats=(GREG,), open_to=(1, 2, 3, 4, 5))  # E-20
    for seat, bid in [(GREG, 12), (KATHLEEN, 12), (TOBY, 5), (LIBBY, 4), (DAVE, 1), (STEVE, 5)]:
        state, _ = drv.act(state, seat, raise_to(bid))
    state, events = drv.pass_all(state)
    [closed] = drv.of(events, "auction_closed")
    assert closed["bids"] == [12, 12, 5, 4, 1, 5]
    assert (closed["winner"], closed["price"], closed["resource"]) == (LIBBY, 4, "goods")
    assert [h.gold for h in state.holdings] == [20, 20, 20, 16, 20, 20]  # E-3: only Libby pays
    assert state.holdings[LIBBY].goods == 1
    assert state.auction.card == 2  # the next uncovered card, left to right (E-17)
    assert state.auction.opener == DAVE  # left of the previous winner (E-1)


def test_rulebook_erik_lauren_withdrawal_e1(drv) -> None:
    state = drv.at_exploration([dict(gold=10), dict(gold=10)], start_player=LAUREN)
    assert state.auction.to_act == ERIK
    state, _ = drv.act(state, ERIK, raise_to(5))
    state, _ = drv.act(state, LAUREN, raise_to(5))
    assert WITHDRAW in GAME.legal_actions(state, ERIK)  # tied: Erik may withdraw
    state, events = drv.act(state, ERIK, WITHDRAW)
    assert drv.of(events, "bid_withdrawn") == [{"seat": ERIK, "bid": 5}]
    # Erik may not bid on this card again; Lauren is no longer tied, so she may not withdraw.
    assert GAME.legal_actions(state, ERIK) == []
    assert drv.act_code(state, ERIK, raise_to(6)) == "action/not_your_turn"
    assert WITHDRAW not in GAME.legal_actions(state, LAUREN)
    assert drv.act_code(state, LAUREN, WITHDRAW) == "action/illegal"
    state, events = drv.act(state, LAUREN, PASS)
    [closed] = drv.of(events, "auction_closed")
    assert (closed["winner"], closed["price"], closed["withdrawn"]) == (LAUREN, 5, [ERIK])
    assert (state.holdings[ERIK].gold, state.holdings[LAUREN].gold) == (10, 5)


def test_e1_polling_closes_after_everyone_passed_since_the_last_raise(drv) -> None:
    state = drv.at_exploration([dict(gold=9)] * 3, start_player=0)
    assert state.auction.opener == 1
    state, _ = drv.act(state, 1, PASS)
    state, _ = drv.act(state, 2, raise_to(3))
    state, _ = drv.act(state, 0, PASS)
    state, _ = drv.act(state, 1, PASS)
    assert state.auction.card == 1 and state.auction.to_act == 2  # the raiser must pass too
    assert drv.act_code(state, 0, PASS) == "action/not_your_turn"
    state, events = drv.act(state, 2, PASS)
    assert drv.of(events, "auction_closed")[0]["winner"] == 2
    assert state.auction.card == 2 and state.auction.opener == 0


def test_e1_withdrawing_resets_the_passes_and_skips_the_seat(drv) -> None:
    state = drv.at_exploration([dict(gold=9)] * 3, start_player=2)
    state, _ = drv.act(state, 0, raise_to(2))
    state, _ = drv.act(state, 1, raise_to(2))
    state, _ = drv.act(state, 2, PASS)
    state, _ = drv.act(state, 0, WITHDRAW)
    assert state.auction.passes == 0 and state.auction.to_act == 1
    state, _ = drv.act(state, 1, PASS)
    state, _ = drv.act(state, 2, raise_to(1))
    assert state.auction.to_act == 1  # seat 0 is skipped from now on
    state, _ = drv.act(state, 1, PASS)
    assert state.auction.card == 1
    state, events = drv.act(state, 2, PASS)  # both non-withdrawn seats passed in a row
    [closed] = drv.of(events, "auction_closed")
    assert (closed["winner"], closed["price"], closed["withdrawn"]) == (1, 2, [0])
    assert state.holdings[0].gold == 9  # the withdrawn bid went back to the hand (E-3)


def test_e2_a_unique_zero_bid_wins_when_all_higher_bids_are_tied(drv) -> None:
    state = drv.at_exploration([dict(gold=9)] * 3, start_player=0)
    state, _ = drv.act(state, 1, raise_to(3))
    state, _ = drv.act(state, 2, raise_to(3))
    state, events = drv.pass_all(state)
    [closed] = drv.of(events, "auction_closed")
    assert (closed["winner"], closed["price"]) == (0, 0)
    assert state.holdings[0].goods == 1 and state.holdings[0].gold == 9


def test_e2_house_rule_minimum_winning_bid_one(drv) -> None:
    state = drv.at_exploration([dict(gold=9)] * 3, start_player=0, min_winning_bid_one=True)
    state, _ = drv.act(state, 1, raise_to(3))
    state, _ = drv.act(state, 2, raise_to(3))
    state, events = drv.pass_all(state)
    assert drv.of(events, "auction_closed")[0]["winner"] is None
    assert [h.goods for h in state.holdings] == [0, 0, 0]


def test_e2_all_tied_means_nobody_wins_and_the_lead_rotates(drv) -> None:
    state = drv.at_exploration([dict(gold=9)] * 3, start_player=0)
    state, events = drv.pass_all(state)
    [closed] = drv.of(events, "auction_closed")
    assert closed["winner"] is None and closed["price"] == 0
    assert state.auction.opener == 2  # left of the previous opener (seat 1)


def test_e3_e4_raises_are_integer_totals_up_to_the_gold_held(drv) -> None:
    state = drv.at_exploration([dict(gold=4), dict(gold=0)], start_player=1)
    legal = GAME.legal_actions(state, 0)
    assert legal == [PASS, WITHDRAW, raise_to(1), raise_to(2), raise_to(3), raise_to(4)]
    assert drv.act_code(state, 0, raise_to(5)) == "action/illegal"
    assert drv.act_code(state, 0, {"type": "raise", "bid": 2.5}) == "action/malformed"
    assert drv.act_code(state, 0, {"type": "raise", "bid": True}) == "action/malformed"
    assert drv.act_code(state, 0, {"type": "raise", "bid": "3"}) == "action/malformed"
    assert drv.act_code(state, 0, {"type": "bid", "amount": 3}) == "action/malformed"
    assert drv.act_code(state, 0, "pass") == "action/malformed"
    state, _ = drv.act(state, 0, raise_to(3))
    assert GAME.legal_actions(state, 1) == [PASS]  # no gold, not tied
    state, _ = drv.act(state, 1, PASS)
    assert drv.act_code(state, 0, raise_to(3)) == "action/illegal"  # never lower or equal
    assert GAME.default_action(state, 0) == PASS


def test_e17_bond_winner_takes_ten_gold_at_once_and_may_bid_it(drv) -> None:
    # Standard row goods (shortage), bonds, populations, populations, colonies, colonies.
    state = drv.at_exploration(
        [dict(gold=5), dict(gold=5)], version="standard", start_player=1, row=[0, 5, 1, 2, 3, 4]
    )
    assert state.auction.resource == "bonds"
    state, _ = drv.act(state, 0, raise_to(3))
    state, events = drv.pass_all(state)
    [closed] = drv.of(events, "auction_closed")
    assert (closed["winner"], closed["price"], closed["bond_gold"]) == (0, 3, 10)
    assert state.holdings[0].gold == 12 and state.holdings[0].bonds == 1
    assert state.auction.resource == "populations"
    state, _ = drv.act(state, 1, PASS)
    assert raise_to(12) in GAME.legal_actions(state, 0)


def test_e17_auctions_run_left_to_right_over_the_uncovered_cards(drv) -> None:
    state = drv.at_exploration([dict(gold=1)] * 2, start_player=0)
    state, events = drv.finish_exploration(state)
    opened = drv.of(events, "auction_opened")
    assert [e["card"] for e in opened] == [2, 3, 4, 5]  # card 1 was opened before
    assert state.phase == "trade_window"
    assert state.auctions_done == (1, 2, 3, 4, 5)
