"""Component data against the rulebook (RULINGS §1.1) and the errata ER-1, ER-5, ER-7."""

from __future__ import annotations

import pytest

from shared.rules.empire.actions import ACTION, Bundle
from shared.rules.empire.data import NATIONS

pytestmark = pytest.mark.unit


def test_er1_nation_numbers_follow_section_12() -> None:
    numbers = {n.name: n.number for n in NATIONS}
    assert numbers == {
        "The Ottomans": 0,
        "Venice": 1,
        "Portugal": 2,
        "The Netherlands": 3,  # ER-1: not 2 as in the claiming example
        "Spain": 4,
        "France": 5,
        "Great Britain": 6,
        "Prussia": 7,
    }


def test_er7_great_britain_is_britain_number_6() -> None:
    britain = NATIONS[6]
    assert britain.key == "britain" and britain.name == "Great Britain"
    assert britain.recipe == ("goods", "colonies")


@pytest.mark.parametrize(
    ("number", "recipe", "pays", "gains"),
    [
        (0, ("colonies", "colonies"), {}, {"populations": 1, "bonds": 2, "gold": 15}),
        (1, ("goods", "goods"), {}, {"goods": 1, "gold": 7}),
        (2, ("colonies", "colonies"), {"colonies": 1}, {"goods": 3}),
        (3, ("colonies", "goods"), {}, {"goods": 3, "gold": 10}),
        (4, ("goods", "goods"), {"goods": 1}, {"gold": 15}),
        (5, ("populations", "populations"), {}, {"gold": 5}),
        (6, ("goods", "colonies"), {"goods": 1}, {"supporters": 2, "gold": 10}),
        (7, ("populations", "populations"), {"populations": 1},
         {"colonies": 1, "revolts": 1, "gold": 8}),
    ],
)  # fmt: skip
def test_national_institution_table(
    number: int, recipe: tuple[str, str], pays: dict[str, int], gains: dict[str, int]
) -> None:
    nation = NATIONS[number]
    assert nation.recipe == recipe and dict(nation.pays) == pays and dict(nation.gains) == gains


def test_starting_cards_table() -> None:
    starts = {n.number: dict(n.start) for n in NATIONS}
    assert starts[0] == {"gold": 5, "goods": 1, "populations": 3, "colonies": 3, "bonds": 3}
    assert starts[5] == {
        "revolts": 5,  # E-15
        "gold": 10,
        "goods": 2,
        "populations": 4,
        "colonies": 2,
        "bonds": 4,
    }
    assert starts[7] == {"gold": 5, "goods": 6, "populations": 3, "colonies": 0, "bonds": 1}


def test_er5_e7_bundles_hold_no_nation_or_selection_cards() -> None:
    assert set(Bundle.model_fields) == {
        "goods",
        "populations",
        "colonies",
        "bonds",
        "supporters",
        "revolts",
        "gold",
    }
    parsed = ACTION.validate_python({"type": "offer_trade", "to": 1, "give": {"gold": 2}})
    assert parsed.type == "offer_trade"


RULING_IDS = [f"E-{i}" for i in range(1, 23)] + [f"ER-{i}" for i in range(1, 8)]


@pytest.mark.parametrize("ruling", RULING_IDS)
def test_every_ruling_id_is_named_by_a_test(ruling: str) -> None:
    """Each E-/ER- ruling of RULINGS.md §1 is named by at least one test function."""
    import pathlib
    import re

    token = ruling.replace("-", "").lower()  # "E-14" -> "e14"
    here = pathlib.Path(__file__).parent
    names = [
        m.group(1)
        for path in here.glob("test_*.py")
        for m in re.finditer(r"def (test_\w+)", path.read_text())
    ]
    assert any(re.search(rf"_{token}(_|$)", name) for name in names), ruling
