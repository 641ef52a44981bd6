"""Development (RULEBOOK §10.1): Laura's example (ER-2, ER-3) and E-9 ... E-12, E-22."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules.api import Simultaneous
from shared.rules.empire import GAME
from shared.rules.empire.data import NATIONS
from shared.rules.empire.development import develop_seat
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import Holdings

pytestmark = pytest.mark.unit

OTTOMANS, VENICE = 0, 1


def test_rulebook_laura_development_example_er2_er3_e9(drv) -> None:
    """Laura (the Ottomans): 2 goods, 3 populations, 5 colonies, 2 bonds, developed in
    round 2 through the contract. She starts with 0 gold: the 30 gold of her protectorates
    pays her 2 bonds in the same phase (E-9)."""
    state, _ = drv.start(2, "standard")
    state, _ = drv.joint(state, [OTTOMANS, VENICE])
    state, _ = drv.joint(state, [0, 0])  # round-1 commerce: nobody sells
    state, _ = drv.finish_exploration(state)
    assert state.phase == "trade_window"
    state = drv.with_holdings(state, 0, goods=2, populations=3, colonies=5, bonds=2)
    state, events = drv.end_round(state)
    assert state.round == 2 and state.phase == "commerce"
    laura = next(e for e in drv.of(events, "developed") if e["seat"] == 0)
    assert laura["round"] == 2
    assert laura["luxuries"] == 2  # "Laura must build 2 luxuries"
    # ER-2: the industry stacks the last population on a colony (not a good).
    assert laura["industries"] == 1
    # ER-3: the good from the industry is unusable; 4 colonies are left -> 2 protectorates.
    assert (laura["institution"], laura["institutions"]) == ("protectorate", 2)
    assert laura["unused_populations"] == 0  # "Laura takes no revolts"
    assert (laura["bonds_paid"], laura["bonds_unpaid"]) == (2, 0)  # "pays 2 gold"
    assert laura["gained"] == {
        "supporters": 2,
        "goods": 1,
        "populations": 2,
        "bonds": 4,
        "gold": 30,
    }
    assert laura["paid"] == {"goods": 2, "gold": 2}
    h = state.holdings[0]
    # Re-stacked: the discard pile is back; only the 2 goods and 2 gold were paid (E-10).
    assert h == Holdings(goods=1, populations=5, colonies=5, bonds=6, supporters=2, gold=28)


def develop(nation: int | None, **counts: int) -> tuple[dict[str, object], Holdings]:
    state = replace(GAME.setup({}, 2), holdings=(Holdings(**counts), Holdings()))
    ledger = Ledger(state)
    report = develop_seat(ledger, 0, NATIONS[nation] if nation is not None else None)
    return report, ledger.hand(0)


# (nation, holdings before, institutions built, holdings after) — RULEBOOK §12 recipes.
NATIONAL_CASES = [
    ("Ottomans", 0, dict(colonies=4), 2, dict(colonies=4, populations=2, bonds=4, gold=30)),
    ("Venice", 1, dict(goods=5, populations=1), 2, dict(goods=6, populations=1, supporters=1,
                                                         gold=14)),
    ("Portugal", 2, dict(colonies=5), 2, dict(colonies=3, goods=6)),
    ("Netherlands", 3, dict(goods=3, populations=1, colonies=3), 2,
     dict(goods=8, populations=1, colonies=3, supporters=1, gold=20)),
    ("Spain", 4, dict(goods=5), 2, dict(goods=3, gold=30)),
    ("France", 5, dict(populations=5), 2, dict(populations=5, revolts=1, gold=10)),
    ("Britain", 6, dict(goods=3, populations=1, colonies=3), 2,
     dict(goods=0, populations=1, colonies=3, supporters=5, gold=20)),
    ("Prussia", 7, dict(goods=1, populations=5), 2,
     dict(populations=3, colonies=2, revolts=2, supporters=1, gold=16)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "nation", "before", "built", "after"), NATIONAL_CASES)
def test_e9_e10_national_institutions(
    name: str, nation: int, before: dict[str, int], built: int, after: dict[str, int]
) -> None:
    report, hand = develop(nation, **before)
    assert report["institution"] == NATIONS[nation].institution
    assert report["institutions"] == built, name
    assert hand == Holdings(**after), name


def test_e9_greedy_order_luxuries_before_industries() -> None:
    report, hand = develop(None, goods=2, populations=3, colonies=3)
    assert (report["luxuries"], report["industries"]) == (2, 1)
    assert hand == Holdings(goods=1, populations=3, colonies=3, supporters=2)


def test_er3_e9_goods_gained_this_phase_are_unusable() -> None:
    """Venice's industries make 2 goods, but no merchant can use them this phase."""
    report, hand = develop(VENICE, populations=2, colonies=2)
    assert report["industries"] == 2 and report["institutions"] == 0
    assert hand == Holdings(goods=2, populations=2, colonies=2)


def test_e12_one_revolt_per_unused_population() -> None:
    report, hand = develop(None, goods=1, populations=4, colonies=1)
    assert (report["luxuries"], report["industries"], report["unused_populations"]) == (1, 1, 2)
    assert (hand.supporters, hand.revolts) == (1, 2)


def test_e11_unpaid_bonds_give_revolts_and_new_bonds_are_free() -> None:
    report, hand = develop(None, bonds=4, gold=1)
    assert (report["bonds_paid"], report["bonds_unpaid"]) == (1, 3)
    assert hand == Holdings(bonds=4, revolts=3)
    # The Ottomans' 4 new bonds (2 protectorates) cost nothing this phase.
    report, hand = develop(OTTOMANS, colonies=4, bonds=1)
    assert report["bonds_paid"] == 1 and hand.bonds == 5 and hand.gold == 29


def test_e22_beginner_has_no_national_step(drv) -> None:
    state, events = drv.start(2, "beginner")
    reports = drv.of(events, "developed")
    assert [r["institution"] for r in reports] == [None, None]
    assert all(r["institutions"] == 0 for r in reports)
    assert isinstance(GAME.next(state), Simultaneous)


def test_e16_development_needs_no_input_and_is_public(drv) -> None:
    _, events = drv.start(3, "beginner", start_player=1)
    phase = drv.of(events, "development_phase")
    assert phase == [{"round": 1}]
    developed = [e for e in events if e.type == "developed"]
    assert [e.data["seat"] for e in developed] == [1, 2, 0]  # from the start player on
    assert all(e.visible_to is None for e in developed)
