"""Battles: the comparison table (CG-8) with the rulebook's worked examples, and the battle
flow through the engine (CG-6, CG-7, CG-20)."""

from __future__ import annotations

import pytest

from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.combat import battle_sets, battle_winner

pytestmark = pytest.mark.unit


def s(rank: str, n: int, suits: str = "SHDC") -> tuple[str, ...]:
    return tuple(f"{rank}{suits[i % 4]}{i // 4}" for i in range(n))


GRAIL = ("W0", "W1", "W2", "W3")

# (attacker set, defender set, winner, why) - the rulebook's examples are marked "RULEBOOK".
BATTLE_TABLE = [
    (s("10", 3), s("K", 2), "attacker", "RULEBOOK: three 10s beats two Kings (set size)"),
    (s("K", 2), s("10", 3), "defender", "size first, whoever attacks"),
    (s("6", 4), s("Q", 3), "attacker", "RULEBOOK: four 6s beats three Queens"),
    (s("K", 3), s("5", 3), "attacker", "RULEBOOK: three Kings beats three 5s (Warlord>Thief)"),
    (s("5", 3), s("K", 3), "defender", "Thief loses to Warlord as attacker too"),
    (s("4", 2), s("10", 2), "attacker", "RULEBOOK: two 4s beats two 10s (Thief>Merchant)"),
    (s("10", 2), s("4", 2), "defender", "Merchant loses to Thief"),
    (s("9", 3), s("A", 3), "attacker", "RULEBOOK: three 9s beats three Aces (Merchant>Warlord)"),
    (s("A", 3), s("9", 3), "defender", "Warlord loses to Merchant"),
    (s("K", 2), s("Q", 2), "attacker", "RULEBOOK: two Kings beats two Queens (rank)"),
    (s("Q", 2), s("K", 2), "defender", "lower rank loses"),
    (s("A", 2), s("A", 2, "HS"), "defender", "RULEBOOK: pair of Aces v pair of Aces: defender"),
    (s("3", 4), s("6", 4), "defender", "same regime, 6 beats 3"),
    (s("J", 4), s("A", 2), "attacker", "four beats two"),
    (GRAIL, s("A", 4), "attacker", "Holy Grail is invincible"),
    (s("A", 4), GRAIL, "defender", "Holy Grail is invincible in defence"),
    (GRAIL, ("W4", "W5", "W6", "W7"), "defender", "Grail v Grail: a tie, the defender wins"),
    (s("3", 2), None, "attacker", "CG-7: a defender without a battle set loses"),
]


@pytest.mark.parametrize(("attack", "defence", "winner", "why"), BATTLE_TABLE)
def test_cg8_battle_comparison_table(
    attack: tuple[str, ...], defence: tuple[str, ...] | None, winner: str, why: str
) -> None:
    """CG-8: set size, then regime cycle, then rank, then the defender."""
    assert battle_winner(attack, defence) == winner, why


def test_cg8_four_twos_and_broken_grail_are_not_battle_sets() -> None:
    army = (s("2", 4), ("W0", "W1", "W2"), s("7", 2), GRAIL)
    assert battle_sets(army) == (2, 3)


def test_cg7_attacker_needs_a_battle_set(make, reject_code) -> None:
    """CG-7: no battle set, no battle (four 2s are protection only, CG-8)."""
    state = make(hands={0: ["3S0"], 1: ["KS0"]}, armies={0: [list(s("2", 4))]})
    assert not [a for a in GAME.legal_actions(state, 0) if a["type"] == "battle"]
    action = {"type": "battle", "target": 1, "rank": "K"}
    assert reject_code(state, 0, action) == "action/illegal"


def test_cg6_cg20_honest_answer_and_miss(make, play_act) -> None:
    """CG-6/CG-20: the answer is engine-computed; a miss ends the battle, action used."""
    state = make(hands={0: ["3S0"], 1: ["KS0", "QH0"]}, armies={0: [list(s("A", 2))]})
    after, events = play_act(state, 0, {"type": "battle", "target": 1, "rank": "J"})
    answer = next(e for e in events if e.type == "battle_answer")
    assert answer.data == {"seat": 1, "has": False} and answer.visible_to is None
    assert after.phase == "play" and after.interactions == ("battle",)
    assert after.players[1].hand == state.players[1].hand
    for rank, has in (("K", True), ("Q", True), ("A", False), ("W", False), ("2", False)):
        _, ev = play_act(state, 0, {"type": "battle", "target": 1, "rank": rank})
        assert next(e for e in ev if e.type == "battle_answer").data["has"] is has


