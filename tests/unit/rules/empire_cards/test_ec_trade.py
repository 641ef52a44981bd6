"""The hidden trade (CG-5): only the two traders ever see the cards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules.api import Turn
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.cards import sorted_cards
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.unit


def swap_card(state: State, seat: int, old: str, new: str) -> State:
    """Replace ``old`` in ``seat``'s hand (and a pending trade) by ``new`` from the deck."""
    players = list(state.players)
    hand = tuple(new if c == old else c for c in players[seat].hand)
    players[seat] = replace(players[seat], hand=sorted_cards(hand))
    deck = tuple(old if c == new else c for c in state.deck)
    update: dict[str, object] = {"players": tuple(players), "deck": deck}
    if state.trade is not None and state.trade.card == old:
        update["trade"] = replace(state.trade, card=new)
    return replace(state, **update)


def test_cg5_hidden_trade_views_and_events(make, play_act, reject_code) -> None:
    state = make(n_seats=4, hands={0: ["KD0", "3S0"], 1: ["QH0", "5C0"], 2: ["9S0"], 3: ["8S0"]})
    st, events = play_act(state, 0, {"type": "trade", "target": 1, "card": "KD0"})
    assert st.phase == "trade_reply" and GAME.next(st) == Turn(seats=(1,))
    assert reject_code(st, 0, {"type": "draw"}) == "action/not_your_turn"
    public = [e for e in events if e.visible_to is None]
    assert [e.type for e in public] == ["trade"] and "KD0" not in str(public)
    secret = [e for e in events if e.visible_to is not None]
    assert [(e.visible_to, e.data["card"]) for e in secret] == [((0, 1), "KD0")]
    # the other seats' views and the spectator's do not change when the card does
    other = swap_card(st, 1, "KD0", st.deck[0])
    for seat in (2, 3, None):
        assert GAME.view(st, seat) == GAME.view(other, seat)
        assert "KD0" not in str(GAME.view(st, seat))
        assert GAME.view(st, seat)["pending"]["trade"] == {"initiator": 0, "target": 1}
    for seat in (0, 1):
        assert GAME.view(st, seat)["pending"]["trade"]["card"] == "KD0"
        assert GAME.view(st, seat) != GAME.view(other, seat)
    assert GAME.view(st, 2)["players"][1]["hand_size"] == 3
    # CG-5: the target may hand back the very card it received
    back, events = play_act(st, 1, {"type": "trade_reply", "card": "KD0"})
    assert back.players[0].hand == ("3S0", "KD0") and back.phase == "play"
    assert [e.visible_to for e in events if "card" in e.data] == [(0, 1)]
    assert "KD0" not in str([e.data for e in events if e.visible_to is None])
    for seat in (2, 3, None):
        assert "KD0" not in str(GAME.view(back, seat))


def test_cg5_no_trade_with_an_empty_hand(make, reject_code) -> None:
    state = make(hands={0: ["KD0"], 1: [], 2: ["9S0"]})
    assert reject_code(state, 0, {"type": "trade", "target": 1, "card": "KD0"}) == "action/illegal"
    targets = {a["target"] for a in GAME.legal_actions(state, 0) if a["type"] == "trade"}
    assert targets == {2}
    assert reject_code(state, 0, {"type": "trade", "target": 2, "card": "QD0"}) == "action/illegal"
    assert reject_code(state, 0, {"type": "trade", "target": 0, "card": "KD0"}) == "action/illegal"


def test_cg5_cg12_trading_the_last_card_is_no_run_out(make, play_act) -> None:
    """The traded card comes straight back as an exchange: no run-out draw in between."""
    state = make(hands={0: ["KD0"], 1: ["QH0"]})
    st, events = play_act(state, 0, {"type": "trade", "target": 1, "card": "KD0"})
    assert st.players[0].hand == () and not any(e.type == "draw" for e in events)
    st, events = play_act(st, 1, {"type": "trade_reply", "card": "QH0"})
    assert st.players[0].hand == ("QH0",) and st.players[1].hand == ("KD0",)
    assert not any(e.type == "draw" for e in events)
