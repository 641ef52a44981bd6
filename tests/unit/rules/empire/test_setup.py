"""Setup, options, seat counts and the chance protocol (E-18, E-20, E-22, ER-6)."""

from __future__ import annotations

from collections import Counter
from dataclasses import fields

import pytest

from shared.rules.api import Act, Chance, ChanceOutcome, Game, JointAction, RuleError
from shared.rules.empire import GAME
from shared.rules.empire.data import NATIONS, SUPPLY
from shared.rules.empire.state import Auction, EmpireState

pytestmark = pytest.mark.unit


def test_game_exposes_the_contract() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.title, GAME.rules_version) == ("empire", "Empire", "1")
    schema = GAME.options_schema()
    props = schema["properties"]
    assert isinstance(props, dict)
    assert set(props) == {
        "version",
        "strict_supply",
        "min_winning_bid_one",
        "memory_mode",
        "claim_collision_cap",
    }


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_e18_two_to_six_seats_allowed(n: int) -> None:
    state = GAME.setup({}, n)
    assert state.n == n and GAME.min_seats == 2 and GAME.max_seats == 6


@pytest.mark.parametrize("n", [0, 1, 7, 8])
def test_e18_other_seat_counts_rejected(n: int) -> None:
    with pytest.raises(RuleError):
        GAME.setup({}, n)


@pytest.mark.parametrize(
    "options",
    [{"version": "expert"}, {"strict_supply": "maybe"}, {"claim_collision_cap": 0}, {"x": 1}],
)
def test_bad_options_raise_rule_error(options: dict[str, object]) -> None:
    with pytest.raises(RuleError):
        GAME.setup(options, 3)  # type: ignore[arg-type]


def test_defaults_are_the_recommended_resolutions() -> None:
    opts = GAME.setup({}, 3).options
    assert opts.version == "standard"  # E-22 setup flag
    assert opts.strict_supply is False  # E-5 unlimited supply
    assert opts.min_winning_bid_one is False  # E-2 literal reading
    assert opts.memory_mode is False  # E-8 counts public
    assert opts.claim_collision_cap is None  # E-14 unlimited reselection


def test_e20_setup_draw_sequence_standard(drv) -> None:
    state = GAME.setup({}, 4)
    node = GAME.next(state)
    assert node == Chance(label="setup:start-player", draw="below", n=4)
    state, events = drv.chance(state, "setup:start-player", [2])
    assert state.start_player == 2 and drv.of(events, "start_player") == [{"seat": 2}]
    assert GAME.next(state) == Chance(label="setup:auction-row", draw="shuffle", n=6)
    state, events = drv.chance(state, "setup:auction-row", [5, 4, 3, 2, 1, 0])
    # Standard row 1 good / 2 populations / 2 colonies / 1 bond, face up (ER-6).
    assert state.row == ("bonds", "colonies", "colonies", "populations", "populations", "goods")
    assert drv.of(events, "auction_row_dealt") == [{"row": list(state.row), "shortage": 0}]
    assert GAME.next(state) == Chance(label="setup:nations", draw="shuffle", n=8)
    state, events = drv.chance(state, "setup:nations", [7, 6, 5, 4, 3, 2, 1, 0])
    assert state.claim is not None and state.claim.market == (7, 6, 5, 4)
    assert drv.of(events, "nations_dealt")[0]["nations"] == [
        {"number": m, "name": NATIONS[m].name} for m in (7, 6, 5, 4)
    ]


def test_e22_beginner_row_and_starting_cards(drv) -> None:
    state, events = drv.start(3, "beginner", row=[1, 3, 5, 0, 2, 4])
    assert Counter(state.row) == {"goods": 2, "populations": 2, "colonies": 2}
    assert state.row == ("goods", "populations", "colonies", "goods", "populations", "colonies")
    assert state.shortage == 0  # the shortage card covers the first card
    assert state.claim is None and state.nations == (None, None, None)
    starts = drv.of(events, "starting_cards")
    expected = {"colonies": 2, "populations": 3, "goods": 1, "supporters": 1, "revolts": 1}
    assert starts == [{"seat": s, "starting_cards": {**expected, "gold": 30}} for s in range(3)]
    # Beginner development of round 1 is applied at once: 1 luxury, 2 industries.
    assert state.phase == "commerce" and state.round == 1
    h = state.holdings[0]
    assert (h.goods, h.populations, h.colonies, h.supporters, h.revolts, h.gold) == (
        2,
        3,
        2,
        2,
        1,
        30,
    )


def test_e22_standard_row_has_a_bond(drv) -> None:
    state, _ = drv.start(3, "standard")
    assert Counter(state.row) == {"goods": 1, "populations": 2, "colonies": 2, "bonds": 1}


def test_chance_outcomes_are_validated(drv) -> None:
    state = GAME.setup({}, 3)
    bad_label = ChanceOutcome(label="setup:auction-row", values=(0, 1, 2, 3, 4, 5))
    assert drv.rejected(state, bad_label) == "action/unknown_round"
    assert drv.rejected(state, ChanceOutcome(label="setup:start-player", values=(3,))) == (
        "action/malformed"
    )
    assert drv.rejected(state, ChanceOutcome(label="setup:start-player", values=(0, 1))) == (
        "action/malformed"
    )
    state, _ = drv.chance(state, "setup:start-player", [0])
    not_perm = ChanceOutcome(label="setup:auction-row", values=(0, 0, 1, 2, 3, 4))
    assert drv.rejected(state, not_perm) == "action/malformed"
    assert drv.rejected(state, Act(seat=0, action={"type": "pass"})) == "action/wrong_phase"
    joint = JointAction(round_id="claim:1", choices={})
    assert drv.rejected(state, joint) == "action/wrong_phase"


def test_supply_table_matches_the_component_list() -> None:
    assert dict(SUPPLY) == {
        "goods": 45,
        "populations": 35,
        "colonies": 30,
        "bonds": 20,
        "supporters": 75,
        "revolts": 25,
        "gold": 60 + 5 * 30 + 10 * 20,
    }


def test_clone_copies_every_field_and_owns_the_auction() -> None:
    """The clone stores each field itself: a field it missed would be unset (slots)."""
    state = GAME.setup({}, 3)
    state.auction = Auction(2, "goods", [1, 0, 3], [False, True, False], 2, 1, 1)
    new = state.clone()
    for f in fields(EmpireState):
        assert getattr(new, f.name) == getattr(state, f.name), f.name
    assert new.auction is not state.auction and new.auction == state.auction
    assert new.auction.bids is not state.auction.bids
    assert new.auction.withdrawn is not state.auction.withdrawn
