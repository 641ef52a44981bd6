"""Derived, read-only lookups over the component tables in ``data.py``.

Neighborhoods are addressed by index (their row in ``data.NEIGHBORHOODS``) inside the state
and by id ("MN01") in actions, events and views.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Final

from shared.rules.empire_nyc import data

NB_IDS: Final[tuple[str, ...]] = tuple(n.id for n in data.NEIGHBORHOODS)
NB_INDEX: Final[dict[str, int]] = {nb: i for i, nb in enumerate(NB_IDS)}
N_NB: Final[int] = len(NB_IDS)

BOROUGH_IDS: Final[tuple[str, ...]] = tuple(b.id for b in data.BOROUGHS)
BOROUGH_BONUS: Final[dict[str, int]] = {b.id: b.bonus for b in data.BOROUGHS}
BOROUGH_MEMBERS: Final[dict[str, tuple[int, ...]]] = {
    b: tuple(i for i, n in enumerate(data.NEIGHBORHOODS) if n.borough == b) for b in BOROUGH_IDS
}

MISSION_IDS: Final[tuple[str, ...]] = tuple(m.id for m in data.MISSIONS)
MISSION_BOROUGHS: Final[dict[str, tuple[str, ...]]] = {m.id: m.boroughs for m in data.MISSIONS}

# The draw pile (NY-2): the 42 neighborhood cards and the River Wilds, in this fixed order;
# a deck shuffle's permutation indexes this tuple.
CARD_IDS: Final[tuple[str, ...]] = NB_IDS + data.WILD_CARDS
CARD_PEST: Final[dict[str, str]] = {n.id: n.pest for n in data.NEIGHBORHOODS} | {
    w: "wild" for w in data.WILD_CARDS
}


def _adjacency(extra: bool) -> tuple[frozenset[int], ...]:
    sets: list[set[int]] = [set() for _ in NB_IDS]
    for i, n in enumerate(data.NEIGHBORHOODS):
        for other in n.adjacent:
            sets[i].add(NB_INDEX[other])
            sets[NB_INDEX[other]].add(i)  # symmetric by construction (tested on the rows)
    if extra:  # NY-14: tunnels and ferry
        for link in data.OPTIONAL_LINKS:
            a, b = NB_INDEX[link.a], NB_INDEX[link.b]
            sets[a].add(b)
            sets[b].add(a)
    return tuple(frozenset(s) for s in sets)


ADJ_BASE: Final[tuple[frozenset[int], ...]] = _adjacency(False)
ADJ_EXTRA: Final[tuple[frozenset[int], ...]] = _adjacency(True)


def adjacency(extra_links: bool) -> tuple[frozenset[int], ...]:
    """Neighbours of every neighborhood; ``extra_links`` adds the NY-14 tunnels and ferry."""
    return ADJ_EXTRA if extra_links else ADJ_BASE


SORTED_ADJ_BASE: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(sorted(a)) for a in ADJ_BASE)
SORTED_ADJ_EXTRA: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(sorted(a)) for a in ADJ_EXTRA)


def sorted_adjacency(extra_links: bool) -> tuple[tuple[int, ...], ...]:
    """``adjacency`` with each neighbourhood's neighbours in index order (enumeration order)."""
    return SORTED_ADJ_EXTRA if extra_links else SORTED_ADJ_BASE


# Sets of neighborhoods as bit masks (bit i: neighborhood index i), for the questions asked at
# every move (whose neighbours are enemies or friends): ``adjacency`` as masks.
ADJ_MASK_BASE: Final[tuple[int, ...]] = tuple(sum(1 << j for j in a) for a in ADJ_BASE)
ADJ_MASK_EXTRA: Final[tuple[int, ...]] = tuple(sum(1 << j for j in a) for a in ADJ_EXTRA)


def adjacency_masks(extra_links: bool) -> tuple[int, ...]:
    """``adjacency`` with each neighborhood's neighbours as a bit mask."""
    return ADJ_MASK_EXTRA if extra_links else ADJ_MASK_BASE


def _subsets(links: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """Every subset of ``links`` (in index order): its mask -> its indices in index order."""
    out: dict[int, tuple[int, ...]] = {}
    for k in range(1 << len(links)):
        chosen = tuple(j for b, j in enumerate(links) if k >> b & 1)
        out[sum(1 << j for j in chosen)] = chosen
    return out


# per neighborhood: each set of its neighbours (any link, NY-14 included) as a mask -> the
# indices, in index order
NEIGHBOURS: Final[tuple[dict[int, tuple[int, ...]], ...]] = tuple(
    _subsets(links) for links in SORTED_ADJ_EXTRA)


def set_value(k: int) -> int:
    """Cubes for the (k+1)-th set turned in (k = sets already turned in; NY-5, global)."""
    if k < len(data.SET_VALUES):
        return data.SET_VALUES[k]
    return data.SET_VALUES[-1] + data.SET_VALUE_STEP * (k - len(data.SET_VALUES) + 1)


def is_set(cards: tuple[str, ...]) -> bool:
    """Three cards: three of a kind or one of each pest; a River Wild stands for any pest."""
    if len(cards) != 3 or len(set(cards)) != 3:
        return False
    pests = [CARD_PEST[c] for c in cards if CARD_PEST[c] != "wild"]
    if len(pests) < 3:
        return True  # one or two wilds complete any pair / single
    return len(set(pests)) in (1, 3)


def base_reinforcement(n_owned: int) -> int:
    """Part A (NY-3): neighborhoods // 3, rounded down, minimum 3 (of part A only)."""
    return max(data.BASE_MINIMUM, n_owned // data.BASE_DIVISOR)


def borough_bonus(owner: tuple[int, ...], seat: int) -> tuple[tuple[str, int], ...]:
    """Part B: (borough, bonus) for every whole borough ``seat`` occupies."""
    return tuple((b, BOROUGH_BONUS[b]) for b, members, size in _BOROUGH_OWNERS
                 if members(owner).count(seat) == size)


# per borough: its id, the getter of its neighborhoods' owners (a tuple: every borough has
# 2 or more), its size; for ``borough_bonus`` at the start of every turn
_BOROUGH_OWNERS: Final[tuple[tuple[str, itemgetter[tuple[int, ...]], int], ...]] = tuple(
    (b, itemgetter(*BOROUGH_MEMBERS[b]), len(BOROUGH_MEMBERS[b])) for b in BOROUGH_IDS)
assert all(size >= 2 for _, _, size in _BOROUGH_OWNERS)


# per borough: its id, its neighborhoods as a bit mask, its bonus
_BOROUGH_MASKS: Final[tuple[tuple[str, int, int], ...]] = tuple(
    (b, sum(1 << i for i in BOROUGH_MEMBERS[b]), BOROUGH_BONUS[b]) for b in BOROUGH_IDS)


def borough_bonus_of(mask: int) -> tuple[tuple[str, int], ...]:
    """``borough_bonus`` of the neighborhoods in ``mask`` (bit i: neighborhood i)."""
    return tuple((b, bonus) for b, members, bonus in _BOROUGH_MASKS if mask & members == members)


def holds_boroughs(owner: tuple[int, ...], seat: int, boroughs: tuple[str, ...]) -> bool:
    return all(owner[i] == seat for b in boroughs for i in BOROUGH_MEMBERS[b])
