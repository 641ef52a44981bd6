"""The RECONSTRUCTED map and missions of RULINGS.md §5.2–§5.4 (NY-2, NY-12, NY-14)."""

from __future__ import annotations

from collections import Counter, deque

import pytest

from shared.rules.empire_nyc import board, data

pytestmark = pytest.mark.unit

ROWS = {n.id: n for n in data.NEIGHBORHOODS}


def _edges(rows: tuple[data.Neighborhood, ...]) -> set[frozenset[str]]:
    return {frozenset((n.id, m)) for n in rows for m in n.adjacent}


def _connected(nodes: set[str], edges: set[frozenset[str]]) -> bool:
    start = next(iter(nodes))
    seen = {start}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for e in edges:
            if cur in e:
                (other,) = e - {cur}
                if other in nodes and other not in seen:
                    seen.add(other)
                    queue.append(other)
    return seen == nodes


def test_42_neighborhoods_unique_ids_and_names() -> None:
    assert len(data.NEIGHBORHOODS) == 42
    assert len(ROWS) == 42
    assert len({n.name for n in data.NEIGHBORHOODS}) == 42


def test_adjacency_is_symmetric_and_has_78_links() -> None:
    for n in data.NEIGHBORHOODS:
        assert n.id not in n.adjacent
        assert len(set(n.adjacent)) == len(n.adjacent)
        for m in n.adjacent:
            assert n.id in ROWS[m].adjacent, f"{n.id}->{m} is not symmetric"
    assert len(_edges(data.NEIGHBORHOODS)) == 78


def test_map_is_connected_and_every_borough_is_connected() -> None:
    edges = _edges(data.NEIGHBORHOODS)
    assert _connected(set(ROWS), edges)
    for b in data.BOROUGHS:
        members = {n.id for n in data.NEIGHBORHOODS if n.borough == b.id}
        assert _connected(members, edges), b.id


def test_borough_sizes_border_counts_and_rulebook_bonuses() -> None:
    sizes = Counter(n.borough for n in data.NEIGHBORHOODS)
    assert sizes == {
        "manhattan": 12,
        "brooklyn": 9,
        "queens": 7,
        "bronx": 6,
        "staten_island": 4,
        "jersey": 4,
    }
    border = Counter(
        n.borough
        for n in data.NEIGHBORHOODS
        if any(ROWS[m].borough != n.borough for m in n.adjacent)
    )
    assert border == {
        "manhattan": 9,
        "brooklyn": 6,
        "queens": 6,
        "bronx": 4,
        "staten_island": 2,
        "jersey": 4,
    }
    bonus = {b.id: b.bonus for b in data.BOROUGHS}
    assert bonus == {
        "manhattan": 10,
        "brooklyn": 5,
        "queens": 5,
        "bronx": 3,
        "staten_island": 2,
        "jersey": 2,
    }


def test_pests_are_14_each_and_deck_has_two_river_wilds_ny2() -> None:
    assert Counter(n.pest for n in data.NEIGHBORHOODS) == {"squirrel": 14, "rat": 14, "pigeon": 14}
    assert len(board.CARD_IDS) == 44
    assert Counter(board.CARD_PEST.values())["wild"] == 2


def test_crossings_are_links_of_the_map() -> None:
    edges = _edges(data.NEIGHBORHOODS)
    assert len(data.CROSSINGS) == 25
    for link in data.CROSSINGS:
        assert frozenset((link.a, link.b)) in edges, link
    for link in data.OPTIONAL_LINKS:
        assert frozenset((link.a, link.b)) not in edges, link


def test_optional_links_only_with_the_flag_ny14() -> None:
    base, extra = board.adjacency(False), board.adjacency(True)
    mid, hob = board.NB_INDEX["MN08"], board.NB_INDEX["NJ02"]
    assert hob not in base[mid]
    assert hob in extra[mid] and mid in extra[hob]
    assert sum(len(s) for s in extra) - sum(len(s) for s in base) == 2 * 3


def test_missions_are_whole_boroughs_of_15_to_17_ny12() -> None:
    sizes = Counter(n.borough for n in data.NEIGHBORHOODS)
    got = {m.id: sum(sizes[b] for b in m.boroughs) for m in data.MISSIONS}
    assert got == {"O1": 16, "O2": 16, "O3": 16, "O4": 15, "O5": 17, "O6": 15}
    uses = Counter(b for m in data.MISSIONS for b in m.boroughs)
    assert set(uses) == set(sizes)
    assert all(2 <= k <= 3 for k in uses.values())


def test_starting_cubes_rulebook() -> None:
    assert data.STARTING_CUBES == {3: 35, 4: 30, 5: 25, 6: 20}
