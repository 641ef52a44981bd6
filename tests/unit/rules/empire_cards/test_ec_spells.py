"""Expert Wizard spells (CG-17), behind options.expert_spells."""

from __future__ import annotations

import pytest

from shared.rules.api import (
    Chance,
    ChanceOutcome,
    Turn,
)
from shared.rules.empire_cards import GAME

pytestmark = pytest.mark.unit

EXPERT = {"expert_spells": True}


def test_cg17_spells_only_with_the_flag_after_round_one(make, reject_code) -> None:
    base = {"hands": {0: ["W0", "5S0", "KD0"]}, "drawn": True}
    assert reject_code(make(**base), 0, {"type": "spell", "card": "5S0"}) == "action/illegal"
    early = make(**base, options=EXPERT, turn_no=1)
    assert reject_code(early, 0, {"type": "spell", "card": "5S0"}) == "action/illegal"
    ready = make(**base, options=EXPERT)
    spells = [a for a in GAME.legal_actions(ready, 0) if a["type"] == "spell"]
    assert spells == [{"type": "spell", "card": "5S0"}, {"type": "spell", "card": "KD0"}]
    assert reject_code(ready, 0, {"type": "spell", "card": "W0"}) == "action/illegal"  # one Wizard


def test_cg17_mass_steal(make, play_act) -> None:
    """A random card (dealer draw) from each hand, then one card of the caster's choice from
    each unprotected army."""
    state = make(
        hands={0: ["W0", "5S0", "KD0"], 1: ["8S0", "9S0"], 2: ["JS0"]},
        armies={1: [["AS0", "AH0", "AD0"]], 2: [["2S1", "2H1", "2D1", "2C1"], ["QS0", "QH0"]]},
        drawn=True,
        options=EXPERT,
    )
    st, events = play_act(state, 0, {"type": "spell", "card": "5S0"})
    assert st.players[0].discard == ("W0", "5S0")  # the Wizard underneath, the card on top
    assert next(e for e in events if e.type == "spell").data["spell"] == "mass_steal"
    node = GAME.next(st)
    assert node == Chance(label="hand:1:turn:3:mass_steal:1", draw="below", n=2, secret=True)
    st = GAME.apply(st, ChanceOutcome(label=node.label, values=(1,))).state
    assert "9S0" in st.players[0].hand and st.players[1].hand == ("8S0",)
    node = GAME.next(st)
    assert node.label == "hand:1:turn:3:mass_steal:2" and node.n == 1
    result = GAME.apply(st, ChanceOutcome(label=node.label, values=(0,)))
    st = result.state
    assert [e.visible_to for e in result.events if "card" in e.data] == [(0, 2)]
    assert len(st.players[2].hand) == 6  # seat 2 ran out of cards (CG-12)
    assert GAME.next(st) == Turn(seats=(0,))
    assert {a["target"] for a in GAME.legal_actions(st, 0)} == {1}  # seat 2: four 2s protect
    st, _ = play_act(st, 0, {"type": "spell_take", "target": 1, "set": 0, "card": "AH0"})
    assert "AH0" in st.players[0].hand and st.players[1].army == (("AS0", "AD0"),)
    assert st.phase == "play" and st.active == 1


def test_cg17_berserker_and_mass_sabotage(make, play_act, reject_code) -> None:
    armies = {1: [["AS0", "AH0"], ["7S0", "7H0", "7D0"]], 2: [["W0", "W1", "W2", "W3"]]}
    state = make(hands={0: ["W4", "KS0", "2D0", "QD0"]}, armies=armies, drawn=True, options=EXPERT)
    st, _ = play_act(state, 0, {"type": "spell", "card": "KS0"})
    assert GAME.legal_actions(st, 0) == [
        {"type": "spell_pick", "target": 1, "set": 0},
        {"type": "spell_pick", "target": 1, "set": 1},
    ]  # the Holy Grail cannot be touched
    assert reject_code(st, 0, {"type": "spell_pick", "target": 2, "set": 0}) == "action/illegal"
    done, _ = play_act(st, 0, {"type": "spell_pick", "target": 1, "set": 1})
    assert done.players[1].army == (("AS0", "AH0"),)
    assert done.players[1].discard == ("7S0", "7H0", "7D0") and done.active == 1
    st, _ = play_act(state, 0, {"type": "spell", "card": "2D0"})
    done, events = play_act(st, 0, {"type": "spell_pick", "target": 1, "set": 0})
    assert done.players[0].army == (("AS0", "AH0"),) and events[0].type == "mass_sabotage"


