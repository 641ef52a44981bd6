"""Setup and the turn: CG-1 .. CG-4, CG-12 .. CG-16, CG-18."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules.api import Chance, ChanceOutcome, RuleError, Transition, Turn
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.data import deck_cards

pytestmark = pytest.mark.unit

THIEF_SETS = [["3S1", "4S1", "5S1", "6S1"], ["3H1", "4H1", "5H1", "6H1"]]
FOUR_SETS = [*THIEF_SETS, ["3D1", "4D1", "5D1", "6D1"], ["3C1", "4C1", "5C1", "6C1"]]


def chance(state, values):
    node = GAME.next(state)
    assert isinstance(node, Chance)
    result = GAME.apply(state, ChanceOutcome(label=node.label, values=tuple(values)))
    assert isinstance(result, Transition)
    return result.state, result.events


@pytest.mark.parametrize(
    ("seats", "size", "wizards"), [(3, 108, 4), (4, 108, 4), (5, 162, 6), (6, 162, 6)]
)
def test_deck_composition_and_setup(seats: int, size: int, wizards: int) -> None:
    """RULEBOOK/RULINGS §3.1: 2 packs for 3-4 players (108), 3 packs for 5-6 (162)."""
    state = GAME.setup({}, seats)
    assert len(state.deck) == len(set(state.deck)) == size
    assert sum(1 for c in state.deck if c.startswith("W")) == wizards
    assert sum(1 for c in state.deck if c.startswith("AS")) == size // 54


def test_bad_seat_counts_and_options() -> None:
    for seats in (2, 7):
        with pytest.raises(RuleError):
            GAME.setup({}, seats)
    with pytest.raises(RuleError):
        GAME.setup({"battle_demand": "colour"}, 3)
    assert GAME.options_schema()["properties"]["expert_spells"]["default"] is False


def test_cg2_cg3_dealer_starts_and_deal_of_ten() -> None:
    """CG-3: a random seat deals and takes the first turn; CG-2: no perfect-deal bonus."""
    state = GAME.setup({}, 4)
    node = GAME.next(state)
    assert node == Chance(label="hand:1:dealer", draw="below", n=4)
    state, _ = chance(state, [2])
    node = GAME.next(state)
    assert node == Chance(label="hand:1:deal", draw="shuffle", n=108, secret=True)
    state, events = chance(state, list(range(108)))
    assert [len(p.hand) for p in state.players] == [10, 10, 10, 10]
    assert len(state.deck) == 108 - 40
    assert GAME.next(state) == Turn(seats=(2,))
    dealt = [e for e in events if e.type == "dealt"]
    assert sorted(e.visible_to for e in dealt) == [(0,), (1,), (2,), (3,)]
    assert set(dealt[0].data["cards"]) == set(deck_cards(2)[:10])  # the dealer is dealt first


def test_cg1_first_round_restrictions(make, play_act, reject_code) -> None:
    """CG-1: no steal/trade/battle in the first orbit; a discarded 2 has no effect; armies
    and (by default) empire sets are allowed."""
    hand = ["3S0", "4S0", "5S0", "6S0", "2H0", "KS0", "KH0"]
    state = make(
        hands={0: hand, 1: ["9S0"]}, armies={0: [["AS0", "AH0"]]}, discards={1: ["8S0"]}, turn_no=0
    )
    types = {a["type"] for a in GAME.legal_actions(state, 0)}
    assert not types & {"steal", "trade", "battle"}
    assert {"draw", "army", "empire"} <= types
    assert reject_code(state, 0, {"type": "steal", "target": 1}) == "action/illegal"
    assert reject_code(state, 0, {"type": "trade", "target": 1, "card": "KS0"}) == "action/illegal"
    st, _ = play_act(state, 0, {"type": "draw"})
    st, _ = play_act(st, 0, {"type": "discard", "card": "2H0"})
    assert st.phase == "play" and st.active == 1  # no sabotage in the first round
    no_sets = make(hands={0: hand}, turn_no=0, options={"first_round_sets": False})
    empire = {"type": "empire", "regime": "thief", "cards": hand[:4]}
    assert reject_code(no_sets, 0, empire) == "action/illegal"
    later = make(hands={0: hand, 1: ["9S0"]}, discards={1: ["8S0"]}, turn_no=3)
    assert {"steal", "trade"} <= {a["type"] for a in GAME.legal_actions(later, 0)}


def test_cg4_draw_once_before_the_discard(make, play_act, reject_code) -> None:
    state = make(hands={0: ["3S0", "KD0"]})
    assert reject_code(state, 0, {"type": "discard", "card": "3S0"}) == "action/illegal"
    st, events = play_act(state, 0, {"type": "draw"})
    drawn = state.deck[0]
    assert drawn in st.players[0].hand and st.deck == state.deck[1:]
    assert next(e for e in events if e.type == "drew").visible_to == (0,)
    assert next(e for e in events if e.type == "draw").data == {
        "seat": 0,
        "count": 1,
        "reason": "turn",
    }
    assert reject_code(st, 0, {"type": "draw"}) == "action/illegal"
    done, _ = play_act(st, 0, {"type": "discard", "card": "KD0"})
    assert done.active == 1 and done.players[0].discard == ("KD0",) and not done.drawn


def test_cg4_one_interaction_and_the_regime_extra(make, play_act, reject_code) -> None:
    """CG-4/CG-13: one steal/trade/battle; after two empire sets one more of the regime's kind."""
    piles = {1: ["8S0", "9S0"], 2: ["10S0", "JS0"]}
    plain = make(hands={0: ["KD0"], 1: ["QD0"]}, discards=piles)
    st, _ = play_act(plain, 0, {"type": "steal", "target": 1})
    assert reject_code(st, 0, {"type": "steal", "target": 2}) == "action/illegal"
    thief = make(
        hands={0: ["KD0"], 1: ["QD0"]}, discards=piles, empire={0: THIEF_SETS}, regimes={0: "thief"}
    )
    st, _ = play_act(thief, 0, {"type": "steal", "target": 1})
    st, _ = play_act(st, 0, {"type": "steal", "target": 2})
    assert {"9S0", "JS0"} <= set(st.players[0].hand)
    assert reject_code(st, 0, {"type": "trade", "target": 1, "card": "KD0"}) == "action/illegal"
    # the extra slot takes only the regime's kind: trade + trade is not possible for a thief
    st, _ = play_act(thief, 0, {"type": "trade", "target": 1, "card": "KD0"})
    st, _ = play_act(st, 1, {"type": "trade_reply", "card": "QD0"})
    assert reject_code(st, 0, {"type": "trade", "target": 1, "card": "QD0"}) == "action/illegal"
    st, _ = play_act(st, 0, {"type": "steal", "target": 2})  # ... but trade then steal is


