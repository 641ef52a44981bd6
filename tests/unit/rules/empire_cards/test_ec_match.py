"""Match play (CG-19): achievements, Barbarian plunder, Horde, Serf destruction, Emperor
Overlord, and the final ranking."""

from __future__ import annotations

import pytest

from shared.rules.api import Terminal, Turn
from shared.rules.empire_cards import GAME

pytestmark = pytest.mark.unit

WARLORD_SETS = [[f"{r}{s}1" for r in ("J", "Q", "K", "A")] for s in "SHDC"]
RUN = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
BARBARIAN = [f"{r}{'SHDC'[i % 4]}1" for i, r in enumerate(RUN)]
HORDE = [f"{r}D1" for r in RUN]
SERF = [f"{r}H1" for r in RUN]


def win(make, play_act, **kw):
    state = make(hands={0: ["2C0"]}, drawn=True, **kw)
    return play_act(state, 0, {"type": "discard", "card": "2C0"})


def test_cg19_regime_achievement_duplicates_allowed(make, play_act) -> None:
    st, events = win(
        make,
        play_act,
        empire={0: WARLORD_SETS},
        regimes={0: "warlord"},
        achievements={0: {"warlord": 2}},
    )
    assert st.players[0].warlord == 3 and st.players[0].hands_won == 1
    assert [e.data for e in events if e.type == "achievement"] == [
        {"seat": 0, "regime": "warlord", "how": "empire"}
    ]
    assert st.phase == "dealer" and st.players[0].hand == () and st.players[0].empire_sets == ()
    assert len(st.deck) == 108  # every card back for the next deal


def test_cg19_barbarian_plunders_one_card(make, play_act, reject_code) -> None:
    st, _ = win(
        make,
        play_act,
        specials={0: [("barbarian", BARBARIAN)]},
        achievements={1: {"thief": 1}, 2: {"merchant": 1, "warlord": 1}},
    )
    assert st.phase == "reward" and GAME.next(st) == Turn(seats=(0,))
    legal = GAME.legal_actions(st, 0)
    assert legal == [
        {"type": "plunder", "target": 1, "regime": "thief"},
        {"type": "plunder", "target": 2, "regime": "merchant"},
        {"type": "plunder", "target": 2, "regime": "warlord"},
    ]
    assert (
        reject_code(st, 0, {"type": "plunder", "target": 1, "regime": "warlord"})
        == "action/illegal"
    )
    assert reject_code(st, 1, legal[0]) == "action/not_your_turn"
    done, _ = play_act(st, 0, legal[2])
    assert (done.players[0].warlord, done.players[2].warlord) == (1, 0)
    assert done.phase == "dealer"


def test_cg19_barbarian_claims_any_when_nobody_holds_one(make, play_act) -> None:
    st, _ = win(make, play_act, specials={0: [("barbarian", BARBARIAN)]})
    assert GAME.legal_actions(st, 0) == [
        {"type": "plunder", "target": None, "regime": r} for r in ("thief", "merchant", "warlord")
    ]
    done, _ = play_act(st, 0, {"type": "plunder", "target": None, "regime": "merchant"})
    assert done.players[0].merchant == 1


def test_cg19_horde_plunders_every_holder(make, play_act) -> None:
    st, _ = win(
        make,
        play_act,
        n_seats=4,
        specials={0: [("horde", HORDE)]},
        achievements={1: {"thief": 1}, 3: {"merchant": 2}},
    )
    assert {a["target"] for a in GAME.legal_actions(st, 0)} == {1}
    st, _ = play_act(st, 0, {"type": "plunder", "target": 1, "regime": "thief"})
    assert GAME.legal_actions(st, 0) == [{"type": "plunder", "target": 3, "regime": "merchant"}]
    st, _ = play_act(st, 0, {"type": "plunder", "target": 3, "regime": "merchant"})
    p = st.players
    assert (p[0].thief, p[0].merchant, p[1].thief, p[3].merchant) == (1, 1, 0, 1)
    assert st.phase == "dealer"


def test_cg19_serf_rebellion_destroys_one_of_each(make, play_act) -> None:
    st, _ = win(
        make,
        play_act,
        specials={0: [("serf", SERF)]},
        achievements={0: {"thief": 1}, 1: {"thief": 1, "warlord": 1}, 2: {"merchant": 1}},
    )
    assert [a["type"] for a in GAME.legal_actions(st, 0)] == ["destroy", "destroy"]
    st, events = play_act(st, 0, {"type": "destroy", "target": 1, "regime": "warlord"})
    st, _ = play_act(st, 0, {"type": "destroy", "target": 2, "regime": "merchant"})
    p = st.players
    assert (p[0].thief, p[1].thief, p[1].warlord, p[2].merchant) == (1, 1, 0, 0)
    assert any(e.type == "destroy" and e.visible_to is None for e in events)


