"""Disaster phases: the rulebook example, bidding, taking, EEND-3..9, EEND-25, EEND-26."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules.api import Chance, ChanceOutcome, Turn
from shared.rules.empires_end import GAME, board
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.data import CARD, TILE_IDS
from shared.rules.empires_end.state import Location, Res, State

pytestmark = pytest.mark.unit

# farm-3 in the 9th spot, as in the rulebook example
ORDER = (
    "town-12",
    "army-5",
    "road-2",
    "city",
    "farm-11",
    "road-14",
    "town-6",
    "army-9",
    "farm-3",
    "road-7",
    "farm-8",
)


def tiles(state: State, seat: int) -> list[tuple[str, bool, list[str]]]:
    p = state.players[seat]
    return [(loc.tile, loc.healthy, [i.card for i in loc.innovations]) for loc in p.empire]


def test_rulebook_disaster_example() -> None:
    """Rulebook example: 2nd Disaster phase, Fire on the 9th spot (the 3-point Farm); B took
    the last disaster so B bids first: B wheat, A axe, B takes, loses the Farm, gains both
    tokens and places the green Economy innovation under a healthy location."""
    a, b = 0, 1
    state = sc.new_game(2, order=ORDER, first=a, deck=["famine-1", "fire-9"])
    # Phase 1 (Disaster): A passes with a wheat, B takes famine-1 (target 1: town-12).
    state, _ = sc.run(state, (a, {"type": "bid", "disaster": 0, "resource": "wheat"}))
    state, _ = sc.run(state, (b, {"type": "take", "disaster": 0}))
    state, _ = sc.run(state, (b, {"type": "place", "tile": "city"}))
    state, _ = sc.run(state, (b, {"type": "shore_up", "coins": 0}))
    assert state.first == b
    # Phase 2 (Economy): nothing converted.
    state, _ = sc.run(state, (a, {"type": "end_economy"}), (b, {"type": "end_economy"}))
    assert state.phase == "disaster" and state.phase_index == 2  # the 2nd Disaster phase
    assert state.disaster is not None and state.disaster.slots[0].card == "fire-9"
    assert CARD["fire-9"].target == 9 and CARD["fire-9"].bids == ("wheat", "axe")
    # Both players have their 3-point Farm in the 9th spot.
    assert [p.empire[8].tile for p in state.players] == ["farm-3", "farm-3"]
    assert GAME.next(state) == Turn(seats=(b,))  # B took the last disaster: B begins
    before_b = state.players[b].res
    before_a = state.players[a].res
    state, ev = sc.run(
        state,
        (b, {"type": "bid", "disaster": 0, "resource": "wheat"}),
        (a, {"type": "bid", "disaster": 0, "resource": "axe"}),
    )
    assert state.disaster is not None
    assert state.disaster.slots[0].pool == Res(wheat=1, axe=1)
    assert [e.data for e in ev if e.type == "bid"] == [
        {"seat": b, "disaster": 0, "resource": "wheat"},
        {"seat": a, "disaster": 0, "resource": "axe"},
    ]
    state, ev = sc.run(state, (b, {"type": "take", "disaster": 0}))
    assert not state.players[b].empire[8].healthy  # B's Farm is flipped
    assert state.players[a].empire[8].healthy
    destroyed = [e.data for e in ev if e.type == "location_destroyed"]
    assert destroyed == [{"seat": b, "tile": "farm-3", "position": 9}]
    # B gets its own wheat back and A's axe.
    assert state.players[b].res == before_b.plus("axe")
    assert state.players[a].res == before_a.plus("axe", -1)
    # The innovation goes under a healthy location with the fewest innovations.
    state, _ = sc.run(state, (b, {"type": "place", "tile": "farm-11"}))
    assert tiles(state, b)[4] == ("farm-11", True, ["fire-9"])
    assert CARD["fire-9"].ability.phase == "economy"
    state, _ = sc.run(state, (b, {"type": "shore_up", "coins": 0}))
    assert state.phase_index == 3 and state.first == b


def test_pass_is_a_bid_and_take_ends_the_bidding_eend_26() -> None:
    """EEND-26: passing = bidding one accepted token (coins are wild); a take ends bidding."""
    state = sc.new_game(3, deck=["flood-4"])
    legal = sc.legal(state, 0)
    assert {"type": "bid", "disaster": 0, "resource": "hammer"} in legal
    assert {"type": "bid", "disaster": 0, "resource": "coin"} in legal
    assert {"type": "bid", "disaster": 0, "resource": "wheat"} not in legal  # Flood: hammers
    state, _ = sc.run(state, (0, {"type": "bid", "disaster": 0, "resource": "coin"}))
    assert GAME.next(state) == Turn(seats=(1,))  # clockwise
    state, _ = sc.run(state, (1, {"type": "take", "disaster": 0}))
    assert state.disaster is not None and state.disaster.resolution is not None
    assert sc.legal(state, 2) == []  # nobody else bids any more
    state, _ = sc.run(state, (1, {"type": "place", "tile": "city"}))
    state, _ = sc.run(state, (1, {"type": "shore_up", "coins": 0}))
    assert state.phase == "economy"
    assert state.players[1].res.coin == 3 and state.first == 1


def test_no_token_and_no_free_bid_must_take_eend_3() -> None:
    """EEND-3: with no accepted token, no coin and no usable free bid the only option is take."""
    state = sc.new_game(2, deck=["riots-5"])  # Riots: axe or hammer
    state = sc.set_res(state, 0, wheat=5)
    assert sc.legal(state, 0) == [{"type": "take", "disaster": 0}]
    assert GAME.default_action(state, 0) == {"type": "take", "disaster": 0}


@pytest.mark.parametrize(
    ("destroyed", "target", "expected"),
    [
        ((), 5, [5]),  # healthy target
        ((5,), 5, [4, 6]),  # EEND-4: both neighbours healthy -> taker's choice
        ((5, 4), 5, [6]),  # one neighbour healthy
        ((0,), 0, [1]),  # edge: one neighbour only
        ((0, 1), 0, [2]),  # edge, then distance 2
        ((5, 4, 6), 5, [3, 7]),  # distance 2 on both sides
        ((10, 9, 8, 7), 10, [6]),
        (tuple(range(11)), 3, []),  # nothing healthy: nothing is destroyed
    ],
)
def test_destroy_candidates_eend_4(
    destroyed: tuple[int, ...], target: int, expected: list[int]
) -> None:
    """EEND-4: target, else nearest healthy (adjacent first, then 2, 3, ...), ties = choice."""
    empire = tuple(Location(tile=t, healthy=i not in destroyed) for i, t in enumerate(TILE_IDS))
    assert board.destroy_candidates(empire, target) == expected


def test_destroy_choice_between_neighbours_eend_4() -> None:
    """EEND-4 through the engine: the taker picks one of two equidistant healthy tiles."""
    state = sc.new_game(2, deck=["barbarians-5"])  # target 5
    order = [loc.tile for loc in state.players[0].empire]
    state = sc.set_empire(state, 0, destroyed=[order[4]])
    state, _ = sc.run(state, (0, {"type": "take", "disaster": 0}))
    assert state.disaster is not None and state.disaster.resolution is not None
    assert set(state.disaster.resolution.choices) == {order[3], order[5]}
    assert sc.legal(state, 0) == [
        {"type": "destroy", "tile": order[3]},
        {"type": "destroy", "tile": order[5]},
    ]
    state, _ = sc.run(state, (0, {"type": "destroy", "tile": order[5]}))
    assert [loc.healthy for loc in state.players[0].empire][3:6] == [True, False, False]


def test_nothing_healthy_still_gains_resources_and_discards_innovation_eend_4_eend_5() -> None:
    """EEND-4: no healthy location -> nothing destroyed but the bids are gained;
    EEND-5: no healthy location -> the innovation is discarded."""
    state = sc.new_game(2, deck=["famine-2"])
    state = sc.set_empire(state, 1, destroyed=TILE_IDS)
    state, _ = sc.run(state, (0, {"type": "bid", "disaster": 0, "resource": "wheat"}))
    before = state.players[1].res
    state, ev = sc.run(state, (1, {"type": "take", "disaster": 0}))
    types = [e.type for e in ev]
    assert "nothing_destroyed" in types and "innovation_discarded" in types
    assert state.players[1].res == before.plus("wheat")
    assert "famine-2" in state.discard


def test_placement_fewest_innovations_healthy_only() -> None:
    """Innovations go under a healthy location with the least innovations, never a destroyed
    one; with one candidate the placement is automatic (EEND-5, EEND-25)."""
    state = sc.new_game(2, deck=["drought-6"])  # target 6
    order = [loc.tile for loc in state.players[0].empire]
    fillers = ["fire-1", "fire-2", "fire-4", "fire-6", "fire-7", "fire-10", "fire-11", "flood-1"]
    # Every healthy location but order[1] already holds one innovation; order[0] destroyed.
    inns: dict[str, list[str]] = {
        order[i]: [card] for i, card in zip([2, 3, 4, 6, 7, 8, 9, 10], fillers, strict=True)
    }
    inns[order[5]] = ["flood-2"]
    state = sc.set_empire(state, 0, destroyed=[order[0]], innovations=inns)
    assert board.placement_candidates(state.players[0].empire) == [1]
    state, ev = sc.run(state, (0, {"type": "take", "disaster": 0}))
    placed = [e.data for e in ev if e.type == "innovation_placed"]
    assert placed == [{"seat": 0, "card": "drought-6", "tile": order[1]}]


def test_taken_innovation_is_free_and_mandatory_eend_25() -> None:
    """EEND-25: taking costs no hammer (build costs apply only to building from hand) and the
    taker must place it (no 'skip' among the choices)."""
    state = sc.new_game(2, deck=["fire-8"])  # a "+Hammer" card
    state = sc.set_res(state, 0, hammer=0, wheat=0, axe=0, coin=0)
    state, _ = sc.run(state, (0, {"type": "take", "disaster": 0}))
    legal = sc.legal(state, 0)
    assert legal and all(a["type"] == "place" for a in legal)
    assert len(legal) == 10  # every other healthy location
    state, _ = sc.run(state, (0, {"type": "place", "tile": "city"}))
    assert state.players[0].res == Res()


def test_first_player_marker_goes_to_the_taker() -> None:
    state = sc.new_game(3, first=2, deck=["flood-3"])
    assert GAME.next(state) == Turn(seats=(2,))
    state, _ = sc.run(
        state,
        (2, {"type": "bid", "disaster": 0, "resource": "hammer"}),
        (0, {"type": "take", "disaster": 0}),
    )
    assert state.first == 0


def test_free_bid_on_combination_card_eend_8() -> None:
    """EEND-8: a free bid works if its resource is among the card's accepted types, adds no
    token, covers one pass only (it is exhausted afterwards)."""
    state = sc.new_game(2, deck=["fire-3"])  # Fire: wheat or axe
    state = sc.set_empire(state, 0, innovations={"city": ["famine-3"]})  # free bid: Axe
    state = sc.set_empire(state, 1, innovations={"city": ["famine-4"]})  # free bid: Hammer
    legal0 = sc.legal(state, 0)
    assert {"type": "free_bid", "disaster": 0, "card": "famine-3"} in legal0
    state, _ = sc.run(state, (0, {"type": "free_bid", "disaster": 0, "card": "famine-3"}))
    assert state.disaster is not None and state.disaster.slots[0].pool == Res()
    assert all(a["type"] != "free_bid" for a in sc.legal(state, 1))
    state, _ = sc.run(state, (1, {"type": "bid", "disaster": 0, "resource": "wheat"}))
    # Back to seat 0: the ability is exhausted, it must bid (or take) this time.
    assert all(a["type"] != "free_bid" for a in sc.legal(state, 0))
    inn = state.players[0].empire[board.position_of_ref(state.players[0].empire, "famine-3") or 0]
    assert inn.innovations[0].exhausted


def test_free_bid_unusable_under_destroyed_location() -> None:
    state = sc.new_game(2, deck=["famine-5"])
    state = sc.set_empire(state, 0, innovations={"city": ["famine-1"]}, destroyed=["city"])
    assert all(a["type"] != "free_bid" for a in sc.legal(state, 0))


def test_replace_disaster_eend_7() -> None:
    """EEND-7: only on your own turn, before or after your bid; the bids stay with the new
    card; the new target is marked; you still have to bid or take."""
    state = sc.new_game(2, deck=["famine-9", "barbarians-2"])
    state = sc.set_empire(state, 1, innovations={"farm-3": ["famine-6"]})
    assert all(a["type"] != "replace" for a in sc.legal(state, 1))
    state, _ = sc.run(state, (0, {"type": "bid", "disaster": 0, "resource": "wheat"}))
    legal = sc.legal(state, 1)
    assert {"type": "replace", "disaster": 0, "card": "famine-6"} in legal
    state, ev = sc.run(state, (1, {"type": "replace", "disaster": 0, "card": "famine-6"}))
    assert state.disaster is not None
    assert state.disaster.slots[0].card == "barbarians-2"
    assert state.disaster.slots[0].pool == Res(wheat=1)  # bids stay
    revealed = [e.data for e in ev if e.type == "disaster_revealed"]
    assert revealed[0]["target"] == 2 and revealed[0]["card"] == "barbarians-2"
    assert "famine-9" in state.discard
    # Still seat 1's turn, and it must address the new card (axe only).
    assert GAME.next(state) == Turn(seats=(1,))
    legal = sc.legal(state, 1)
    assert {"type": "bid", "disaster": 0, "resource": "axe"} in legal
    assert {"type": "bid", "disaster": 0, "resource": "wheat"} not in legal


def test_replace_after_bidding_then_end_turn_eend_7() -> None:
    """EEND-7: a replace may follow the bid; the turn then ends with ``end_turn``."""
    state = sc.new_game(2, deck=["famine-9", "flood-2"])
    state = sc.set_empire(state, 0, innovations={"farm-3": ["famine-7"]})
    state, _ = sc.run(state, (0, {"type": "bid", "disaster": 0, "resource": "wheat"}))
    assert GAME.next(state) == Turn(seats=(0,))  # a replace is still possible
    assert sc.legal(state, 0) == [
        {"type": "replace", "disaster": 0, "card": "famine-7"},
        {"type": "end_turn"},
    ]
    state, _ = sc.run(state, (0, {"type": "replace", "disaster": 0, "card": "famine-7"}))
    assert GAME.next(state) == Turn(seats=(1,))  # already bid: the turn passes on
    assert state.disaster is not None and state.disaster.slots[0].card == "flood-2"


def test_double_disaster_eend_6() -> None:
    """EEND-6: the bidder addresses both disasters in either order; resources from a take pay
    the other bid; the later taker gets the first-player marker; same target twice -> EEND-4."""
    state = sc.new_game(3, first=1)
    state = sc.stack_deck(state, "flood-7", "barbarians-7")  # both target position 7
    state, ev = sc.goto_phase(state, 4)
    assert state.phase == "double_disaster"
    assert [e.data["target"] for e in ev if e.type == "disaster_revealed"] == [7, 7]
    state = sc.set_res(state, 1, hammer=0, axe=0, coin=0, wheat=3)
    legal = sc.legal(state, 1)
    assert {"type": "take", "disaster": 0} in legal and {"type": "take", "disaster": 1} in legal
    assert not any(a["type"] == "bid" for a in legal)
    state, _ = sc.run(state, (1, {"type": "take", "disaster": 1}))  # either order
    state, _ = sc.run(state, (1, {"type": "place", "tile": "city"}))
    state, _ = sc.run(state, (1, {"type": "shore_up", "coins": 0}))
    assert state.first == 1  # not yet: one disaster is still open
    assert GAME.next(state) == Turn(seats=(1,))  # must still address disaster 0
    assert sc.legal(state, 1) == [{"type": "take", "disaster": 0}]
    state, _ = sc.run(state, (1, {"type": "take", "disaster": 0}))
    # Same target already destroyed by the first take: a neighbour (taker's choice).
    assert state.disaster is not None and state.disaster.resolution is not None
    order = [loc.tile for loc in state.players[1].empire]
    assert state.disaster.resolution.choices == (order[5], order[7])


def test_double_disaster_one_seat_takes_both_eend_6() -> None:
    """EEND-6: a seat with nothing to bid takes both disasters in its turn; it then holds the
    first-player marker."""
    state = sc.new_game(3, first=2)
    state = sc.stack_deck(state, "riots-3", "flood-9")
    state, _ = sc.goto_phase(state, 4)
    state = sc.set_res(state, 0)
    assert GAME.next(state) == Turn(seats=(2,))
    state, _ = sc.run(
        state,
        (2, {"type": "bid", "disaster": 0, "resource": "axe"}),
        (2, {"type": "bid", "disaster": 1, "resource": "hammer"}),
    )
    state = sc.set_res(state, 0)
    assert sc.legal(state, 0) == [
        {"type": "take", "disaster": 0},
        {"type": "take", "disaster": 1},
    ]
    state, _ = sc.run(
        state,
        (0, {"type": "take", "disaster": 0}),
        (0, {"type": "place", "tile": "city"}),
        (0, {"type": "shore_up", "coins": 0}),
    )
    # The axe from riots-3 cannot be bid on the Flood (hammers only): take it too.
    assert sc.legal(state, 0) == [{"type": "take", "disaster": 1}]
    state, _ = sc.run(
        state,
        (0, {"type": "take", "disaster": 1}),
        (0, {"type": "place", "tile": "town-6"}),
        (0, {"type": "shore_up", "coins": 3}),
    )
    assert state.players[0].res == Res(axe=1, hammer=1, coin=3)
    assert state.first == 0 and state.phase == "conflict"


def test_gained_tokens_pay_the_other_disaster_eend_6() -> None:
    """EEND-6: resources gained from taking one disaster can be bid on the other."""
    state = sc.new_game(3, first=0)
    state = sc.stack_deck(state, "riots-3", "flood-9")
    state, _ = sc.goto_phase(state, 4)
    state = sc.set_res(state, 0, hammer=2)
    state = sc.set_res(state, 1)
    state = sc.set_res(state, 2)
    state, _ = sc.run(
        state,
        (0, {"type": "bid", "disaster": 0, "resource": "hammer"}),
        (0, {"type": "bid", "disaster": 1, "resource": "hammer"}),
    )
    assert sc.legal(state, 1) == [
        {"type": "take", "disaster": 0},
        {"type": "take", "disaster": 1},
    ]
    state, _ = sc.run(
        state,
        (1, {"type": "take", "disaster": 0}),
        (1, {"type": "place", "tile": "city"}),
        (1, {"type": "shore_up", "coins": 0}),
    )
    assert state.first == 0  # one disaster still open: the marker has not moved
    assert {"type": "bid", "disaster": 1, "resource": "hammer"} in sc.legal(state, 1)
    state, _ = sc.run(state, (1, {"type": "bid", "disaster": 1, "resource": "hammer"}))
    assert state.players[1].res == Res()
    state, _ = sc.run(state, (2, {"type": "take", "disaster": 1}))
    assert state.players[2].res == Res(hammer=2)
    assert state.first == 2  # the later taker


def test_low_resources_rule_eend_9() -> None:
    """EEND-9: right after a take, under 5 tokens: lift the screen and pay 2 VP per coin up to
    5 tokens; VP may go negative; the reveal is public."""
    state = sc.stack_deck(sc.new_game(2), "flood-6")
    state, _ = sc.goto_phase(state, 3)  # followed by another Disaster phase
    state = sc.set_res(state, 0, wheat=1)
    state, _ = sc.run(state, (0, {"type": "take", "disaster": 0}))
    state, _ = sc.run(state, (0, {"type": "place", "tile": "city"}))
    assert sc.legal(state, 0) == [{"type": "shore_up", "coins": k} for k in range(5)]
    state, ev = sc.run(state, (0, {"type": "shore_up", "coins": 4}))
    assert state.players[0].res == Res(wheat=1, coin=4)
    assert state.players[0].vp == -8
    lifted = [e for e in ev if e.type == "screen_lifted"]
    assert lifted[0].visible_to is None
    assert lifted[0].data == {
        "seat": 0,
        "resources": {"wheat": 1, "hammer": 0, "axe": 0, "coin": 0},
        "coins_bought": 4,
    }


def test_low_resources_not_offered_with_five_tokens_or_when_disabled_eend_9() -> None:
    """EEND-9: with 5+ tokens only 0 is legal (asked anyway so waiting reveals nothing,
    EEND-21); the option flag turns the rule off."""
    state = sc.new_game(2, deck=["flood-6"])
    state, _ = sc.run(state, (0, {"type": "take", "disaster": 0}))
    state, _ = sc.run(state, (0, {"type": "place", "tile": "city"}))
    assert sc.legal(state, 0) == [{"type": "shore_up", "coins": 0}]
    off = sc.new_game(2, deck=["flood-6"], options={"low_resources_rule": False})
    off = sc.set_res(off, 0)
    off, _ = sc.run(off, (0, {"type": "take", "disaster": 0}))
    off, _ = sc.run(off, (0, {"type": "place", "tile": "city"}))
    assert off.phase == "economy"


def test_bids_are_public_events() -> None:
    """EEND-21: disaster bids are public."""
    state = sc.new_game(2, deck=["flood-6"])
    _, ev = sc.run(state, (0, {"type": "bid", "disaster": 0, "resource": "hammer"}))
    assert all(e.visible_to is None for e in ev)


def test_reveal_reshuffles_the_discard_pile_eend_19() -> None:
    """EEND-19: revealing from an empty deck first shuffles the discard pile (secret Chance);
    with the option off, the disaster is skipped."""
    state = sc.new_game(2)
    pile = state.deck
    state = replace(state, deck=(), discard=pile)
    state, _ = sc.goto_phase(state, 3)
    node = GAME.next(state)
    assert isinstance(node, Chance) and node.secret
    assert (node.label, node.draw, node.n) == ("deck:disaster:shuffle:1", "shuffle", len(pile))
    assert sc.legal(state, 0) == []
    values = tuple(reversed(range(len(pile))))
    state, ev = sc.run(state, ChanceOutcome(label=node.label, values=values))
    assert [e.type for e in ev] == ["deck_reshuffled", "disaster_revealed"]
    assert state.disaster is not None and state.disaster.slots[0].card == pile[-1]
    assert state.discard == () and state.reshuffles == 1
    off = sc.new_game(2, options={"reshuffle_discards": False})
    off = replace(off, deck=(), discard=off.deck)
    off, ev = sc.goto_phase(off, 3)
    assert [e.type for e in ev].count("disaster_skipped") == 2  # phases 3 and 4
    assert off.phase == "conflict"