def test_cg15_steal_rules(make, play_act, reject_code) -> None:
    """CG-15: the top card of any pile, even your own; never a 2 or a Wizard."""
    state = make(
        hands={0: ["KD0"]},
        discards={0: ["5H0"], 1: ["8S0", "2S0"], 2: ["9S0", "W0"]},
    )
    legal = [a for a in GAME.legal_actions(state, 0) if a["type"] == "steal"]
    assert legal == [{"type": "steal", "target": 0}]
    assert reject_code(state, 0, {"type": "steal", "target": 1}) == "action/illegal"  # a 2 on top
    assert reject_code(state, 0, {"type": "steal", "target": 2}) == "action/illegal"
    st, events = play_act(state, 0, {"type": "steal", "target": 0})
    assert st.players[0].hand == ("5H0", "KD0") and st.players[0].discard == ()
    assert (
        events[0].data == {"seat": 0, "target": 0, "card": "5H0"} and events[0].visible_to is None
    )
    own = make(hands={0: ["KD0"]}, discards={0: ["5H0"]}, options={"steal_own_pile": False})
    assert reject_code(own, 0, {"type": "steal", "target": 0}) == "action/illegal"


def test_cg16_only_top_discard_visible(make) -> None:
    state = make(hands={0: ["KD0"]}, discards={1: ["8S0", "9H0", "4C0"]})
    for seat in (None, 0, 1, 2):
        p1 = GAME.view(state, seat)["players"][1]
        assert p1["discard_top"] == "4C0" and p1["discard_size"] == 3
        assert "8S0" not in str(GAME.view(state, seat))


