"""Setup (EEND-1, EEND-2, EEND-21), the contract's node/move checks and JSON round trips."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Game,
    JointAction,
    Rejection,
    RuleError,
    Turn,
)
from shared.rules.empires_end import GAME
from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.data import (
    CARD_IDS,
    CONFLICTS,
    DISASTERS,
    TILE_IDS,
    TILES,
    TRACK_2P,
    TRACK_34P,
)
from shared.rules.empires_end.state import Res

pytestmark = pytest.mark.unit


def test_game_identity_and_protocol() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.rules_version, GAME.min_seats, GAME.max_seats) == (
        "empires-end",
        "1",
        2,
        4,
    )
    schema = GAME.options_schema()
    props: Any = schema["properties"]
    assert isinstance(props, dict)
    assert {k: v["default"] for k, v in props.items()} == {
        "random_first_player": True,
        "low_resources_rule": True,
        "reshuffle_discards": True,
    }


def test_component_data_shape() -> None:
    """RULINGS §4.2-4.5: 11 tiles, 6 x 11 disasters (one per target), 11 conflicts, tracks."""
    assert len(TILES) == 11 and len(DISASTERS) == 66 and len(CONFLICTS) == 11
    for kind in ("Fire", "Flood", "Barbarians", "Famine", "Drought", "Riots"):
        assert sorted(c.target for c in DISASTERS if c.type == kind) == list(range(1, 12))
    assert len(set(CARD_IDS)) == 66
    phases = [c.ability.phase for c in DISASTERS]
    assert {p: phases.count(p) for p in set(phases)} == {
        "economy": 26,
        "end": 14,
        "industry": 12,
        "disaster": 8,
        "conflict": 6,
    }
    assert len(TRACK_2P) == 20 and TRACK_2P[0] == "disaster" and TRACK_2P[1] == "economy"
    assert "double_disaster" not in TRACK_2P and "industry_economy" not in TRACK_2P
    assert len(TRACK_34P) == 19 and TRACK_34P[-1] == "industry_economy"
    assert TRACK_34P.count("double_disaster") == 4
    assert sorted(c.upheaval_pos for c in CONFLICTS) == list(range(1, 12))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_bad_seat_counts(n: int) -> None:
    with pytest.raises(RuleError):
        GAME.setup({}, n)


def test_bad_options() -> None:
    with pytest.raises(RuleError):
        GAME.setup({"no_such_flag": True}, 2)


def test_setup_draws_first_player_and_shared_order_eend_1_eend_2() -> None:
    """EEND-1: a random first player (a 'below' draw); EEND-2: one random arrangement copied
    to every empire (public); the decks are secret shuffles."""
    state = GAME.setup({}, 3)
    nodes = []
    values = {
        "locations:order:shuffle": tuple(reversed(range(11))),
        "first_player:below": (2,),
        "deck:disaster:shuffle:0": tuple(range(66)),
        "deck:conflict:shuffle:0": tuple(range(11)),
    }
    events = []
    while not isinstance(node := GAME.next(state), Turn):
        assert isinstance(node, Chance)
        nodes.append((node.label, node.draw, node.n, node.secret))
        state, ev = sc.run(state, ChanceOutcome(label=node.label, values=values[node.label]))
        events.extend(ev)
    assert nodes == [
        ("locations:order:shuffle", "shuffle", 11, False),
        ("first_player:below", "below", 3, False),
        ("deck:disaster:shuffle:0", "shuffle", 66, True),
        ("deck:conflict:shuffle:0", "shuffle", 11, True),
    ]
    order = tuple(reversed(TILE_IDS))
    assert all(tuple(loc.tile for loc in p.empire) == order for p in state.players)
    assert state.first == 2 and GAME.next(state) == Turn(seats=(2,))
    # Hands of 4 dealt clockwise from the first player, 2 of each token.
    assert [p.hand for p in state.players] == [CARD_IDS[4:8], CARD_IDS[8:12], CARD_IDS[0:4]]
    assert all(p.res == Res(wheat=2, hammer=2, axe=2, coin=2) for p in state.players)
    dealt = [e for e in events if e.type == "hand_dealt"]
    assert [(e.visible_to, e.data["cards"]) for e in dealt] == [
        ((2,), list(CARD_IDS[0:4])),
        ((0,), list(CARD_IDS[4:8])),
        ((1,), list(CARD_IDS[8:12])),
    ]
    public = [e for e in events if e.visible_to is None]
    assert not any("cards" in e.data for e in public)
    assert state.disaster is not None and state.disaster.slots[0].card == CARD_IDS[12]


def test_fixed_first_player_option_eend_1() -> None:
    state = GAME.setup({"random_first_player": False}, 2)
    state, _ = sc.run(
        state, ChanceOutcome(label="locations:order:shuffle", values=tuple(range(11)))
    )
    node = GAME.next(state)
    assert isinstance(node, Chance) and node.label == "deck:disaster:shuffle:0"
    assert state.first == 0


def test_rejections() -> None:
    state = GAME.setup({}, 2)
    r = GAME.apply(state, Act(seat=0, action={"type": "take", "disaster": 0}))
    assert isinstance(r, Rejection) and r.code == "action/wrong_phase"
    r = GAME.apply(state, ChanceOutcome(label="first_player:below", values=(0,)))
    assert isinstance(r, Rejection) and r.code == "action/unknown_round"
    r = GAME.apply(state, ChanceOutcome(label="locations:order:shuffle", values=(0, 1)))
    assert isinstance(r, Rejection) and r.code == "action/malformed"
    state = sc.new_game(2, deck=["flood-2"])
    r = GAME.apply(state, JointAction(round_id="conflict:1", choices={}))
    assert isinstance(r, Rejection) and r.code == "action/wrong_phase"
    r = GAME.apply(state, ChanceOutcome(label="deck:disaster:shuffle:1", values=()))
    assert isinstance(r, Rejection) and r.code == "action/wrong_phase"
    r = GAME.apply(state, Act(seat=1, action={"type": "take", "disaster": 0}))
    assert isinstance(r, Rejection) and r.code == "action/not_your_turn"
    for bad in (
        {"type": "teleport"},
        {"type": "take"},
        {"type": "take", "disaster": "0"},
        {"type": "take", "disaster": 0, "extra": 1},
        "take",
        None,
    ):
        r = GAME.apply(state, Act(seat=0, action=bad))
        assert isinstance(r, Rejection) and r.code == "action/malformed", bad
    r = GAME.apply(state, Act(seat=0, action={"type": "end_economy"}))  # not of this phase
    assert isinstance(r, Rejection) and r.code == "action/illegal"
    for illegal in (
        {"type": "bid", "disaster": 0, "resource": "wheat"},  # Flood takes hammers
        {"type": "take", "disaster": 1},
        {"type": "free_bid", "disaster": 0, "card": "famine-4"},  # not owned
        {"type": "end_turn"},
    ):
        r = GAME.apply(state, Act(seat=0, action=illegal))
        assert isinstance(r, Rejection) and r.code == "action/illegal", illegal
    assert sc.legal(state, 1) == []


def test_every_legal_action_is_accepted_and_default_is_legal() -> None:
    state = sc.new_game(3, deck=["fire-4"])
    for action in sc.legal(state, 0):
        assert not isinstance(GAME.apply(state, Act(seat=0, action=action)), Rejection)
    assert GAME.default_action(state, 0) in sc.legal(state, 0)


def test_encode_decode_round_trip() -> None:
    state = sc.new_game(4, deck=["famine-6"])
    state = sc.set_empire(
        state, 1, destroyed=["city"], innovations={"farm-3": ["riots-2"]}, exhausted=["riots-2"]
    )
    data = json.loads(json.dumps(GAME.encode(state)))
    again = GAME.decode(data)
    assert again == state
    assert GAME.encode(again) == GAME.encode(state)
