"""Hypothesis random play of Empire: The Game of New York.

Random seats (some replaced by HeuristicBots) play from setup with the dealer's real draw
functions until the game ends or a turn cap is reached. After every move: no neighborhood is
ever empty or unowned, cubes on the map change only by placements and combat losses, the 44
cards are conserved, only live players own neighborhoods, and every awaited seat has legal
actions. A finished game's winner holds the whole map or their mission (NY-12); no neighborhood is
ever empty, even during a conquest (NY-9). A second property throws arbitrary actions at
positions from a playout: ``apply`` always answers with a Transition or a Rejection.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.ai.empire_nyc.bot import HeuristicBot
from shared.ai.playout import bot_actor
from shared.fairness.draws import draw
from shared.rules._kit.playout import play, random_actor
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    Rejection,
    Terminal,
    Transition,
    Turn,
)
from shared.rules.empire_nyc import GAME, board
from shared.rules.empire_nyc.state import NycState

pytestmark = pytest.mark.property

TURN_CAP = 80
STEP_CAP = 20_000


def _cube_delta(events: tuple[Event, ...]) -> int:
    """Change of the cubes on the map that the events account for."""
    delta = 0
    for e in events:
        if e.type == "placed":
            delta += int(e.data["n"])  # type: ignore[arg-type]
        elif e.type == "battle":
            delta -= int(e.data["instigator_losses"]) + int(e.data["defender_losses"])  # type: ignore[arg-type]
    return delta


def _check(before: NycState, after: NycState, events: tuple[Event, ...]) -> None:
    if after.owner[0] >= 0:
        assert all(o >= 0 for o in after.owner)
        assert all(c >= 1 for c in after.cubes), "a neighborhood is empty"
        assert all(after.alive(o) for o in after.owner)
        if before.owner[0] >= 0:  # (the deal itself puts the first 42 cubes down)
            assert sum(after.cubes) - sum(before.cubes) == _cube_delta(events)
        start = {3: 35, 4: 30, 5: 25, 6: 20}[after.n_seats]
        if after.turn == 0:  # setup: cubes on the map + cubes to place = starting cubes
            assert sum(after.cubes) + sum(after.to_place) == start * after.n_seats
    cards = sum(len(h) for h in after.hands) + len(after.deck) + len(after.discard)
    assert cards in (0, len(board.CARD_IDS))
    if after.turn > 0:
        assert cards == len(board.CARD_IDS)
        every = [c for h in after.hands for c in h] + list(after.deck + after.discard)
        assert sorted(every) == sorted(board.CARD_IDS)
    assert after.sets_traded >= before.sets_traded
    node = GAME.next(after)
    if isinstance(node, Turn):
        assert len(node.seats) == 1 and GAME.legal_actions(after, node.seats[0])
    if after.phase == "over" and after.win_reason == "round_limit":  # NY-S1
        assert isinstance(node, Terminal) and after.options.max_rounds == after.round
    elif after.phase == "over":
        assert after.winner is not None and isinstance(node, Terminal)
        won_map = all(o == after.winner for o in after.owner)
        assert won_map or after.win_reason == "mission"
        if after.win_reason == "mission":
            mission = board.MISSION_BOROUGHS[after.missions[after.winner]]
            assert board.holds_boroughs(after.owner, after.winner, mission)


def run(seed: int, n: int, options: dict[str, Any], bots: set[int]) -> NycState:
    rng = random.Random(seed)
    key = seed.to_bytes(8, "big") * 4
    bot = bot_actor(HeuristicBot())
    state: NycState = GAME.setup(options, n)
    for _ in range(STEP_CAP):
        node = GAME.next(state)
        if isinstance(node, Terminal) or state.turn > TURN_CAP:
            break
        if isinstance(node, Chance):
            values = draw(key, node.label, node.draw, node.n, node.count)
            move: Any = ChanceOutcome(label=node.label, values=tuple(values))
        else:
            assert isinstance(node, Turn)
            seat = node.seats[0]
            actor = bot if seat in bots else random_actor
            move = Act(seat=seat, action=actor(GAME, state, seat, rng))
        result = GAME.apply(state, move)
        assert isinstance(result, Transition), (move, result)
        _check(state, result.state, result.events)
        state = result.state
    else:  # pragma: no cover
        raise AssertionError("neither finished nor reached the turn cap")
    assert state.phase == "over" or state.turn > TURN_CAP
    assert GAME.decode(json.loads(json.dumps(GAME.encode(state)))) == state
    return state


options_st = st.fixed_dictionaries(
    {},
    optional={
        "missions": st.booleans(),
        "extra_links": st.booleans(),
        "eliminated_cards": st.sampled_from(["eliminator", "discard"]),
        "forced_trade": st.booleans(),
        "defender_chooses_dice": st.booleans(),
    },
)


@pytest.mark.full
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(3, 6),
    options=options_st,
    bots=st.sets(st.integers(0, 5), max_size=2),
)
def test_random_play_invariants(seed: int, n: int, options: dict[str, Any], bots: set[int]) -> None:
    run(seed, n, options, {b for b in bots if b < n})


def test_a_bot_driven_game_finishes_within_the_cap() -> None:
    """With bots in every seat the game must end, not just reach the cap."""
    state = run(3, 4, {"missions": True}, {0, 1, 2, 3})
    assert state.phase == "over"


@cache
def _positions() -> tuple[NycState, ...]:
    seen: list[NycState] = []
    play(
        GAME,
        4,
        {"missions": True},
        seed=9,
        max_steps=1500,
        on_step=lambda pos, _m: seen.append(pos),
    )
    return tuple(seen[::25])


NB = st.sampled_from(["MN01", "BX01", "QN02", "NJ04", "XX99", "", "mn01"])
INT = st.one_of(st.integers(-2, 8), st.just(10**9), st.booleans(), st.text(max_size=2))
ACTION = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "place",
                    "trade",
                    "attack",
                    "defend",
                    "move_in",
                    "end_attack",
                    "fortify",
                    "end_turn",
                    "bid",
                    "",
                ]
            )
        },
        optional={
            "nb": NB,
            "from": NB,
            "to": NB,
            "n": INT,
            "dice": INT,
            "cards": st.lists(
                st.sampled_from(["MN01", "MN02", "MN05", "RW1", "RW2", "ZZ"]), max_size=4
            ),
            "extra": st.none(),
        },
    ),
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(k=st.integers(0, 10**6), seat=st.integers(-1, 6), action=ACTION)
def test_apply_never_raises_on_arbitrary_actions(k: int, seat: int, action: Any) -> None:
    states = _positions()
    state = states[k % len(states)]
    result = GAME.apply(state, Act(seat=seat, action=action))
    assert isinstance(result, Transition | Rejection)
    if isinstance(result, Transition):  # only the awaited seat, only a well-formed action
        node = GAME.next(state)
        assert isinstance(node, Turn) and seat in node.seats and isinstance(action, dict)
