"""Industry and Industry/Economy phases (EEND-11 .. EEND-14, EEND-19, EEND-22)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from shared.rules.api import Act, Chance, ChanceOutcome, Rejection, Terminal, Turn
from shared.rules.empires_end import GAME
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.state import Res, State

pytestmark = pytest.mark.unit

ORDER = (
    "town-6",
    "city",
    "town-12",
    "army-5",
    "road-14",
    "farm-3",
    "road-2",
    "farm-8",
    "army-9",
    "road-7",
    "farm-11",
)


def industry(n: int = 2, first: int = 0, **kw: Any) -> State:
    state = sc.new_game(n, order=ORDER, first=first)
    for seat in range(n):
        state = sc.set_res(state, seat)
    for key, value in kw.items():
        seat = int(key[-1])
        if key.startswith("hand"):
            state = sc.set_hand(state, seat, *value)
        elif key.startswith("res"):
            state = sc.set_res(state, seat, **value)
        elif key.startswith("empire"):
            state = sc.set_empire(state, seat, **value)
    state, _ = sc.goto_phase(state, 6)
    assert state.phase == "industry"
    return state


def kinds(state: State, seat: int) -> set[str]:
    return {a["type"] for a in sc.legal(state, seat)}


def builds(state: State, seat: int) -> list[dict[str, Any]]:
    return [a for a in sc.legal(state, seat) if a["type"] == "build"]


def test_two_builds_or_sells_then_discard_both_then_draw_to_four_eend_11() -> None:
    """EEND-11: exactly two build/sell actions; then optionally discard both remaining cards;
    then draw to 4 (after everyone, clockwise from the first player)."""
    hand0 = ("fire-1", "fire-2", "fire-4", "fire-6")
    hand1 = ("flood-1", "flood-2", "flood-3", "flood-4")
    state = industry(first=1, hand0=hand0, hand1=hand1)
    assert GAME.next(state) == Turn(seats=(0, 1))
    assert "discard_hand" not in kinds(state, 0)
    state, ev = sc.run(
        state,
        (0, {"type": "sell", "card": "fire-1"}),
        (0, {"type": "build", "card": "fire-2", "tile": "city", "coins": 0}),  # free: Town
    )
    assert state.players[0].res == Res(coin=1)
    assert not {"build", "sell"} & kinds(state, 0)
    assert "discard_hand" in kinds(state, 0)
    state, ev = sc.run(state, (0, {"type": "discard_hand"}))
    assert state.players[0].hand == ()
    public = [e.data for e in ev if e.visible_to is None]
    assert public == [{"seat": 0, "count": 2}]
    state, _ = sc.run(state, (0, {"type": "end_industry"}))
    top = state.deck[:6]
    # Seat 1 ends at once: both missing actions become sells of its last cards.
    state, ev = sc.run(state, (1, {"type": "end_industry"}))
    assert state.players[1].hand == ("flood-1", "flood-2", top[0], top[1])
    assert state.players[1].res == Res(coin=2)
    assert state.players[0].hand == top[2:6]
    assert {"fire-1", "fire-4", "fire-6", "flood-3", "flood-4"} <= set(state.discard)
    drawn = [e for e in ev if e.type == "card_drawn"]
    assert all("card" not in e.data for e in drawn if e.visible_to is None)
    assert state.phase == "disaster"


def test_town_discounts_eend_12() -> None:
    """EEND-12: each healthy Town takes 1 Hammer off a different card: two base cards are free,
    a +Hammer card still costs 1; discount innovations act like Towns."""
    hand = ("fire-1", "fire-3", "flood-1", "fire-5")  # fire-3 and fire-5 are +Hammer cards
    state = industry(hand0=hand)
    costs = {(b["card"], b["coins"]) for b in builds(state, 0)}
    assert {c for c, _ in costs} == {"fire-1", "flood-1"}  # +Hammer cards cost 1: unaffordable
    state, ev = sc.run(state, (0, {"type": "build", "card": "fire-1", "tile": "city", "coins": 0}))
    assert [e.data["cost"] for e in ev if e.type == "innovation_built"] == [0]
    assert state.work[0].used == ("town-6",)
    state = sc.set_res(state, 0, hammer=1)
    # The second Town discounts the +Hammer card to 1, never to 0.
    assert {"type": "build", "card": "fire-3", "tile": "town-6", "coins": 0} in builds(state, 0)
    state, ev = sc.run(
        state, (0, {"type": "build", "card": "fire-3", "tile": "town-6", "coins": 0})
    )
    assert [e.data["cost"] for e in ev if e.type == "innovation_built"] == [1]
    assert state.players[0].res == Res()


def test_one_town_destroyed_and_innovation_discount_eend_12() -> None:
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        res0={"hammer": 1},
        empire0={"destroyed": ["town-12"], "innovations": {}},
    )
    state, ev = sc.run(state, (0, {"type": "build", "card": "fire-1", "tile": "city", "coins": 0}))
    assert [e.data["cost"] for e in ev if e.type == "innovation_built"] == [0]
    state, ev = sc.run(
        state, (0, {"type": "build", "card": "fire-2", "tile": "army-5", "coins": 0})
    )
    assert [e.data["cost"] for e in ev if e.type == "innovation_built"] == [1]
    # A Flood discount innovation behaves like a Town.
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        empire0={"destroyed": ["town-6", "town-12"], "innovations": {"city": ["flood-2"]}},
    )
    assert {b["card"] for b in builds(state, 0)} == {"fire-1", "fire-2", "fire-4", "fire-6"}
    state, _ = sc.run(state, (0, {"type": "build", "card": "fire-1", "tile": "army-5", "coins": 0}))
    assert builds(state, 0) == []  # discount used, no hammer or coin


def test_coins_replace_hammers_when_building() -> None:
    state = industry(
        hand0=("fire-3", "fire-1", "fire-2", "fire-4"),
        res0={"hammer": 1, "coin": 2},
        empire0={"destroyed": ["town-6", "town-12"], "innovations": {}},
    )
    fire3 = sorted({b["coins"] for b in builds(state, 0) if b["card"] == "fire-3"})
    assert fire3 == [1, 2]  # cost 2: 1 hammer + 1 coin, or 2 coins
    state, _ = sc.run(state, (0, {"type": "build", "card": "fire-3", "tile": "city", "coins": 2}))
    assert state.players[0].res == Res(hammer=1)


def test_repair_once_any_order_and_discounts_eend_13() -> None:
    """EEND-13: one repair per phase, paid in hammers/coins; a repaired Town's discount works
    the same phase; adjacent repair discounts stack but never go below 0."""
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        res0={"hammer": 4},
        empire0={"destroyed": ["town-6", "town-12", "road-2"], "innovations": {}},
    )
    repairs = {(a["tile"], a["coins"]) for a in sc.legal(state, 0) if a["type"] == "repair"}
    assert repairs == {("town-6", 0), ("town-12", 0), ("road-2", 0)}
    state, ev = sc.run(state, (0, {"type": "repair", "tile": "town-12", "coins": 0}))
    assert [e.data for e in ev] == [{"seat": 0, "tile": "town-12", "cost": 4}]
    assert state.players[0].res == Res() and state.players[0].empire[2].healthy
    assert "repair" not in kinds(state, 0)  # only one repair per phase
    # The repaired Town makes a build free in the same phase.
    state, ev = sc.run(state, (0, {"type": "build", "card": "fire-1", "tile": "city", "coins": 0}))
    assert [e.data["cost"] for e in ev if e.type == "innovation_built"] == [0]
    # Stacking: town-12 (cost 4) between city and army-5, each with a repair discount.
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        res0={"hammer": 2},
        empire0={
            "destroyed": ["town-12", "road-2"],
            "innovations": {"city": ["flood-1"], "army-5": ["flood-6"], "road-14": ["fire-11"]},
        },
    )
    repairs = {(a["tile"], a["coins"]) for a in sc.legal(state, 0) if a["type"] == "repair"}
    assert ("town-12", 0) in repairs
    state, ev = sc.run(state, (0, {"type": "repair", "tile": "town-12", "coins": 0}))
    assert ev[0].data["cost"] == 2
    # road-2 (cost 1) next to farm-3 and farm-8 with two discounts: 0, not below.
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        empire0={
            "destroyed": ["road-2"],
            "innovations": {"farm-3": ["flood-1"], "farm-8": ["flood-6"]},
        },
    )
    state, ev = sc.run(state, (0, {"type": "repair", "tile": "road-2", "coins": 0}))
    assert ev[0].data["cost"] == 0 and state.players[0].res == Res()


def test_city_swap_any_two_innovations_travel_eend_14() -> None:
    """EEND-14: the City swaps any two locations, healthy or destroyed; innovations travel;
    once per phase."""
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        empire0={"destroyed": ["farm-11"], "innovations": {"army-5": ["fire-11"]}},
    )
    swaps = [a for a in sc.legal(state, 0) if a["type"] == "swap"]
    assert len(swaps) == 55
    state, ev = sc.run(
        state, (0, {"type": "swap", "source": "city", "a": "army-5", "b": "farm-11"})
    )
    emp = state.players[0].empire
    assert emp[3].tile == "farm-11" and not emp[3].healthy
    assert emp[10].tile == "army-5" and [i.card for i in emp[10].innovations] == ["fire-11"]
    assert ev[0].visible_to is None
    assert "swap" not in kinds(state, 0)


def test_move_innovation_follows_placement_rule_eend_14() -> None:
    """EEND-14: a moved innovation obeys the fewest-innovations rule at its destination."""
    inns = {t: [c] for t, c in zip(ORDER[1:], [f"fire-{i}" for i in range(1, 11)], strict=True)}
    inns["city"] = ["flood-3", "fire-11"]  # the move ability sits with a second card
    state = industry(
        hand0=("riots-1", "riots-3", "riots-4", "riots-5"), empire0={"innovations": inns}
    )
    moves = [a for a in sc.legal(state, 0) if a["type"] == "move"]
    # Only town-6 has no innovation: it is the only destination.
    assert moves and {m["tile"] for m in moves} == {"town-6"}
    state, _ = sc.run(
        state, (0, {"type": "move", "source": "flood-3", "card": "fire-11", "tile": "town-6"})
    )
    assert [i.card for i in state.players[0].empire[0].innovations] == ["fire-11"]
    assert "move" not in kinds(state, 0)


def test_refresh_one_adjacent_exhaust_marker() -> None:
    state = industry(
        hand0=("fire-1", "fire-2", "fire-4", "fire-6"),
        empire0={
            "innovations": {"city": ["flood-4"], "town-12": ["famine-1", "famine-2"]},
            "exhausted": ["famine-1", "famine-2"],
        },
    )
    refresh = [a for a in sc.legal(state, 0) if a["type"] == "refresh"]
    assert [a["card"] for a in refresh] == ["famine-1", "famine-2"]
    state, _ = sc.run(state, (0, refresh[0]))
    assert [i.exhausted for i in state.players[0].empire[2].innovations] == [False, True]
    assert "refresh" not in kinds(state, 0)  # one marker per ability per phase


def test_industry_economy_phase_order_eend_22() -> None:
    """EEND-22: in the combined phase each seat picks an order and finishes one phase before
    the other; here it is the last phase, so the game then ends."""
    state = sc.new_game(3, order=ORDER)
    state, _ = sc.goto_phase(state, 19)
    assert state.phase == "industry_economy"
    assert sc.legal(state, 0) == [
        {"type": "choose_order", "first": "economy"},
        {"type": "choose_order", "first": "industry"},
    ]
    state, _ = sc.run(
        state,
        (0, {"type": "choose_order", "first": "industry"}),
        (1, {"type": "choose_order", "first": "economy"}),
        (2, {"type": "choose_order", "first": "economy"}),
    )
    assert state.work[0].stage == "industry" and state.work[1].stage == "economy"
    # No intermixing: an economy action during seat 0's industry is illegal (the one set of
    # codes: wrong_phase is only a move kind that does not answer the pending node).
    bad = GAME.apply(state, Act(seat=0, action={"type": "end_economy"}))
    assert isinstance(bad, Rejection) and bad.code == "action/illegal"
    before = state.players[0].res
    state, _ = sc.run(state, (0, {"type": "end_industry"}))
    assert state.work[0].stage == "economy"  # production happens now
    assert state.players[0].res.hammer == before.hammer + 1
    state, _ = sc.run(
        state,
        (0, {"type": "end_economy"}),
        (1, {"type": "end_economy"}),
        (1, {"type": "end_industry"}),
        (2, {"type": "end_economy"}),
        (2, {"type": "end_industry"}),
    )
    assert isinstance(GAME.next(state), Terminal)


def test_draw_reshuffles_the_discard_pile_eend_19() -> None:
    """EEND-19: an empty deck is replaced by the shuffled discard pile (a secret Chance)."""
    state = industry(hand0=("fire-1", "fire-2", "fire-4", "fire-6"))
    state = replace(state, discard=(*state.discard, *state.deck[1:]), deck=state.deck[:1])
    state, _ = sc.run(
        state, (0, {"type": "sell", "card": "fire-1"}), (0, {"type": "sell", "card": "fire-2"})
    )
    last = state.deck[0]
    state, _ = sc.run(state, (0, {"type": "end_industry"}), (1, {"type": "end_industry"}))
    assert state.players[0].hand == ("fire-4", "fire-6", last)  # drew the last card first
    node = GAME.next(state)
    assert isinstance(node, Chance)
    assert node.label == "deck:disaster:shuffle:1" and node.secret and node.draw == "shuffle"
    assert node.n == len(state.discard)
    wrong = GAME.apply(
        state, ChanceOutcome(label="deck:disaster:shuffle:9", values=tuple(range(node.n)))
    )
    assert isinstance(wrong, Rejection) and wrong.code == "action/unknown_round"
    bad = GAME.apply(state, ChanceOutcome(label=node.label, values=(0,) * node.n))
    assert isinstance(bad, Rejection) and bad.code == "action/malformed"
    pile = state.discard
    state, ev = sc.run(
        state, ChanceOutcome(label=node.label, values=tuple(reversed(range(node.n))))
    )
    assert next(e.type for e in ev) == "deck_reshuffled"
    assert state.players[0].hand == ("fire-4", "fire-6", last, pile[-1])
    kept = tuple(c for c in state.players[1].hand if c not in pile)
    assert state.players[1].hand == kept + tuple(reversed(pile))[1 : 5 - len(kept)]
    assert state.phase == "disaster"
