"""Round structure (E-16), the end and scoring (E-19, Joe/Darryl/Jay), supply (E-5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules._kit.playout import play
from shared.rules.api import Terminal
from shared.rules.empire import GAME
from shared.rules.empire.data import SUPPLY
from shared.rules.empire.ledger import bank_left
from shared.rules.empire.state import EmpireState, Holdings

pytestmark = pytest.mark.unit

JOE, DARRYL, JAY = range(3)


@pytest.mark.parametrize("version", ["beginner", "standard"])
def test_e16_five_full_rounds_then_a_sixth_development(version: str) -> None:
    out = play(GAME, 4, {"version": version}, seed=11)
    assert out.finished and isinstance(GAME.next(out.state), Terminal)
    kinds = [e.type for e in out.events]
    dev_rounds = [e.data["round"] for e in out.events if e.type == "development_phase"]
    assert dev_rounds == [1, 2, 3, 4, 5, 6]
    assert [e.data["round"] for e in out.events if e.type == "commerce"] == [1, 2, 3, 4, 5]
    assert kinds.count("auction_opened") == 25  # DERIVED: 5 rounds x 5 uncovered cards
    assert [e.data["shortage"] for e in out.events if e.type == "shortage_moved"] == [1, 2, 3, 4, 5]
    # Round 6 is development only, then the game ends at once.
    last_dev = max(i for i, k in enumerate(kinds) if k == "development_phase")
    assert set(kinds[last_dev + 1 :]) == {"developed", "game_ended"}
    assert out.state.phase == "ended" and out.state.developments == 6
    assert GAME.legal_actions(out.state, 0) == []


def ended(holdings: list[Holdings]) -> EmpireState:
    state = GAME.setup({"version": "beginner"}, len(holdings))
    return replace(state, holdings=tuple(holdings), phase="ended", round=6)


def test_rulebook_joe_darryl_jay_ending_e19(drv) -> None:
    """Played through the contract to the end: Joe 6-2, Darryl 7-6, Jay 3-0 support cards
    when the last development begins (no resources, so it changes nothing)."""
    state = drv.at_exploration([dict(), dict(), dict()])
    while True:
        state, _ = drv.finish_exploration(state)
        if state.round == 5:
            break
        state, _ = drv.end_round(state)
        state, _ = drv.joint(state, [0, 0, 0])
    state = drv.with_holdings(state, JOE, supporters=6, revolts=2, gold=1)
    state = drv.with_holdings(state, DARRYL, supporters=7, revolts=6, gold=50)
    state = drv.with_holdings(state, JAY, supporters=3, gold=9)
    state, events = drv.end_round(state)
    assert isinstance(GAME.next(state), Terminal) and state.round == 6
    outcome = GAME.score(state)
    assert outcome.winners == (JOE,)  # "Joe has the most support, so he is the winner"
    assert [r.figures["support"] for r in outcome.results] == [4, 1, 3]
    assert [r.place for r in outcome.results] == [1, 3, 2]
    assert "gold" in outcome.tiebreak
    [end] = drv.of(events, "game_ended")
    assert [s["support"] for s in end["standings"]] == [4, 1, 3]
    assert GAME.view(state, None)["standings"] == end["standings"]


def test_e19_gold_breaks_a_support_tie_then_a_joint_win() -> None:
    state = ended(
        [
            Holdings(supporters=5, gold=10),
            Holdings(supporters=6, revolts=1, gold=12),
            Holdings(supporters=5, gold=12),
            Holdings(supporters=9),
        ]
    )
    outcome = GAME.score(state)
    assert outcome.winners == (3,)
    assert [r.place for r in outcome.results] == [4, 2, 2, 1]  # 1 and 2 tie on gold too
    state = ended([Holdings(supporters=2, gold=3), Holdings(supporters=2, gold=3), Holdings()])
    assert GAME.score(state).winners == (0, 1)  # a joint win


def test_game_ended_event_carries_the_standings() -> None:
    out = play(GAME, 3, {"version": "beginner"}, seed=5)
    [end] = [e.data for e in out.events if e.type == "game_ended"]
    places = [r.place for r in GAME.score(out.state).results]
    assert [s["place"] for s in end["standings"]] == places


def with_bank_left(state: EmpireState, **left: int) -> EmpireState:
    """Strict supply: pretend only ``left`` cards of some kinds remain in the bank."""
    taken = state.bank_taken.as_dict()
    returned = state.bank_returned.as_dict()
    for kind, n in left.items():
        taken[kind] = SUPPLY[kind] + returned[kind] - n
    return replace(state, bank_taken=Holdings(**taken))


def test_e5_strict_supply_limits_what_the_bank_gives(drv) -> None:
    for strict, expected in [(False, 3), (True, 1)]:
        state = drv.at_exploration([dict(), dict()], strict_supply=strict)
        state, _ = drv.finish_exploration(state)
        state = drv.with_holdings(state, 0, populations=3)
        state = with_bank_left(state, revolts=1)
        state, events = drv.end_round(state)
        report = next(e for e in drv.of(events, "developed") if e["seat"] == 0)
        assert report["unused_populations"] == 3
        assert state.holdings[0].revolts == expected


def test_e5_strict_supply_skips_an_auction_the_bank_cannot_fill(drv) -> None:
    state = drv.at_commerce([dict(gold=3), dict(gold=3)], strict_supply=True)
    state = with_bank_left(state, goods=0)
    state, events = drv.joint(state, [0, 0])
    assert drv.of(events, "auction_skipped") == [{"card": 1, "resource": "goods"}]
    assert state.auction.card == 2 and state.auction.resource == "populations"
    assert bank_left(state, "goods") == 0


def test_e5_unlimited_supply_by_default(drv) -> None:
    state = drv.at_commerce([dict(), dict()])
    assert bank_left(state, "revolts") is None
    state = with_bank_left(state, goods=0)
    state, events = drv.joint(state, [0, 0])
    assert drv.of(events, "auction_skipped") == [] and state.auction.card == 1