def test_cg14_sabotage_skip(make, play_act, reject_code) -> None:
    state = make(hands={0: ["2S0", "KD0"]}, drawn=True)
    st, _ = play_act(state, 0, {"type": "discard", "card": "2S0"})
    assert st.phase == "sabotage" and GAME.next(st) == Turn(seats=(0,))
    assert reject_code(st, 0, {"type": "sabotage_skip", "target": 0}) == "action/illegal"
    st, events = play_act(st, 0, {"type": "sabotage_skip", "target": 1})
    assert st.active == 2 and not st.players[1].skip_pending  # seat 1 is skipped at once
    assert [e.data["seat"] for e in events if e.type == "skipped"] == [1]
    sab, _ = play_act(state, 0, {"type": "discard", "card": "2S0"})
    later, _ = play_act(sab, 0, {"type": "sabotage_skip", "target": 2})
    assert later.active == 1 and later.players[2].skip_pending  # pending until seat 2's turn
    pending = make(hands={0: ["2S0", "KD0"]}, drawn=True, active=0)
    pending = replace(
        pending,
        players=(
            pending.players[0],
            replace(pending.players[1], skip_pending=True),
            pending.players[2],
        ),
    )
    st, _ = play_act(pending, 0, {"type": "discard", "card": "2S0"})
    assert reject_code(st, 0, {"type": "sabotage_skip", "target": 1}) == "action/illegal"
    assert {"type": "sabotage_skip", "target": 1} not in GAME.legal_actions(st, 0)
    st, events = play_act(st, 0, {"type": "sabotage_skip", "target": 2})
    assert st.active == 0 and [e.data["seat"] for e in events if e.type == "skipped"] == [1, 2]


def test_cg14_sabotage_take_protection_and_blocking(make, play_act, reject_code) -> None:
    """CG-14: take one battle card; a set left with one card returns it to its owner's hand;
    four 2s protect the whole army, the Holy Grail itself; a 2 on a pile blocks stealing."""
    armies = {
        1: [["KS0", "KH0"], ["7S0", "7H0", "7D0"]],
        2: [["2S1", "2H1", "2D1", "2C1"], ["AS0", "AH0"]],
        0: [["W0", "W1", "W2", "W3"], ["9S0", "9H0"]],
    }
    state = make(hands={0: ["2S0", "KD0"]}, armies=armies, drawn=True)
    st, _ = play_act(state, 0, {"type": "discard", "card": "2S0"})
    takes = [a for a in GAME.legal_actions(st, 0) if a["type"] == "sabotage_take"]
    assert {(a["target"], a["set"]) for a in takes} == {(1, 0), (1, 1), (0, 1)}
    bad = {"type": "sabotage_take", "target": 2, "set": 1, "card": "AS0"}
    assert reject_code(st, 0, bad) == "action/illegal"
    grail = {"type": "sabotage_take", "target": 0, "set": 0, "card": "W0"}
    assert reject_code(st, 0, grail) == "action/illegal"
    done, _ = play_act(st, 0, {"type": "sabotage_take", "target": 1, "set": 0, "card": "KH0"})
    assert "KH0" in done.players[0].hand
    assert done.players[1].army == (("7S0", "7H0", "7D0"),) and "KS0" in done.players[1].hand
    assert {"type": "steal", "target": 0} not in GAME.legal_actions(done, 0)  # 2 on top
    # playing one of the four 2s from the army triggers the sabotage and drops protection
    mover = make(hands={2: ["QD0"]}, armies=armies, active=2, drawn=True)
    st, _ = play_act(mover, 2, {"type": "disband", "set": 0, "card": "2S1"})
    assert st.phase == "sabotage" and st.players[2].army[0] == ("2H1", "2D1", "2C1")
    assert st.players[2].discard == ("2S1",)


