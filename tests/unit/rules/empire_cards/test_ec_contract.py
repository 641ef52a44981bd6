"""The game contract: rejections, chance validation, encode/decode, view secrecy, labels."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from shared.ai.empire_cards.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Game,
    JointAction,
    Rejection,
    Transition,
    Turn,
)
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.cards import sorted_cards
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.unit


def sample_states(seats: int, seed: int, every: int = 7, **opts: Any) -> list[State]:
    states: list[State] = []
    bot = HeuristicBot()
    bots = {s: bot_actor(bot) for s in range(0, seats, 2)}
    choosers = {s: bot_chooser(bot) for s in range(0, seats, 2)}

    def keep(state: State, move: object) -> None:
        if len(states) * every <= step[0]:
            states.append(state)
        step[0] += 1

    step = [0]
    options = {"max_hands": 2, "max_turns_per_hand": 60, **opts}
    out = play(GAME, seats, options, seed=seed, actors=bots, choosers=choosers, on_step=keep)
    assert out.finished
    return [*states, out.state]


def test_metadata() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.rules_version, GAME.min_seats, GAME.max_seats) == (
        "empire-cards",
        "2",  # 2: the server rulings (docs/rulings-server.md)
        3,
        6,
    )


def test_rejection_codes(make) -> None:
    state = make(hands={0: ["KD0"], 1: ["QD0"]})
    cases = [
        (Act(seat=0, action=5), "action/malformed"),
        (Act(seat=0, action={"type": "fly"}), "action/malformed"),
        (Act(seat=0, action={"type": "draw", "x": 1}), "action/malformed"),
        (Act(seat=0, action={"type": "steal"}), "action/malformed"),
        (Act(seat=1, action={"type": "draw"}), "action/not_your_turn"),
        (Act(seat=0, action={"type": "tribute", "card": "KD0"}), "action/illegal"),
        (Act(seat=0, action={"type": "discard", "card": "KD0"}), "action/illegal"),
        (ChanceOutcome(label="hand:1:deal", values=(0,)), "action/wrong_phase"),
        (JointAction(round_id="x", choices={}), "action/wrong_phase"),
    ]
    for move, code in cases:
        result = GAME.apply(state, move)
        assert isinstance(result, Rejection) and result.code == code, move


def test_chance_validation() -> None:
    state = GAME.setup({}, 3)
    node = GAME.next(state)
    assert isinstance(node, Chance)
    for values, code in (((3,), "action/malformed"), ((0, 1), "action/malformed")):
        result = GAME.apply(state, ChanceOutcome(label=node.label, values=values))
        assert isinstance(result, Rejection) and result.code == code
    wrong = GAME.apply(state, ChanceOutcome(label="hand:9:dealer", values=(0,)))
    assert isinstance(wrong, Rejection) and wrong.code == "action/unknown_round"
    act = GAME.apply(state, Act(seat=0, action={"type": "draw"}))
    assert isinstance(act, Rejection) and act.code == "action/wrong_phase"
    state = GAME.apply(state, ChanceOutcome(label=node.label, values=(1,))).state
    deal = GAME.next(state)
    for values in ((0,) * 108, tuple(range(107)), tuple(range(1, 109))):
        result = GAME.apply(state, ChanceOutcome(label=deal.label, values=values))
        assert isinstance(result, Rejection) and result.code == "action/malformed"


@pytest.mark.parametrize(("seats", "seed"), [(3, 1), (6, 2)])
def test_encode_decode_round_trip(seats: int, seed: int) -> None:
    for state in sample_states(seats, seed, expert_spells=True):
        data = json.loads(json.dumps(GAME.encode(state)))
        assert GAME.decode(data) == state


def _swap_hidden(state: State, seat: int, rng: random.Random) -> State | None:
    """Swap one card of ``seat``'s hand with a deck card (a change only ``seat`` may see)."""
    hand = state.players[seat].hand
    if not hand or not state.deck:
        return None
    old, new = rng.choice(hand), rng.choice(state.deck)
    players = list(state.players)
    new_hand = sorted_cards(new if c == old else c for c in hand)
    players[seat] = replace(players[seat], hand=new_hand)
    deck = tuple(old if c == new else c for c in state.deck)
    update: dict[str, Any] = {"players": tuple(players), "deck": deck}
    if state.trade is not None and state.trade.card == old:
        update["trade"] = replace(state.trade, card=new)
    return replace(state, **update)


@pytest.mark.parametrize(("seats", "seed"), [(4, 3), (5, 4)])
def test_views_hide_other_seats_secrets(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for state in sample_states(seats, seed, expert_spells=True):
        shuffled = replace(state, deck=tuple(reversed(state.deck)))
        for viewer in (None, *range(seats)):
            assert GAME.view(shuffled, viewer) == GAME.view(state, viewer)  # deck order
        for seat in range(seats):
            other = _swap_hidden(state, seat, rng)
            if other is None:
                continue
            checked += 1
            for viewer in (None, *range(seats)):
                same = GAME.view(other, viewer) == GAME.view(state, viewer)
                # CG-5: the traded card itself is known to both traders, nobody else
                traded = state.trade is not None and other.trade != state.trade
                pair = () if state.trade is None else (state.trade.initiator, state.trade.target)
                if viewer != seat and not (traded and viewer in pair):
                    assert same, (viewer, seat, state.phase)
            assert GAME.view(other, seat) != GAME.view(state, seat)
    assert checked > 20


def test_views_have_the_contract_keys(make) -> None:
    state = make(hands={0: ["KD0"]})
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        assert {"game", "phase", "seat"} <= set(view)
        assert ("hand" in view) is (seat is not None)
        assert all("hand" not in p for p in view["players"])
        json.dumps(view)


@pytest.mark.parametrize(("seats", "seed"), [(3, 5), (5, 6)])
def test_every_legal_action_is_accepted(seats: int, seed: int) -> None:
    for state in sample_states(seats, seed, every=11, expert_spells=True)[::2]:
        node = GAME.next(state)
        if not isinstance(node, Turn):
            continue
        assert node.seats
        for seat in range(seats):
            legal = GAME.legal_actions(state, seat)
            assert bool(legal) is (seat in node.seats)
            for action in legal:
                assert isinstance(GAME.apply(state, Act(seat=seat, action=action)), Transition)
        for seat in node.seats:
            default = GAME.default_action(state, seat)
            assert default in GAME.legal_actions(state, seat)


def test_chance_labels_are_unique() -> None:
    labels: list[str] = []

    def collect(state: State, move: object) -> None:
        if isinstance(move, ChanceOutcome):
            labels.append(move.label)
        if isinstance(move, JointAction):
            labels.append(move.round_id)

    out = play(
        GAME,
        4,
        {"max_hands": 3, "max_turns_per_hand": 150, "expert_spells": True},
        seed=8,
        on_step=collect,
    )
    assert out.finished and len(labels) == len(set(labels)) > 6