def test_cg17_mass_trade_is_a_hidden_exchange(make, play_act, reject_code) -> None:
    """For each opponent from the left the caster names N; the caster gives N cards, then the
    opponent gives N back (it may return cards just received, as in CG-5). Only the two
    see the cards; nobody runs out of cards in the middle of the exchange (CG-12)."""
    state = make(
        hands={0: ["W0", "8S0", "KD0", "QD0"], 1: ["9S0", "9H0", "4D0"], 2: []},
        drawn=True,
        options=EXPERT,
    )
    st, _ = play_act(state, 0, {"type": "spell", "card": "8S0"})
    assert GAME.legal_actions(st, 0) == [
        {"type": "spell_trade", "target": 1, "n": n} for n in range(3)
    ]
    st, events = play_act(st, 0, {"type": "spell_trade", "target": 1, "n": 2})
    assert events[0].data == {"seat": 0, "target": 1, "n": 2} and events[0].visible_to is None
    assert GAME.next(st) == Turn(seats=(0,))
    assert GAME.legal_actions(st, 0) == [
        {"type": "spell_give", "card": "QD0"},
        {"type": "spell_give", "card": "KD0"},
    ]
    st, events = play_act(st, 0, {"type": "spell_give", "card": "KD0"})
    assert [e.visible_to for e in events if "card" in e.data] == [(0, 1)]
    st, _ = play_act(st, 0, {"type": "spell_give", "card": "QD0"})
    assert st.players[0].hand == () and st.spell.stage == "return"  # no run-out draw yet
    assert GAME.next(st) == Turn(seats=(1,))
    assert "KD0" not in str(GAME.view(st, 2)) and "KD0" in str(GAME.view(st, 1))
    assert reject_code(st, 1, {"type": "spell_give", "card": "8S0"}) == "action/illegal"
    assert reject_code(st, 0, {"type": "spell_give", "card": "9S0"}) == "action/not_your_turn"
    st, _ = play_act(st, 1, {"type": "spell_give", "card": "KD0"})
    done, events = play_act(st, 1, {"type": "spell_give", "card": "4D0"})
    assert done.players[0].hand == ("4D0", "KD0")
    assert done.players[1].hand == ("9S0", "9H0", "QD0")
    assert not any(e.type == "draw" for e in events)
    assert done.active == 1 and done.phase == "play"  # seat 2 has no cards: the turn ends


def test_cg17_rise_of_the_dead(make, play_act) -> None:
    state = make(
        hands={0: ["W0", "W1", "KD0"]},
        discards={0: ["5S0", "2S0"], 1: ["8S0", "W2", "9H0"], 2: ["2D0"]},
        drawn=True,
        options=EXPERT,
    )
    st, events = play_act(state, 0, {"type": "spell", "card": "W1"})
    assert st.players[0].hand == ("5S0", "8S0", "9H0", "KD0")
    assert [p.discard for p in st.players] == [("2S0", "W0", "W1"), ("W2",), ("2D0",)]
    assert next(e for e in events if e.type == "risen_cards").visible_to == (0,)


def test_cg17_cg12_a_winning_spell_ends_the_hand_first(make, play_act) -> None:
    sets = [[f"{r}{s}1" for r in ("3", "4", "5", "6")] for s in "SHDC"]
    state = make(
        hands={0: ["W0", "5S0"], 1: ["9S0"]},
        empire={0: sets},
        regimes={0: "thief"},
        drawn=True,
        options=EXPERT,
    )
    st, events = play_act(state, 0, {"type": "spell", "card": "5S0"})
    assert any(e.type == "hand_won" for e in events) and st.players[0].thief == 1
    assert not any(e.type.startswith("mass_steal") for e in events)
