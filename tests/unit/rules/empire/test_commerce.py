"""Commerce (RULEBOOK §10.2): Franklin/Winston/Joseph, E-13, E-21."""

from __future__ import annotations

import pytest

from shared.rules.api import Act, JointAction, Simultaneous
from shared.rules.empire import GAME
from shared.rules.empire.commerce import price

pytestmark = pytest.mark.unit

FRANKLIN, WINSTON, JOSEPH = range(3)


def test_rulebook_franklin_winston_joseph_commerce_e13(drv) -> None:
    state = drv.at_commerce([dict(goods=4, gold=3), dict(goods=3), dict(goods=1, gold=1)])
    node = GAME.next(state)
    assert isinstance(node, Simultaneous) and node.round_id == "commerce:1"
    assert [s.allowed for s in node.slots] == [(0, 1, 2, 3, 4), (0, 1, 2, 3), (0, 1)]
    assert all(s.default == 0 for s in node.slots)
    state, events = drv.joint(state, [2, 3, 1])
    [sale] = drv.of(events, "commerce")
    assert sale["total"] == 6 and sale["price"] == 4  # "the price of goods is 4"
    assert sale["sold"] == [2, 3, 1]
    assert sale["gold"] == [8, 12, 4]  # "takes 8 gold ... 12 gold ... 4 gold"
    goods = [h.goods for h in state.holdings]
    gold = [h.gold for h in state.holdings]
    assert goods == [2, 0, 0] and gold == [11, 12, 5]
    assert state.phase == "exploration"  # commerce is followed by exploration


@pytest.mark.parametrize(
    ("total", "expected"), [(0, 10), (1, 9), (6, 4), (9, 1), (10, 0), (11, 0), (21, 0)]
)
def test_e13_price_curve(total: int, expected: int) -> None:
    assert price(total) == expected


def test_e13_more_than_ten_sold_gives_nothing(drv) -> None:
    state = drv.at_commerce([dict(goods=9), dict(goods=3), dict(goods=1)])
    node = GAME.next(state)
    assert node.slots[0].allowed == tuple(range(8))  # E-13: at most 7 (the highest card)
    state, events = drv.joint(state, [7, 3, 1])
    assert drv.of(events, "commerce")[0]["price"] == 0
    assert [h.gold for h in state.holdings] == [0, 0, 0]
    assert [h.goods for h in state.holdings] == [2, 0, 0]  # the goods are paid all the same


def test_e21_choices_are_checked_against_goods_held_when_the_round_opens(drv) -> None:
    state = drv.at_commerce([dict(goods=2), dict(goods=0)])
    node = GAME.next(state)
    assert not GAME.check_choice(node.slots[0], 3)
    assert not GAME.check_choice(node.slots[1], 1)
    assert GAME.check_choice(node.slots[1], 0)
    over = JointAction(round_id="commerce:1", choices={"s0": 3, "s1": 0})
    assert drv.rejected(state, over) == "action/illegal"
    boolean = JointAction(round_id="commerce:1", choices={"s0": True, "s1": 0})
    assert drv.rejected(state, boolean) == "action/illegal"
    assert drv.rejected(state, Act(seat=0, action={"type": "pass"})) == "action/wrong_phase"


def test_e21_defaulted_seats_sell_nothing(drv) -> None:
    state = drv.at_commerce([dict(goods=2), dict(goods=5)])
    node = GAME.next(state)
    state, events = drv.joint(state, [node.slots[0].default, 4], defaulted=["s0"])
    [sale] = drv.of(events, "commerce")
    assert sale["sold"] == [0, 4] and sale["defaulted"] == ["s0"] and sale["price"] == 6