def test_cg19_emperor_overlord_ends_the_match(make, play_act) -> None:
    st, events = win(
        make,
        play_act,
        empire={0: WARLORD_SETS},
        regimes={0: "warlord"},
        achievements={0: {"thief": 1, "merchant": 1}, 1: {"thief": 3}},
    )
    assert st.overlord == 0 and st.phase == "over" and GAME.next(st) == Terminal()
    assert any(e.type == "emperor_overlord" for e in events)
    outcome = GAME.score(st)
    assert outcome.winners == (0,)
    assert [r.place for r in outcome.results] == [1, 2, 3]
    assert outcome.results[0].figures["overlord"] is True
    assert outcome.results[1].figures == {
        "thief": 3,
        "merchant": 0,
        "warlord": 0,
        "regimes": 1,
        "achievements": 3,
        "hands_won": 0,
        "overlord": False,
    }


def test_match_cap_and_shared_places(make, play_act) -> None:
    st, _ = win(
        make,
        play_act,
        empire={0: WARLORD_SETS},
        regimes={0: "warlord"},
        achievements={1: {"thief": 1}},
        options={"max_hands": 1},
    )
    assert st.phase == "over" and st.overlord is None
    places = [r.place for r in GAME.score(st).results]
    assert places == [1, 2, 3]  # both hold one regime; 0 also won a hand
    tied = make(achievements={0: {"thief": 1}, 1: {"merchant": 1}})
    assert [r.place for r in GAME.score(tied).results] == [1, 1, 3]
    assert "Emperor Overlord" in GAME.score(tied).tiebreak


def test_hand_cap_ends_an_undecided_hand(make, play_act) -> None:
    state = make(
        hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=9, options={"max_turns_per_hand": 10}
    )
    st, events = play_act(state, 0, {"type": "discard", "card": "KD0"})
    assert any(e.type == "hand_undecided" for e in events)
    assert st.phase == "dealer" and st.hand_no == 2 and st.last_winner is None


def test_cg_s1_a_hand_ends_undecided_after_40_rounds_by_default(make, play_act) -> None:
    """CG-S1 (docs/rulings-server.md): 40 rounds = 120 turns at 3 seats, then no winner."""
    assert GAME.setup({}, 3).options.max_rounds_per_hand == 40
    state = make(hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=118)
    st, events = play_act(state, 0, {"type": "discard", "card": "KD0"})
    assert not any(e.type == "hand_undecided" for e in events) and st.turn_no == 119
    state = make(hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=119)
    st, events = play_act(state, 0, {"type": "discard", "card": "KD0"})
    assert [e.data for e in events if e.type == "hand_undecided"] == [{"hand": 1, "turns": 120}]
    assert st.phase == "dealer" and st.hand_no == 2 and st.last_winner is None


def test_cg_s1_the_earlier_of_the_round_and_turn_limits_applies(make, play_act) -> None:
    opts = {"max_rounds_per_hand": 2, "max_turns_per_hand": 100}  # 2 x 3 seats = 6 turns
    st, events = play_act(
        make(hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=5, options=opts),
        0,
        {"type": "discard", "card": "KD0"},
    )
    assert any(e.type == "hand_undecided" for e in events)
    unlimited = {"max_rounds_per_hand": None, "max_hands": None}
    st, events = play_act(
        make(hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=5000, options=unlimited),
        0,
        {"type": "discard", "card": "KD0"},
    )
    assert st.phase == "play" and st.turn_no == 5001  # the rulebook's open-ended hand


def test_cg_s2_the_match_ends_after_7_hands_by_default(make, play_act) -> None:
    """CG-S2: without an Emperor Overlord the 7th hand ends the match; the ledger ranks."""
    assert GAME.setup({}, 3).options.max_hands == 7
    state = make(hands={0: ["KD0", "QD0"]}, drawn=True, turn_no=119, hands_played=6, hand_no=7)
    st, events = play_act(state, 0, {"type": "discard", "card": "KD0"})
    assert [e.type for e in events][-2:] == ["hand_undecided", "match_over"]
    assert st.phase == "over" and isinstance(GAME.next(st), Terminal)