def test_cg7_defender_without_army_loses_and_gives_the_card(make, play_act) -> None:
    state = make(hands={0: ["3S0"], 1: ["KS0", "QH0"]}, armies={0: [list(s("4", 2))]})
    after, events = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K"})
    assert after.players[0].hand == ("3S0", "KS0")
    assert after.players[1].hand == ("QH0",)
    spoils = next(e for e in events if e.type == "battle_spoils")
    assert spoils.visible_to is None and "card" not in spoils.data and spoils.data["rank"] == "K"
    card = next(e for e in events if e.type == "battle_card")
    assert card.visible_to == (0, 1) and card.data["card"] == "KS0"


def test_cg8_battle_flow_with_choices(make, play_act) -> None:
    """Attacker picks a set, then the defender; the loser gives a card of their choice."""
    state = make(
        hands={0: ["3S0"], 1: ["KS0", "KH0", "5C0"]},
        armies={0: [list(s("5", 3)), list(s("9", 2))], 1: [list(s("J", 3)), list(s("10", 3))]},
    )
    st, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K"})
    assert st.phase == "battle_attack" and GAME.next(st).seats == (0,)
    assert GAME.legal_actions(st, 0) == [
        {"type": "battle_set", "set": 0},
        {"type": "battle_set", "set": 1},
    ]
    st, _ = play_act(st, 0, {"type": "battle_set", "set": 0})  # three 5s (Thief)
    assert st.phase == "battle_defend" and GAME.next(st).seats == (1,)
    # three Jacks (Warlord) beat three 5s; three 10s (Merchant) lose to Thief
    lost, events = play_act(st, 1, {"type": "battle_set", "set": 1})
    result = next(e for e in events if e.type == "battle_result")
    assert result.data["winner"] == "attacker"
    assert lost.phase == "battle_give"
    assert GAME.legal_actions(lost, 1) == [
        {"type": "battle_give", "card": "KS0"},
        {"type": "battle_give", "card": "KH0"},
    ]
    gave, _ = play_act(lost, 1, {"type": "battle_give", "card": "KH0"})
    assert "KH0" in gave.players[0].hand and gave.players[1].hand == ("5C0", "KS0")
    won, events = play_act(st, 1, {"type": "battle_set", "set": 0})
    assert next(e for e in events if e.type == "battle_result").data["winner"] == "defender"
    assert won.phase == "play" and won.players[1].hand == state.players[1].hand


def test_cg6_rank_suit_option_and_wizard_demand(make, play_act, reject_code) -> None:
    opts = {"battle_demand": "rank_suit"}
    state = make(hands={0: ["3S0"], 1: ["KS0", "W0"]}, armies={0: [list(s("A", 3))]}, options=opts)
    assert reject_code(state, 0, {"type": "battle", "target": 1, "rank": "K"}) == "action/illegal"
    _, ev = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K", "suit": "H"})
    assert next(e for e in ev if e.type == "battle_answer").data["has"] is False
    after, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K", "suit": "S"})
    assert after.players[0].hand == ("3S0", "KS0")
    after, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "W"})
    assert after.players[0].hand == ("3S0", "W0")  # "This can include 2s and Jokers"
    battles = [a for a in GAME.legal_actions(state, 0) if a["type"] == "battle"]
    assert len(battles) == 2 * 53


def test_holy_grail_defends_against_everything(make, play_act) -> None:
    state = make(
        hands={0: ["3S0"], 1: ["KS0"]},
        armies={0: [list(s("A", 4))], 1: [list(GRAIL)]},
    )
    after, events = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K"})
    assert next(e for e in events if e.type == "battle_result").data["winner"] == "defender"
    assert after.players[1].hand == ("KS0",)
