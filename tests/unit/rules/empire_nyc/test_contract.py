"""The game contract: rejections, JSON round-trips, secrecy of views and events, legal and
default actions, scoring."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    Game,
    JointAction,
    Json,
    Rejection,
    Transition,
    Turn,
)
from shared.rules.empire_nyc import GAME, board
from shared.rules.empire_nyc.state import NycState
from tests.unit.rules.empire_nyc.helpers import deal, legal, make, view_of

pytestmark = pytest.mark.unit


def _collect(acc: list[NycState]) -> Callable[[NycState, object], None]:
    return lambda state, _move: acc.append(state)


@cache
def sampled() -> tuple[tuple[NycState, ...], tuple[Event, ...]]:
    """States every 37 steps of a few random playouts (both variants, 3 to 6 seats)."""
    states: list[NycState] = []
    events: list[Event] = []
    runs: list[tuple[int, dict[str, Json]]] = [
        (3, {"missions": True}),
        (4, {}),
        (5, {"missions": True, "extra_links": True}),
        (6, {"eliminated_cards": "discard", "forced_trade": True}),
    ]
    for seed, (n, opts) in enumerate(runs):
        seen: list[NycState] = []
        out = play(GAME, n, opts, seed=seed, max_steps=2500, on_step=_collect(seen))
        states.extend(seen[36::37])
        events.extend(out.events)
    return tuple(states), tuple(events)


def test_game_metadata_and_protocol() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.rules_version, GAME.min_seats, GAME.max_seats) == (
        "empire-nyc",
        "2",  # 2: the server rulings (docs/rulings-server.md)
        3,
        6,
    )
    schema: Any = GAME.options_schema()
    assert schema["properties"]["missions"]["default"] is False
    assert schema["properties"]["extra_links"]["default"] is False


def test_encode_decode_round_trip_on_playout_states() -> None:
    states, _ = sampled()
    assert len(states) > 100
    for s in states:
        data = json.loads(json.dumps(GAME.encode(s)))
        back = GAME.decode(data)
        assert back == s
        assert GAME.next(back) == GAME.next(s)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"type": "attack", "from": "MN01", "to": "BX01"},
        {"type": "attack", "from": "MN01", "to": "BX01", "dice": "3"},
        {"type": "attack", "from": "MN01", "to": "BX01", "dice": True},
        {"type": "attack", "from": "MN01", "to": "BX01", "dice": 1, "extra": 1},
        {"type": "attack", "from": "XX01", "to": "BX01", "dice": 1},
        "attack",
        None,
    ],
)
def test_malformed_actions(action: object) -> None:
    s = make(owners={"MN01": 0}, cubes={"MN01": 4})
    result = GAME.apply(s, Act(seat=0, action=action))  # type: ignore[arg-type]
    assert isinstance(result, Rejection) and result.code == "action/malformed"


def test_rejection_codes() -> None:
    s = make(owners={"MN01": 0}, cubes={"MN01": 4})

    def code(move: object) -> str:
        r = GAME.apply(s, move)  # type: ignore[arg-type]
        assert isinstance(r, Rejection)
        return r.code

    assert code(Act(seat=1, action={"type": "end_attack"})) == "action/not_your_turn"
    assert code(Act(seat=9, action={"type": "end_attack"})) == "action/not_your_turn"
    assert code(Act(seat=0, action={"type": "end_turn"})) == "action/illegal"
    assert code(Act(seat=0, action={"type": "place", "nb": "MN01", "n": 1})) == "action/illegal"
    assert code(ChanceOutcome(label="x", values=(1,))) == "action/wrong_phase"
    assert code(JointAction(round_id="x", choices={})) == "action/wrong_phase"
    over = replace(s, phase="over", winner=0, win_reason="map")
    assert isinstance(GAME.apply(over, Act(seat=0, action={"type": "end_turn"})), Rejection)


def test_chance_outcome_validation() -> None:
    s = GAME.setup({}, 3)
    assert isinstance(GAME.next(s), Chance)

    def code(move: object, state: NycState = s) -> str:
        r = GAME.apply(state, move)  # type: ignore[arg-type]
        assert isinstance(r, Rejection)
        return r.code

    assert code(Act(seat=0, action={"type": "end_turn"})) == "action/wrong_phase"
    assert code(ChanceOutcome(label="deal:neighborhoods", values=(0,))) == "action/unknown_round"
    assert code(ChanceOutcome(label="setup:first_player", values=(3,))) == "action/malformed"
    assert code(ChanceOutcome(label="setup:first_player", values=(0, 1))) == "action/malformed"
    s1, _ = deal(s, [1])
    bad_perm = tuple([0] * 42)
    assert code(ChanceOutcome(label="deal:neighborhoods", values=bad_perm), s1) == (
        "action/malformed"
    )
    b = make(owners={"MN01": 0}, cubes={"MN01": 4, "BX01": 1}, turn=3)
    r = GAME.apply(
        b, Act(seat=0, action={"type": "attack", "from": "MN01", "to": "BX01", "dice": 2})
    )
    assert isinstance(r, Transition)
    label = "dice:turn:3:attack:1:instigator"
    assert code(ChanceOutcome(label=label, values=(7, 1)), r.state) == "action/malformed"
    assert code(ChanceOutcome(label=label, values=(6,)), r.state) == "action/malformed"
    assert code(ChanceOutcome(label=label + "x", values=(6, 6)), r.state) == (
        "action/unknown_round"
    )


def test_every_legal_action_is_accepted_and_defaults_are_legal() -> None:
    states, _ = sampled()
    rng = random.Random(1)
    for s in states:
        node = GAME.next(s)
        if not isinstance(node, Turn):
            continue
        seat = node.seats[0]
        acts = legal(s, seat)
        assert acts
        for a in rng.sample(acts, min(len(acts), 12)):
            assert isinstance(GAME.apply(s, Act(seat=seat, action=a)), Transition), a
        default = GAME.default_action(s, seat)
        assert isinstance(GAME.apply(s, Act(seat=seat, action=default)), Transition)
        others = [x for x in range(s.n_seats) if x != seat]
        assert all(legal(s, x) == [] for x in others)


def _secrets_changed(s: NycState, seat: int) -> NycState:
    """Other cards of the same number (the hand size is public), another mission."""
    hands = list(s.hands)
    ids = board.CARD_IDS
    hands[seat] = tuple(ids[(ids.index(c) + 1) % len(ids)] for c in hands[seat])
    upd: dict[str, object] = {"hands": tuple(hands), "deck": tuple(reversed(s.deck))}
    if s.missions:
        missions = list(s.missions)
        missions[seat] = "O6" if missions[seat] != "O6" else "O1"
        upd["missions"] = tuple(missions)
    return replace(s, **upd)


def test_views_hide_other_seats_hands_missions_and_the_pile() -> None:
    states, _ = sampled()
    checked = 0
    for s in states:
        json.dumps(view_of(s, None))  # plain JSON
        if s.phase == "over" or s.turn == 0:
            continue
        for seat in range(s.n_seats):
            t = _secrets_changed(s, seat)
            for other in [None, *range(s.n_seats)]:
                if other == seat:
                    continue
                assert view_of(t, other) == view_of(s, other)
            if s.hands[seat] or s.missions:
                assert view_of(t, seat) != view_of(s, seat)
                checked += 1
    assert checked > 100


def test_view_keys() -> None:
    s = make(owners={"MN01": 0}, hands=(("RW1",), (), ()), options={"missions": True})
    v = view_of(s, 0)
    assert v["game"] == "empire-nyc" and v["phase"] == "attack" and v["seat"] == 0
    assert v["hand"] == [{"card": "RW1", "pest": "wild"}]
    assert v["mission"] == {"id": "O1", "boroughs": ["manhattan", "staten_island"]}
    assert v["awaiting"] == [0] and v["current"] == 0
    spectator = view_of(s, None)
    assert "hand" not in spectator and "mission" not in spectator
    assert spectator["players"][0]["cards"] == 1  # type: ignore[index]


def test_events_never_leak_secrets() -> None:
    _, events = sampled()
    kinds = {e.type for e in events}
    json.dumps([e.data for e in events])  # plain JSON
    assert {"card_drawn", "traded", "battle", "conquered", "mission"} <= kinds
    for e in events:
        if e.type in ("card_drawn", "mission"):
            assert e.visible_to == (e.data["seat"],)
        elif e.type == "cards_taken":
            assert e.visible_to == (e.data["seat"], e.data["from"])
        elif e.type == "game_over":
            assert e.visible_to is None
        else:
            assert e.visible_to is None
            assert "card" not in e.data
            if e.type != "traded":  # a traded set is shown to everybody
                assert isinstance(e.data.get("cards", 0), int)
            assert "mission" not in e.data


def test_score_ranks_survivors_by_neighborhoods_then_cubes_with_shared_places() -> None:
    half = {board.NB_IDS[i]: 1 + (i % 2) for i in range(2, 42)}
    s = make(owners={"MN01": 0, "MN02": 0} | half)
    out = GAME.score(s)
    assert [r.place for r in out.results] == [3, 1, 1]
    assert out.results[1].figures["neighborhoods"] == 20
    assert "neighborhoods" in out.tiebreak
    s2 = make(owners={"MN01": 0, "MN02": 0} | half, cubes={"MN03": 5})
    assert [r.place for r in GAME.score(s2).results] == [3, 1, 2]  # MN03 is seat 1's
