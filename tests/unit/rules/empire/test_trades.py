"""Trading during exploration and the trade window (E-3, E-6, E-7, ER-5)."""

from __future__ import annotations

import pytest

from shared.rules.api import Turn
from shared.rules.empire import GAME
from shared.rules.empire.exploration import MAX_OPEN_OFFERS
from shared.rules.empire.state import Holdings

pytestmark = pytest.mark.unit


def offer(to: int, give: dict[str, int], get: dict[str, int] | None = None) -> dict[str, object]:
    return {"type": "offer_trade", "to": to, "give": give, "get": get or {}}


def test_e6_e7_trade_while_an_auction_is_open_is_atomic_and_public(drv) -> None:
    state = drv.at_exploration([dict(gold=10), dict(goods=2), dict(revolts=1)], start_player=2)
    assert state.auction.to_act == 0
    # Seat 2 is not the bidder but may trade at any time (open_to).
    state, events = drv.act(state, 1, offer(2, {"goods": 1}, {"revolts": 1}))
    [made] = events
    assert made.type == "trade_offered" and made.visible_to is None
    assert made.data == {
        "offer": 1,
        "from": 1,
        "to": 2,
        "give": {"goods": 1},
        "get": {"revolts": 1},
    }
    assert {"type": "accept", "offer": 1} in GAME.legal_actions(state, 2)
    assert GAME.default_action(state, 2) == {"type": "decline", "offer": 1}  # never accepts
    assert {"type": "cancel", "offer": 1} in GAME.legal_actions(state, 1)
    assert drv.act_code(state, 0, {"type": "accept", "offer": 1}) == "action/illegal"
    state, events = drv.act(state, 2, {"type": "accept", "offer": 1})
    assert [e.type for e in events] == ["trade_accepted"]
    assert state.holdings[1] == Holdings(goods=1, revolts=1)  # E-7: revolts are tradeable
    assert state.holdings[2] == Holdings(goods=1)
    assert state.offers == () and state.auction.to_act == 0  # the auction is untouched


def test_e3_gold_in_an_open_bid_is_locked(drv) -> None:
    state = drv.at_exploration([dict(gold=10), dict(goods=1, revolts=2)], start_player=1)
    state, _ = drv.act(state, 0, {"type": "raise", "bid": 8})
    assert drv.act_code(state, 0, offer(1, {"gold": 3})) == "action/illegal"
    state, _ = drv.act(state, 0, offer(1, {"gold": 2}, {"goods": 1}))
    # Seat 1 asks for 5 gold: seat 0 holds 10 but 8 are locked, so it cannot accept.
    state, _ = drv.act(state, 1, offer(0, {"revolts": 1}, {"gold": 5}))
    assert {"type": "accept", "offer": 2} not in GAME.legal_actions(state, 0)
    assert {"type": "decline", "offer": 2} in GAME.legal_actions(state, 0)
    assert drv.act_code(state, 0, {"type": "accept", "offer": 2}) == "action/illegal"
    view = GAME.view(state, 0)
    assert view["you"]["locked_gold"] == 8 and view["you"]["tradeable"]["gold"] == 2
    # E-7: every transfer needs consent, so a revolt cannot be dumped on seat 0.
    state, events = drv.act(state, 0, {"type": "decline", "offer": 2})
    assert [e.type for e in events] == ["trade_declined"] and state.holdings[0].revolts == 0
    state, _ = drv.act(state, 1, {"type": "accept", "offer": 1})
    assert state.holdings[0] == Holdings(gold=8, goods=1)
    # Once the auction closes (seat 0 wins at 8), all of its gold is unlocked again.
    state, _ = drv.pass_all(state)
    assert state.holdings[0].gold == 0 and state.holdings[0].goods == 2


def test_e7_gifts_and_unequal_trades_are_allowed(drv) -> None:
    state = drv.at_exploration([dict(gold=10, colonies=2), dict()], start_player=1)
    state, _ = drv.act(state, 0, offer(1, {"gold": 7, "colonies": 2}))
    state, _ = drv.act(state, 1, {"type": "accept", "offer": 1})
    assert state.holdings[1] == Holdings(gold=7, colonies=2)


@pytest.mark.parametrize(
    "bad",
    [
        offer(1, {"nation": 1}),  # ER-5: nation ("empire") cards are not tradeable
        offer(1, {"selection": 3}),  # nor selection cards (E-7)
        offer(1, {"goods": -1}),
        offer(1, {"goods": 1.5}),
        {"type": "offer_trade", "give": {"goods": 1}},
        {"type": "accept"},
        {"type": "accept", "offer": "1"},
    ],
)
def test_e7_er5_malformed_trade_actions(drv, bad: dict[str, object]) -> None:
    state = drv.at_exploration([dict(goods=3), dict()], start_player=1)
    assert drv.act_code(state, 0, bad) == "action/malformed"


