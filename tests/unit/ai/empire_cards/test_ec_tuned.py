"""The tuned heuristic (``bot.TUNED``: hard's own seat): each switch of its
``Style`` against the plain bot, on hand-built tables (CG-10, CG-11, CG-12, CG-13, CG-14,
CG-15). The plain bot (the default ``Style``) must play as before."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from shared.ai.empire_cards.bot import TUNED, HeuristicBot, Style
from shared.rules.api import Act, Transition
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.unit

PLAIN = HeuristicBot()
TUNED_BOT = HeuristicBot(TUNED)
THIEF_SETS = [[f"{r}{s}1" for r in ("3", "4", "5", "6")] for s in "SHD"]


def decide(bot: HeuristicBot, state: State, seat: int = 0) -> dict[str, Any]:
    action = bot.act(GAME.view(state, seat), list(GAME.legal_actions(state, seat)), seat)
    assert isinstance(action, dict)
    return action


def test_the_tuned_style_only_flips_switches_the_plain_bot_leaves_off() -> None:
    assert PLAIN.style == Style() and not Style().finish and Style().barbarian_seats == 0
    assert TUNED.finish and TUNED.endgame_steal and TUNED.barbarian_seats == 3
    assert Style().avoid == 0 and TUNED.avoid == 2
    assert not Style().take and TUNED.take


def test_finish_steals_a_card_before_a_4th_set_that_would_run_the_hand_out(make) -> None:
    """3 sets laid, the 4th in hand with one card beside it: laying it leaves 1 card, the
    gift (CG-13) takes it and the run-out rule deals 6 (CG-12). The plain bot lays it; the
    tuned one steals first (CG-15), then lays it with 2 beside it: gift, discard, won."""
    hand = ["3C0", "4C0", "5H0", "6D0", "KD0"]
    state = make(4, hands={0: hand, 1: ["9S0"], 2: ["8S0"], 3: ["7H0"]}, empire={0: THIEF_SETS},
                 regimes={0: "thief"}, discards={1: ["JS0"]}, drawn=True)
    assert decide(PLAIN, state)["type"] == "empire"
    assert decide(TUNED_BOT, state) == {"type": "steal", "target": 1}
    ready = make(4, hands={0: [*hand, "JS0"], 1: ["9S0"], 2: ["8S0"], 3: ["7H0"]},
                 empire={0: THIEF_SETS}, regimes={0: "thief"}, drawn=True)
    assert decide(TUNED_BOT, ready)["type"] == "empire"


def test_finish_prefers_the_set_that_leaves_exactly_two_cards(make) -> None:
    """A same-suit set draws 2 (CG-11): with 2 cards beside the set the tuned bot lays the
    mixed one (gift and discard end the hand), the plain bot the same-suit one."""
    hand = ["3C0", "4C0", "5C0", "6C0", "6D0", "KD0", "QH0"]
    state = make(4, hands={0: hand, 1: ["9S0"], 2: ["8S0"], 3: ["7H0"]}, empire={0: THIEF_SETS},
                 regimes={0: "thief"}, drawn=True)
    plain, tuned = decide(PLAIN, state), decide(TUNED_BOT, state)
    assert plain["cards"] == ["3C0", "4C0", "5C0", "6C0"]
    assert tuned["type"] == "empire" and "6D0" in tuned["cards"]


def test_at_three_seats_the_tuned_bot_builds_a_barbarian_run_not_empire_sets(make) -> None:
    """CG-10: at 3 seats the tuned bot keeps a thief set in hand for its run and steals a
    rank the run lacks; at 4 seats it lays the set like the plain bot."""
    hand = ["3S0", "4S0", "5S0", "6S0", "7H0", "8D0", "9C0", "10S0", "JH0", "QD0"]
    for seats, kind in ((3, "steal"), (4, "empire")):
        hands = {0: hand, **{s: [f"2{'HDC'[s - 1]}1"] for s in range(1, seats)}}
        state = make(seats, hands=hands, discards={1: ["KC1"]}, drawn=True)
        assert decide(PLAIN, state)["type"] == "empire"
        assert decide(TUNED_BOT, state)["type"] == kind
    run = [*hand, "KC1", "AS0", "8S1"]  # 12 ranks and a spare: lay it, discard, won
    state = make(3, hands={0: run, 1: ["2H1"], 2: ["2D1"]}, drawn=True)
    assert decide(TUNED_BOT, state)["type"] == "barbarian"


def test_a_run_that_is_the_whole_hand_waits_for_a_thirteenth_card(make) -> None:
    """Laying a 12-card run from a 12-card hand runs the hand out (6 cards, CG-12): the tuned
    bot steals first."""
    run = ["3S0", "4S0", "5S0", "6S0", "7H0", "8D0", "9C0", "10S0", "JH0", "QD0", "KC1", "AS0"]
    state = make(3, hands={0: run, 1: ["2H1"], 2: ["2D1"]}, discards={2: ["9D1"]}, drawn=True)
    assert decide(TUNED_BOT, state) == {"type": "steal", "target": 2}


def test_endgame_steal_takes_a_card_that_pairs_a_lone_one(make) -> None:
    """Able to win with 2 cards and no army: the plain bot discards one (and keeps one, every
    turn); the tuned one steals a card pairing one of them (CG-15), parks the pair and has
    one card left to discard (CG-12)."""
    sets = [*THIEF_SETS, ["3C1", "4C1", "5C1", "6C1"]]
    state = make(3, hands={0: ["9S0", "KD0"], 1: ["7S0"], 2: ["8S0"]}, empire={0: sets},
                 regimes={0: "thief"}, discards={1: ["KH1"]}, drawn=True)
    assert decide(PLAIN, state)["type"] == "discard"
    assert decide(TUNED_BOT, state) == {"type": "steal", "target": 1}


def test_hold_two_keeps_a_2_until_a_rival_has_four_sets(make) -> None:
    """CG-14: the plain bot discards a 2 at once; the tuned one keeps it for the turn a rival
    can win (a skip then costs that rival its winning turn)."""
    hand = ["2S0", "9D0", "KH0", "3S0"]
    calm = make(3, hands={0: hand, 1: ["9S0"], 2: ["8S0"]}, regimes={0: "thief"},
                empire={0: [THIEF_SETS[0]]}, drawn=True)
    assert decide(PLAIN, calm) == {"type": "discard", "card": "2S0"}
    assert decide(TUNED_BOT, calm)["card"] != "2S0"
    merchant = [[f"{r}{s}0" for r in ("7", "8", "10")] + [f"9{s}1"] for s in "SHCD"]
    close = make(3, hands={0: hand, 1: ["JS0"], 2: ["8S1"]}, regimes={0: "thief", 2: "merchant"},
                 empire={0: [THIEF_SETS[0]], 2: merchant}, drawn=True)
    assert decide(TUNED_BOT, close) == {"type": "discard", "card": "2S0"}


def test_avoid_chooses_a_regime_no_opponent_has_locked(make) -> None:
    """CG-10: the first empire set locks a regime, and two seats on one regime share the
    copies of its ranks. Holding a thief set with a spare 3 and a merchant set, the plain bot
    lays the thief set (more of its ranks held); the tuned one, at 4 seats where an opponent
    has locked thief, lays the merchant set. With no opponent locked it lays the thief set
    too."""
    hand = ["3S0", "3H0", "4S0", "5S0", "6S0", "7H0", "8D0", "9C0", "10S0", "KD0"]
    others = {s: [f"2{'HDC'[s - 1]}1"] for s in range(1, 4)}
    locked = make(4, hands={0: hand, **others}, empire={1: [THIEF_SETS[0]]},
                  regimes={1: "thief"}, drawn=True)
    plain, tuned = decide(PLAIN, locked), decide(TUNED_BOT, locked)
    assert plain["type"] == tuned["type"] == "empire"
    assert plain["regime"] == "thief" and tuned["regime"] == "merchant"
    free = make(4, hands={0: hand, **others}, drawn=True)
    assert decide(TUNED_BOT, free)["regime"] == "thief"


def test_take_plunders_a_rank_the_sets_need_from_a_rivals_army(make) -> None:
    """CG-14: a discarded 2 may take a battle card from any army. The plain seats park pairs
    of the ranks they do not collect, so the last copies of a rank our sets need end in their
    armies, where drawing, stealing and battle (a hand's cards only, CG-6) never reach them.
    Merchant with 2 sets and no 9, the 9s in seat 2's army: the tuned bot discards its 2
    (kept while no rival is close, ``hold_two``) and takes a 9; the plain bot skips the
    leader. With only unneeded ranks in the armies the tuned bot keeps its 2."""
    merchant = [[f"{r}{s}0" for r in ("7", "8", "9", "10")] for s in "SH"]
    hand = ["2S0", "7C0", "8D0", "10D0", "KD0"]
    table: dict[str, Any] = dict(
        hands={0: hand, 1: ["KS1"], 2: ["KH1"], 3: ["KC1"]},
        empire={0: merchant, 1: [THIEF_SETS[0]]},
        regimes={0: "merchant", 1: "thief"}, drawn=True)
    needed = make(4, armies={1: [["JS1", "JH1"]], 2: [["9C0", "9D0"]]}, **table)
    assert decide(TUNED_BOT, needed) == {"type": "discard", "card": "2S0"}
    calm = make(4, armies={1: [["JS1", "JH1"]], 2: [["QC0", "QD0"]]}, **table)
    assert decide(TUNED_BOT, calm)["card"] != "2S0"
    spent = tuple(c for c in needed.players[0].hand if c != "2S0")  # the 2 just discarded
    after = replace(needed, phase="sabotage",
                    players=(replace(needed.players[0], hand=spent), *needed.players[1:]))
    assert decide(PLAIN, after)["type"] == "sabotage_skip"
    take = decide(TUNED_BOT, after)
    assert take["type"] == "sabotage_take" and take["target"] == 2 and take["card"][0] == "9"
    result = GAME.apply(after, Act(seat=0, action=take))
    assert isinstance(result, Transition)
    assert take["card"] in result.state.players[0].hand
    assert result.state.players[2].army == ()  # the pair's last card went back to its hand (CG-9)