def test_disband_returns_the_last_card(make, play_act) -> None:
    state = make(hands={0: ["QD0"]}, armies={0: [["KS0", "KH0"]]}, drawn=True)
    st, events = play_act(state, 0, {"type": "disband", "set": 0, "card": "KH0"})
    assert st.players[0].army == () and st.players[0].hand == ("QD0", "KS0")
    assert st.players[0].discard == ("KH0",) and events[0].data["source"] == "army"


def test_cg12_win_needs_the_condition_and_the_last_discard(make, play_act) -> None:
    winner = make(hands={0: ["KD0"]}, empire={0: FOUR_SETS}, regimes={0: "thief"}, drawn=True)
    st, events = play_act(winner, 0, {"type": "discard", "card": "KD0"})
    assert any(e.type == "hand_won" and e.data["seat"] == 0 for e in events)
    assert st.players[0].thief == 1 and st.last_winner == 0 and st.phase == "dealer"
    assert st.hand_no == 2 and st.hands_played == 1
    barb = make(
        hands={0: ["KD0"]},
        specials={
            0: [("barbarian", [f"{r}C1" for r in "3456789"] + ["10C1", "JC1", "QC1", "KC1", "AC1"])]
        },
        drawn=True,
    )
    st, events = play_act(barb, 0, {"type": "discard", "card": "KD0"})
    assert any(e.type == "hand_won" for e in events)
    # CG-12 run out: the last card without the condition draws 6 at once
    loser = make(hands={0: ["KD0"]}, empire={0: THIEF_SETS}, regimes={0: "thief"}, drawn=True)
    st, events = play_act(loser, 0, {"type": "discard", "card": "KD0"})
    assert len(st.players[0].hand) == 6 and st.active == 1
    assert any(e.type == "draw" and e.data["reason"] == "run_out" for e in events)


def test_cg12_run_out_mid_turn_and_on_others_turn(make, play_act) -> None:
    state = make(hands={0: ["KS0", "KH0"], 1: ["QS0"]}, armies={0: [["AS0", "AH0"]]})
    st, _ = play_act(state, 0, {"type": "army", "cards": ["KS0", "KH0"]})
    assert len(st.players[0].hand) == 6  # emptied by the army: draw 6 at once
    st, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "Q"})
    assert st.players[1].hand and len(st.players[1].hand) == 6  # the defender ran out


def test_cg18_deck_rebuilt_from_discards(make, play_act) -> None:
    """CG-18: all piles except their top cards, shuffled by the dealer, owed draws paid."""
    state = make(hands={0: ["KD0"]}, discards={2: ["3S0", "4S0"]}, deck=[], rest_to=1)
    pile1 = state.players[1].discard
    st, _ = play_act(state, 0, {"type": "draw"})
    node = GAME.next(st)
    pool = len(pile1) - 1 + 1
    assert node == Chance(label="hand:1:rebuild:0", draw="shuffle", n=pool, secret=True)
    bad = GAME.apply(st, ChanceOutcome(label=node.label, values=(0, 0)))
    assert bad.code == "action/malformed"
    st, events = chance(st, list(range(pool)))
    assert st.players[1].discard == pile1[-1:] and st.players[2].discard == ("4S0",)
    assert set(st.players[0].hand) == {"KD0", pile1[0]} and len(st.deck) == pool - 1
    assert st.rebuilds == 1 and any(e.type == "deck_rebuilt" for e in events)


