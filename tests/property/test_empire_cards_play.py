"""Hypothesis random play of Empire The Card Game for 3-6 seats.

Invariants at every step: every card is in exactly one place (deck, a hand, an army, an
empire/special set or a discard pile); the node is consistent (awaited seats have legal
actions, the timeout default is legal); the state a move was applied to is as it was (a clone
shares its players until ``State.writable`` copies one: a rule that changed a player without it
changed the earlier state too); hands and the match end within their caps.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.ai.empire_cards.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import Act, Event, Rejection, Turn
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.match import all_cards
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.property

TURN_CAP = 40
HAND_CAP = 2


def cards_in_play(state: State) -> list[str]:
    cards = list(state.deck)
    for p in state.players:
        cards += [*p.hand, *p.discard]
        for group in (*p.army, *p.empire_sets, *(s.cards for s in p.specials)):
            cards += group
    return cards


def check_step(state: State, full: list[str]) -> None:
    assert sorted(cards_in_play(state)) == full  # every card in exactly one place
    node = GAME.next(state)
    if isinstance(node, Turn):
        assert node.seats
        for seat in node.seats:
            assert GAME.legal_actions(state, seat)
            default = GAME.default_action(state, seat)
            assert not isinstance(GAME.apply(state, Act(seat=seat, action=default)), Rejection)
    for seat in range(state.n_seats):
        view = GAME.view(state, seat)
        assert len(view["hand"]) == len(state.players[seat].hand)
        assert [p["hand_size"] for p in view["players"]] == [len(p.hand) for p in state.players]


def turns_per_hand(events: list[Event]) -> list[int]:
    counts: list[int] = []
    for event in events:
        if event.type == "deal":
            counts.append(0)
        elif event.type == "turn" and event.data["turn"] > 0:
            counts[-1] += 1
    return counts


def run(
    seats: int,
    seed: int,
    options: dict[str, Any],
    bots: tuple[int, ...] = (),
    turn_cap: int = TURN_CAP,
) -> Any:
    full = sorted(all_cards(seats))
    bot = HeuristicBot()
    last: list[tuple[State, Any, Any]] = []  # the last move, the state it was applied to and
    # that state's encoding before the move

    def unchanged() -> None:
        if last:
            state, move, encoded = last[0]
            assert GAME.encode(state) == encoded, f"{move} changed the state it was applied to"

    def on_step(state: State, move: Any) -> None:  # ``state``: the one ``move`` is applied to
        unchanged()
        last[:] = [(state, move, GAME.encode(state))]
        check_step(state, full)  # its default act too, on a clone

    out = play(
        GAME,
        seats,
        {"max_hands": HAND_CAP, "max_turns_per_hand": turn_cap, **options},
        seed=seed,
        actors={s: bot_actor(bot) for s in bots},
        choosers={s: bot_chooser(bot) for s in bots},
        on_step=on_step,
        max_steps=20_000,
    )
    assert out.finished, "the match must end within the caps"
    unchanged()
    state = out.state
    check_step(state, full)
    assert GAME.decode(json.loads(json.dumps(GAME.encode(state)))) == state
    assert state.hands_played <= HAND_CAP
    assert state.hands_played == HAND_CAP or state.overlord is not None
    assert all(n <= turn_cap for n in turns_per_hand(out.events))
    outcome = GAME.score(state)
    assert len(outcome.results) == seats and min(r.place for r in outcome.results) == 1
    return out


@settings(max_examples=30, deadline=None)
@given(
    seats=st.integers(min_value=3, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    expert=st.booleans(),
    rank_suit=st.booleans(),
    first_round_sets=st.booleans(),
)
def test_random_play_keeps_every_card_in_one_place(
    seats: int, seed: int, expert: bool, rank_suit: bool, first_round_sets: bool
) -> None:
    options = {
        "expert_spells": expert,
        "battle_demand": "rank_suit" if rank_suit else "rank",
        "first_round_sets": first_round_sets,
    }
    run(seats, seed, options)


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(min_value=3, max_value=6), seed=st.integers(0, 2**32 - 1))
def test_mixed_bot_and_random_play_wins_hands(seats: int, seed: int) -> None:
    out = run(seats, seed, {"expert_spells": True}, bots=tuple(range(0, seats, 2)), turn_cap=150)
    kinds = Counter(e.type for e in out.events)
    assert kinds["hand_won"] + kinds["hand_undecided"] == out.state.hands_played


def test_a_player_changed_without_own_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(State, "writable", lambda self, seat: self.players[seat])  # no copy
    with pytest.raises(AssertionError, match="changed the state it was applied to"):
        run(4, 5, {})


ACTION_TYPES = [
    "draw", "steal", "trade", "trade_reply", "battle", "battle_set", "battle_give", "army",
    "empire", "barbarian", "serf", "discard", "disband", "pass", "tribute", "gift", "gift_skip",
    "sabotage_skip", "sabotage_take", "sabotage_none", "spell", "spell_take", "spell_pick",
    "spell_trade", "spell_give", "plunder", "destroy", "nonsense",
]  # fmt: skip
CODES = st.sampled_from(["KD0", "3S0", "W0", "2H1", "10C0", "", "A", "W", "ZZ9", "QH5"])
VALUES = st.one_of(
    st.none(), st.integers(-2, 7), CODES, st.lists(CODES, max_size=13), st.booleans(),
    st.sampled_from(["thief", "merchant", "warlord", "K", "W", "S"]),
)  # fmt: skip
FIELDS = ["target", "card", "cards", "set", "rank", "suit", "regime", "n"]


def _fuzz_states() -> list[State]:
    states: list[State] = []
    bot = HeuristicBot()
    play(
        GAME, 4, {"max_hands": 1, "max_turns_per_hand": 80, "expert_spells": True}, seed=11,
        actors={0: bot_actor(bot), 2: bot_actor(bot)},
        on_step=lambda state, move: states.append(state),
    )  # fmt: skip
    return states[::9]


FUZZ_STATES = _fuzz_states()


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, len(FUZZ_STATES) - 1),
    seat=st.integers(-1, 4),
    kind=st.sampled_from(ACTION_TYPES),
    fields=st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=4),
)
def test_apply_never_raises_on_junk_actions(
    index: int, seat: int, kind: str, fields: dict[str, Any]
) -> None:
    state = FUZZ_STATES[index]
    encoded = GAME.encode(state)
    result = GAME.apply(state, Act(seat=seat, action={"type": kind, **fields}))
    assert GAME.encode(state) == encoded  # played on a clone, refused or not
    if not isinstance(result, Rejection):
        assert sorted(cards_in_play(result.state)) == sorted(all_cards(4))
