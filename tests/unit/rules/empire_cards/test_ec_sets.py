"""Validation of every set type: armies (CG-9), empire sets and the regime lock (CG-10),
the same-suit bonus (CG-11), Barbarian / Horde / Serf Rebellion sets."""

from __future__ import annotations

import pytest

from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.sets import (
    empire_options,
    is_horde,
    new_army_options,
    same_suit_bonus,
    valid_army_addition,
    valid_barbarian,
    valid_empire_set,
    valid_new_army_set,
    valid_serf,
)

pytestmark = pytest.mark.unit

BARB_RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

NEW_ARMY = [
    (["KS0", "KH0"], True, "a pair"),
    (["KS0", "KH0", "KD0"], True, "three of a kind"),
    (["KS0", "KH0", "KD0", "KC0"], True, "four of a kind"),
    (["KS0", "KH0", "KD0", "KC0", "KS1"], False, "never more than four"),
    (["KS0"], False, "no singles"),
    (["KS0", "QS0"], False, "one rank only"),
    (["2S0", "2H0"], False, "2s only as a full four"),
    (["2S0", "2H0", "2D0", "2C0"], True, "four 2s at once"),
    (["W0", "W1", "W2"], False, "Wizards only as four"),
    (["W0", "W1", "W2", "W3"], True, "the Holy Grail"),
    (["KS0", "KS1"], True, "identical copies from two packs"),
]


@pytest.mark.parametrize(("cards", "ok", "why"), NEW_ARMY)
def test_cg9_new_army_sets(cards: list[str], ok: bool, why: str) -> None:
    assert valid_new_army_set(cards) is ok, why


ADD_ARMY = [
    (("KS0", "KH0"), ["KD0"], True, "pair to three"),
    (("KS0", "KH0"), ["KD0", "KC0"], True, "pair to four"),
    (("KS0", "KH0", "KD0"), ["KC0", "KS1"], False, "more than four"),
    (("KS0", "KH0"), ["QD0"], False, "another rank"),
    (("2S0", "2H0", "2D0"), ["2C0"], False, "never onto 2s"),
    (("W0", "W1", "W2"), ["W3"], False, "never onto Wizards"),
]


@pytest.mark.parametrize(("existing", "cards", "ok", "why"), ADD_ARMY)
def test_cg9_army_additions(
    existing: tuple[str, ...], cards: list[str], ok: bool, why: str
) -> None:
    assert valid_army_addition(existing, cards) is ok, why


EMPIRE = [
    (["3S0", "4H0", "5D0", "6C0"], "thief", True, "a 3-4-5-6 run, any suits"),
    (["7S0", "8S0", "9S0", "10S0"], "merchant", True, "7-8-9-10"),
    (["JS0", "QH0", "KS0", "AD0"], "warlord", True, "J-Q-K-A"),
    (["JS0", "QH0", "KS0", "AD0"], "thief", False, "wrong regime"),
    (["3S0", "4H0", "W0", "6C0"], "thief", True, "a Wizard is wild"),
    (["W0", "W1", "W2", "W3"], "merchant", True, "as many Wizards as you want"),
    (["3S0", "3H0", "5D0", "6C0"], "thief", False, "a rank twice"),
    (["3S0", "4H0", "5D0"], "thief", False, "four cards"),
    (["2S0", "4H0", "5D0", "6C0"], "thief", False, "2s are no regime card"),
]


@pytest.mark.parametrize(("cards", "regime", "ok", "why"), EMPIRE)
def test_cg10_empire_set_validation(cards: list[str], regime: str, ok: bool, why: str) -> None:
    assert valid_empire_set(cards, regime) is ok, why  # type: ignore[arg-type]


def test_cg11_same_suit_bonus_needs_no_wizard() -> None:
    assert same_suit_bonus(["3S0", "4S0", "5S1", "6S0"])
    assert not same_suit_bonus(["3S0", "4S0", "W0", "6S0"])
    assert not same_suit_bonus(["3S0", "4S0", "5H0", "6S0"])


def test_barbarian_horde_and_serf_validation() -> None:
    mixed = [f"{r}{'SHDC'[i % 4]}0" for i, r in enumerate(BARB_RANKS)]
    hearts = [f"{r}H0" for r in BARB_RANKS]
    assert valid_barbarian(mixed) and not is_horde(mixed)
    assert valid_barbarian(hearts) and is_horde(hearts)
    with_wizards = ["W0", "W1", *mixed[2:]]
    assert valid_barbarian(with_wizards) and not is_horde(with_wizards)
    assert not valid_barbarian(mixed[:11])
    assert not valid_barbarian([*mixed[:11], "3H1"])  # 3 twice, no Ace
    serf = ["2H0", "2H1", "3H0", "3H1", "5H0", "7H0", "9H0", "JH0", "QH0", "AH0", "W0", "W1"]
    assert valid_serf(serf)  # 2s, Wizards, repeated ranks are all fine
    assert not valid_serf([*serf[:11], "KS0"])
    assert not valid_serf(serf[:11])