def test_cg18_nothing_to_rebuild_and_pass(make, play_act) -> None:
    state = make(hands={0: ["KD0"]}, deck=[], rest_to=1)
    bare = replace(
        state,
        players=(
            state.players[0],
            replace(state.players[1], discard=()),
            replace(state.players[2], hand=state.players[1].discard),
        ),
    )
    st, events = play_act(bare, 0, {"type": "draw"})
    assert st.drawn and st.players[0].hand == ("KD0",)
    assert any(e.type == "draw_short" for e in events)
    empty = replace(
        bare,
        players=(
            replace(bare.players[0], hand=()),
            *bare.players[1:2],
            replace(bare.players[2], hand=(*bare.players[2].hand, "KD0")),
        ),
        drawn=True,
    )
    assert GAME.legal_actions(empty, 0) == [{"type": "pass"}]
    st, _ = play_act(empty, 0, {"type": "pass"})
    assert st.active == 1


def test_cg13_tribute_and_gift(make, play_act, reject_code) -> None:
    """CG-13: 3rd set - every opponent with cards gives one of their choice; 4th set - give
    one card to a player of your choice. Only the two players see the card."""
    state = make(
        hands={
            0: ["3D1", "4D1", "5D1", "6D1", "3C1", "4C1", "5C1", "6C1", "KD0", "QD0"],
            1: ["9S0"],
            2: ["JS0", "JH0"],
        },
        empire={0: THIEF_SETS},
        regimes={0: "thief"},
    )
    st, _ = play_act(
        state, 0, {"type": "empire", "regime": "thief", "cards": ["3D1", "4D1", "5D1", "6D1"]}
    )
    assert st.phase == "tribute" and GAME.next(st) == Turn(seats=(1, 2))
    st, events = play_act(st, 2, {"type": "tribute", "card": "JH0"})
    assert [e.visible_to for e in events if e.type == "tribute_card"] == [(0, 2)]
    assert "card" not in next(e for e in events if e.type == "tribute").data
    assert GAME.next(st) == Turn(seats=(1,))
    st, _ = play_act(st, 1, {"type": "tribute", "card": "9S0"})
    assert st.phase == "play" and {"9S0", "JH0"} <= set(st.players[0].hand)
    assert len(st.players[1].hand) == 6  # ran out of cards: CG-12
    st, _ = play_act(
        st, 0, {"type": "empire", "regime": "thief", "cards": ["3C1", "4C1", "5C1", "6C1"]}
    )
    assert st.phase == "gift"
    assert reject_code(st, 0, {"type": "gift", "target": 0, "card": "KD0"}) == "action/illegal"
    st, events = play_act(st, 0, {"type": "gift", "target": 2, "card": "KD0"})
    assert "KD0" in st.players[2].hand and st.phase == "play"
    assert [e.visible_to for e in events if e.type == "gift_card"] == [(0, 2)]


def test_cg13_second_set_extra_action_starts_the_same_turn(make, play_act, reject_code) -> None:
    """CG-13: the regime's extra action begins on the turn the 2nd empire set is laid."""
    state = make(
        hands={0: ["JS0", "QS0", "KS0", "AS0", "3D0"], 1: ["9S0", "9H0"]},
        empire={0: [["JH1", "QH1", "KH1", "AH1"]]},
        regimes={0: "warlord"},
        armies={0: [["5S0", "5H0", "5D0"]]},
    )
    st, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "9"})
    st, _ = play_act(st, 1, {"type": "battle_give", "card": "9H0"})
    assert reject_code(st, 0, {"type": "battle", "target": 1, "rank": "9"}) == "action/illegal"
    warlord_set = ["JS0", "QS0", "KS0", "AS0"]
    st, _ = play_act(st, 0, {"type": "empire", "regime": "warlord", "cards": warlord_set})
    st, _ = play_act(st, 0, {"type": "battle", "target": 1, "rank": "9"})  # the Warlord extra
    assert {"9S0", "9H0"} <= set(st.players[0].hand)
    assert st.interactions == ("battle", "battle")
    assert reject_code(st, 0, {"type": "battle", "target": 1, "rank": "9"}) == "action/illegal"
