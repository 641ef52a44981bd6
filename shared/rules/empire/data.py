"""Component data for Empire (Stephenson Games), from ``empire.txt`` and RULINGS.md §1.1.

Everything here is RULEBOOK data (nothing is RECONSTRUCTED for this game). It is kept as
plain tables, one row per nation / card kind, so rule logic never hard-codes a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, TypeAlias

# The card kinds a player can hold (and trade, E-7). Field names of ``state.Holdings``.
Kind: TypeAlias = Literal[
    "goods", "populations", "colonies", "bonds", "supporters", "revolts", "gold"
]
Resource: TypeAlias = Literal["goods", "populations", "colonies", "bonds"]

KINDS: tuple[Kind, ...] = (
    "goods",
    "populations",
    "colonies",
    "bonds",
    "supporters",
    "revolts",
    "gold",
)
RESOURCES: tuple[Resource, ...] = ("goods", "populations", "colonies", "bonds")

# Singular card names for event texts and views.
SINGULAR: MappingProxyType[str, str] = MappingProxyType(
    {
        "goods": "good",
        "populations": "population",
        "colonies": "colony",
        "bonds": "bond",
        "supporters": "supporter",
        "revolts": "revolt",
        "gold": "gold",
    }
)

# RULEBOOK §1 Components / RULINGS §1.1: the whole supply. Gold 60x1 + 30x5 + 20x10 = 410
# (DERIVED). Only binding with the strict-supply flag (E-5); by default the bank is unlimited.
SUPPLY: MappingProxyType[str, int] = MappingProxyType(
    {
        "goods": 45,
        "populations": 35,
        "colonies": 30,
        "bonds": 20,
        "supporters": 75,
        "revolts": 25,
        "gold": 410,
    }
)

# RULEBOOK §8 Setup: the six auction cards shuffled into the row (E-22 for the versions).
AUCTION_ROW: MappingProxyType[str, tuple[Resource, ...]] = MappingProxyType(
    {
        "beginner": ("goods", "goods", "populations", "populations", "colonies", "colonies"),
        "standard": ("goods", "populations", "populations", "colonies", "colonies", "bonds"),
    }
)
ROW_LENGTH = 6
ROUNDS = 6  # E-16: rounds 1-5 full, round 6 development only
FULL_ROUNDS = 5

# RULEBOOK §9: generic starting cards of the beginner version.
BEGINNER_START: MappingProxyType[str, int] = MappingProxyType(
    {"colonies": 2, "populations": 3, "goods": 1, "supporters": 1, "revolts": 1, "gold": 30}
)

# RULEBOOK §9: the support stacked below every dealt nation before selection.
CLAIM_STACK_START: MappingProxyType[str, int] = MappingProxyType({"supporters": 1, "revolts": 1})

SELECTION_CARDS = tuple(range(8))  # 0..7, one set per player (at most 6 sets, E-18)
MAX_SALE = 7  # E-13: the highest selection card
BASE_PRICE = 10  # E-13: price = max(0, 10 - total sold)
BOND_GOLD = 10  # E-17: a bond won at auction pays 10 gold at once
MIN_SEATS = 2  # E-18
MAX_SEATS = 6  # E-18 (six selection sets)


@dataclass(frozen=True)
class Nation:
    """One nation card (RULEBOOK §12, RULINGS §1.1 table)."""

    number: int
    key: str
    name: str
    start: MappingProxyType[str, int]  # starting cards taken from the bank
    institution: str
    recipe: tuple[Resource, Resource]  # the two resources stacked
    pays: MappingProxyType[str, int]  # of the cards used, paid to the bank (lost)
    gains: MappingProxyType[str, int]  # taken from the bank per institution


def _m(**kw: int) -> MappingProxyType[str, int]:
    return MappingProxyType(dict(kw))


NATIONS: tuple[Nation, ...] = (
    Nation(
        0,
        "ottomans",
        "The Ottomans",
        _m(gold=5, goods=1, populations=3, colonies=3, bonds=3),
        "protectorate",
        ("colonies", "colonies"),
        _m(),
        _m(populations=1, bonds=2, gold=15),
    ),
    Nation(
        1,
        "venice",
        "Venice",
        _m(gold=20, goods=1, populations=1, colonies=1, bonds=4),
        "merchant",
        ("goods", "goods"),
        _m(),
        _m(goods=1, gold=7),
    ),
    Nation(
        2,
        "portugal",
        "Portugal",
        _m(gold=20, goods=1, populations=2, colonies=1, bonds=4),
        "territory",
        ("colonies", "colonies"),
        _m(colonies=1),
        _m(goods=3),
    ),
    Nation(
        3,  # ER-1: the Netherlands is number 3 (the claiming example's "2" is an erratum)
        "netherlands",
        "The Netherlands",
        _m(gold=15, goods=1, populations=2, colonies=1, bonds=4),
        "company",
        ("colonies", "goods"),
        _m(),
        _m(goods=3, gold=10),
    ),
    Nation(
        4,
        "spain",
        "Spain",
        _m(gold=15, goods=1, populations=2, colonies=2, bonds=2),
        "gold mine",
        ("goods", "goods"),
        _m(goods=1),
        _m(gold=15),
    ),
    Nation(
        5,  # E-15: France's "0 supporters, 5 revolts" come on top of its claim stack
        "france",
        "France",
        _m(revolts=5, gold=10, goods=2, populations=4, colonies=2, bonds=4),
        "cathedral",
        ("populations", "populations"),
        _m(),
        _m(gold=5),
    ),
    Nation(
        6,  # ER-7: "Great Britain" and "Britain" are the same nation
        "britain",
        "Great Britain",
        _m(gold=10, goods=3, populations=2, colonies=2, bonds=2),
        "commonwealth",
        ("goods", "colonies"),
        _m(goods=1),
        _m(supporters=2, gold=10),
    ),
    Nation(
        7,
        "prussia",
        "Prussia",
        _m(gold=5, goods=6, populations=3, colonies=0, bonds=1),
        "army",
        ("populations", "populations"),
        _m(populations=1),
        _m(colonies=1, revolts=1, gold=8),
    ),
)

assert all(n.number == i for i, n in enumerate(NATIONS))