def test_cg10_regime_lock(make, play_act, reject_code) -> None:
    """CG-10: the first empire set fixes the regime; later sets must match."""
    hand = ["3S0", "4H0", "5D0", "6C0", "7S0", "8S0", "9S0", "10H0", "3H0", "4S0", "5S0", "6S0"]
    state = make(hands={0: hand})
    st, _ = play_act(
        state, 0, {"type": "empire", "regime": "thief", "cards": ["3S0", "4H0", "5D0", "6C0"]}
    )
    assert st.players[0].regime == "thief" and len(st.players[0].empire_sets) == 1
    merchant = {"type": "empire", "regime": "merchant", "cards": ["7S0", "8S0", "9S0", "10H0"]}
    assert reject_code(st, 0, merchant) == "action/illegal"
    assert {a["regime"] for a in GAME.legal_actions(st, 0) if a["type"] == "empire"} == {"thief"}
    thief = {"type": "empire", "regime": "thief", "cards": ["3H0", "4S0", "5S0", "6S0"]}
    st2, _ = play_act(st, 0, thief)
    assert len(st2.players[0].empire_sets) == 2


def test_cg11_cg13_first_set_draws_six_plus_two_for_one_suit(make, play_act) -> None:
    """CG-13: 1st set draws 6; CG-11: all one suit without Wizards draws 2 more."""
    hand = ["3S0", "4S0", "5S0", "6S0", "KD0"]
    state = make(hands={0: hand})
    st, _ = play_act(state, 0, {"type": "empire", "regime": "thief", "cards": hand[:4]})
    assert len(st.players[0].hand) == 1 + 6 + 2
    wild = make(hands={0: ["3S0", "4S0", "W0", "6S0", "KD0"]})
    st, _ = play_act(
        wild, 0, {"type": "empire", "regime": "thief", "cards": ["3S0", "4S0", "W0", "6S0"]}
    )
    assert len(st.players[0].hand) == 1 + 6  # CG-11: no bonus with a Wizard


def test_cg10_barbarian_and_serf_are_not_empire_sets(make, play_act) -> None:
    """CG-10: laid at any time, any regime; no empire-set bonuses."""
    barb = [f"{r}{'SHDC'[i % 4]}0" for i, r in enumerate(BARB_RANKS)]
    state = make(
        hands={0: [*barb, "2D1"]},
        empire=({0: [["7S1", "8S1", "9S1", "10S1"]]}),
        regimes={0: "merchant"},
    )
    st, events = play_act(state, 0, {"type": "barbarian", "cards": barb})
    p = st.players[0]
    assert p.hand == ("2D1",) and len(p.empire_sets) == 1
    assert [(s.kind, len(s.cards)) for s in p.specials] == [("barbarian", 12)]
    assert not [e for e in events if e.type == "draw"]
    serf = [f"{r}H1" for r in BARB_RANKS[:10]] + ["2H1", "W0"]
    st, _ = play_act(make(hands={0: [*serf, "3C1"]}), 0, {"type": "serf", "cards": serf})
    assert st.players[0].specials[0].kind == "serf" and st.players[0].hand == ("3C1",)
    hearts = [f"{r}H0" for r in BARB_RANKS]
    st, _ = play_act(make(hands={0: [*hearts, "3C1"]}), 0, {"type": "barbarian", "cards": hearts})
    assert st.players[0].specials[0].kind == "horde"


def test_canonical_options_and_free_compositions(make, play_act) -> None:
    """legal_actions lists one choice per label multiset and the canonical set
    compositions; apply accepts any valid composition."""
    hand = ["3S0", "3S1", "3H0", "4S0", "4H0", "5S0", "6S0", "6D0", "W0"]
    opts = empire_options(hand, "thief")
    assert opts == [("3S0", "4S0", "5S0", "6S0")]  # same-suit run = fewest-Wizards run
    gap = [c for c in hand if c != "5S0"]
    assert empire_options(gap, "thief") == [("3S0", "4S0", "6S0", "W0")]
    assert empire_options(gap[:-1], "thief") == []
    pairs = [o for o in new_army_options(hand) if len(o) == 2]
    assert sorted(tuple(c[:-1] for c in o) for o in pairs) == [
        ("3S", "3H"),
        ("3S", "3S"),
        ("4S", "4H"),
        ("6S", "6D"),
    ]
    state = make(hands={0: hand})
    cards = ["3H0", "4H0", "W0", "6D0"]  # not canonical, still legal
    st, _ = play_act(state, 0, {"type": "empire", "regime": "thief", "cards": cards})
    assert st.players[0].empire_sets == (("3H0", "4H0", "6D0", "W0"),)


def test_cg9_army_in_play_several_sets_of_one_rank(make, play_act, reject_code) -> None:
    hand = ["KS0", "KH0", "KS1", "KH1", "KD0", "2S0", "2H0", "3C0"]
    state = make(hands={0: hand}, turn_no=0)  # CG-1: armies are allowed in the first round
    st, _ = play_act(state, 0, {"type": "army", "cards": ["KS0", "KH0"]})
    st, _ = play_act(st, 0, {"type": "army", "cards": ["KS1", "KH1"]})
    st, _ = play_act(st, 0, {"type": "army", "cards": ["KD0"], "set": 1})
    assert st.players[0].army == (("KS0", "KH0"), ("KS1", "KH1", "KD0"))
    assert reject_code(st, 0, {"type": "army", "cards": ["2S0", "2H0"]}) == "action/illegal"
    assert reject_code(st, 0, {"type": "army", "cards": ["3C0"], "set": 0}) == "action/illegal"
    assert reject_code(st, 0, {"type": "army", "cards": ["QS2", "QH2"]}) == "action/illegal"