def test_e7_illegal_trade_actions(drv) -> None:
    state = drv.at_exploration([dict(goods=3), dict(goods=1)], start_player=1)
    assert drv.act_code(state, 0, offer(0, {"goods": 1})) == "action/illegal"  # to oneself
    assert drv.act_code(state, 0, offer(5, {"goods": 1})) == "action/illegal"  # no such seat
    assert drv.act_code(state, 0, offer(1, {})) == "action/illegal"  # nothing moves
    assert drv.act_code(state, 0, offer(1, {"goods": 4})) == "action/illegal"  # not held
    assert drv.act_code(state, 0, {"type": "cancel", "offer": 9}) == "action/illegal"
    state, _ = drv.act(state, 0, offer(1, {"goods": 3}, {"goods": 1}))
    assert drv.act_code(state, 1, {"type": "cancel", "offer": 1}) == "action/illegal"
    assert drv.act_code(state, 0, {"type": "accept", "offer": 1}) == "action/illegal"
    assert drv.act_code(state, 0, {"type": "done"}) == "action/illegal"  # not the window yet
    # The offerer gives its goods away elsewhere: the first offer can no longer be accepted.
    state, _ = drv.act(state, 0, offer(1, {"goods": 3}))
    state, _ = drv.act(state, 1, {"type": "accept", "offer": 2})
    assert {"type": "accept", "offer": 1} not in GAME.legal_actions(state, 1)
    assert drv.act_code(state, 1, {"type": "accept", "offer": 1}) == "action/illegal"
    state, events = drv.act(state, 0, {"type": "cancel", "offer": 1})
    assert [e.type for e in events] == ["trade_cancelled"] and state.offers == ()


def test_open_offers_per_seat_are_capped(drv) -> None:
    state = drv.at_exploration([dict(goods=1), dict()], start_player=1)
    for _ in range(MAX_OPEN_OFFERS):
        state, _ = drv.act(state, 0, offer(1, {"goods": 1}))
    assert drv.act_code(state, 0, offer(1, {"goods": 1})) == "action/illegal"


def test_e6_trade_window_after_the_last_auction(drv) -> None:
    state = drv.at_exploration([dict(goods=2), dict(gold=5), dict()], start_player=0)
    state, _ = drv.finish_exploration(state)
    assert state.phase == "trade_window" and state.auction is None
    assert GAME.next(state) == Turn(seats=(0, 1, 2), open_to=())
    assert GAME.legal_actions(state, 0) == [{"type": "done"}]
    assert GAME.default_action(state, 0) == {"type": "done"}
    assert drv.act_code(state, 0, {"type": "pass"}) == "action/illegal"  # no auction open
    state, _ = drv.act(state, 0, {"type": "done"})
    assert GAME.next(state) == Turn(seats=(1, 2), open_to=(0,))
    assert drv.act_code(state, 0, {"type": "done"}) == "action/illegal"
    # A seat that is done may still trade (it is open_to).
    state, _ = drv.act(state, 1, offer(0, {"gold": 5}, {"goods": 1}))
    state, _ = drv.act(state, 0, {"type": "accept", "offer": 1})
    assert state.holdings[0].gold == 5 and state.holdings[1].goods == 1
    state, _ = drv.act(state, 1, offer(2, {"goods": 1}))
    state, _ = drv.act(state, 1, {"type": "done"})
    state, events = drv.act(state, 2, {"type": "done"})
    types = [e.type for e in events]
    # Unanswered offers expire before the shortage card moves (E-6), then round 2 begins.
    assert types[:3] == ["trade_done", "trades_expired", "shortage_moved"]
    assert drv.of(events, "trades_expired") == [{"offers": [2]}]
    assert drv.of(events, "shortage_moved") == [{"round": 2, "shortage": 1, "covered": "goods"}]
    assert state.offers == () and state.holdings[2] == Holdings()
    assert state.holdings[1].goods == 1
    assert state.round == 2 and state.phase == "commerce"


def test_e6_no_trading_outside_exploration(drv) -> None:
    state = drv.at_commerce([dict(goods=2), dict()])
    assert drv.act_code(state, 0, offer(1, {"goods": 1})) == "action/wrong_phase"
    assert GAME.legal_actions(state, 0) == []
