"""Attacks: the dice comparison table (NY-8), conquest and move-in (NY-9), elimination
(NY-7) and the win checks (NY-12)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from shared.rules.api import Chance, Turn
from shared.rules.empire_nyc import GAME
from shared.rules.empire_nyc.combat import compare
from tests.unit.rules.empire_nyc.helpers import (
    act,
    cubes_of,
    deal,
    legal,
    make,
    owner_of,
    rejected,
    types,
    view_of,
)

pytestmark = pytest.mark.unit

# Every instigator die count (1–3) against every defender die count (1–2): the exact
# probabilities of (instigator loses 0/1/2) over all 6^(a+d) rolls. These are the classic
# Risk odds the rulebook's comparison yields (highest vs highest, ties to the defender).
ODDS = {
    (1, 1): {0: Fraction(15, 36), 1: Fraction(21, 36)},
    (2, 1): {0: Fraction(125, 216), 1: Fraction(91, 216)},
    (3, 1): {0: Fraction(855, 1296), 1: Fraction(441, 1296)},
    (1, 2): {0: Fraction(55, 216), 1: Fraction(161, 216)},
    (2, 2): {0: Fraction(295, 1296), 1: Fraction(420, 1296), 2: Fraction(581, 1296)},
    (3, 2): {0: Fraction(2890, 7776), 1: Fraction(2611, 7776), 2: Fraction(2275, 7776)},
}


@pytest.mark.parametrize(("a", "d"), sorted(ODDS))
def test_dice_comparison_table_every_count_ny8(a: int, d: int) -> None:
    """NY-8 table test: all rolls for each (instigator dice, defender dice) pair."""
    tally: dict[int, int] = {}
    for roll in product(range(1, 7), repeat=a + d):
        inst_loss, def_loss = compare(roll[:a], roll[a:])
        assert inst_loss + def_loss == min(a, d)  # one cube lost per compared pair
        tally[inst_loss] = tally.get(inst_loss, 0) + 1
    total = 6 ** (a + d)
    assert {k: Fraction(v, total) for k, v in tally.items()} == ODDS[(a, d)]


@pytest.mark.parametrize(
    ("inst", "dfn", "expected"),
    [
        ((6,), (6,), (1, 0)),  # tie: defender wins
        ((6, 6, 6), (6, 6), (2, 0)),  # ties on both pairs
        ((5, 3, 1), (4, 4), (1, 1)),  # 5>4, 3<4
        ((1, 2, 6), (5, 1), (0, 2)),  # sorted: 6>5, 2>1
        ((4, 4), (4, 3), (1, 1)),  # 4=4 defender, 4>3
        ((2,), (1, 6), (1, 0)),  # one die compares once: 2 vs 6
        ((6, 1), (5,), (0, 1)),  # one defender die: only the highest pair
    ],
)
def test_comparison_examples_ties_to_defender_ny8(
    inst: tuple[int, ...], dfn: tuple[int, ...], expected: tuple[int, int]
) -> None:
    assert compare(inst, dfn) == expected


def test_instigator_needs_one_more_cube_than_dice_ny8() -> None:
    """Rulebook step E: "if you have 3 cubes, you can only roll 2 dice, and if only 2 cubes,
    only 1 die"."""
    two = make(owners={"MN01": 0}, cubes={"MN01": 2})
    assert [a["dice"] for a in legal(two, 0) if a.get("to") == "BX01"] == [1]
    s = make(owners={"MN01": 0}, cubes={"MN01": 3, "BX01": 2})
    acts = legal(s, 0)
    dice = sorted(a["dice"] for a in acts if a["type"] == "attack" and a["to"] == "BX01")
    assert dice == [1, 2]
    assert rejected(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3}) == (
        "action/illegal"
    )
    s1 = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 1, "MN02": 2})
    assert rejected(s1, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 1}) == (
        "action/illegal"
    )


def test_attack_only_adjacent_enemy() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 5})
    assert rejected(s, 0, {"type": "attack", "from": "MN01", "to": "BX02", "dice": 1}) == (
        "action/illegal"
    )
    assert rejected(s, 0, {"type": "attack", "from": "MN01", "to": "MN02", "dice": 1}) == (
        "action/illegal"
    )
    assert rejected(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 4}) == (
        "action/illegal"
    )


def test_roll_labels_and_defender_choice_ny8() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 5, "BX01": 3}, turn=7, attacks=2)
    s, ev = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    assert types(ev) == ["attack_declared"]
    node = GAME.next(s)
    assert isinstance(node, Turn) and node.seats == (1,)  # the defender decides (NY-8)
    assert legal(s, 1) == [
        {"type": "defend", "dice": 1},
        {"type": "defend", "dice": 2},
    ]
    assert GAME.default_action(s, 1) == {"type": "defend", "dice": 2}
    assert rejected(s, 0, {"type": "defend", "dice": 2}) == "action/not_your_turn"
    s, _ = act(s, 1, {"type": "defend", "dice": 1})
    node = GAME.next(s)
    assert node == Chance(label="dice:turn:7:attack:3:instigator", draw="dice", n=6, count=3)
    s, ev = deal(s, [1, 1, 1])
    node = GAME.next(s)
    assert node == Chance(label="dice:turn:7:attack:3:defender", draw="dice", n=6, count=1)
    s, ev = deal(s, [1])
    assert ev[0].data["instigator_losses"] == 1 and ev[0].data["defender_losses"] == 0
    assert cubes_of(s, "MN01") == 4 and cubes_of(s, "BX01") == 3


def test_defender_with_one_cube_rolls_one_die_without_a_turn_ny8() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 5, "BX01": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 2})
    s, _ = deal(s, [2, 2])
    node = GAME.next(s)
    assert isinstance(node, Chance) and node.count == 1 and node.label.endswith(":defender")


def test_defender_choice_can_be_switched_off_ny8() -> None:
    s = make(
        owners={"MN01": 0, "MN02": 0},
        cubes={"MN01": 5, "BX01": 4},
        options={"defender_chooses_dice": False},
    )
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 6, 6])
    node = GAME.next(s)
    assert isinstance(node, Chance) and node.count == 2


def test_conquest_moves_in_at_least_the_dice_and_leaves_one_ny9() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 6, "BX01": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 5, 1])
    s, ev = deal(s, [3])
    assert types(ev)[:2] == ["battle", "conquered"]
    # the three rolled cubes are in at once: no neighborhood is ever empty
    assert owner_of(s, "BX01") == 0 and cubes_of(s, "BX01") == 3 and cubes_of(s, "MN01") == 3
    assert s.phase == "move_in"
    assert legal(s, 0) == [{"type": "move_in", "n": 3}, {"type": "move_in", "n": 5}]
    assert rejected(s, 0, {"type": "move_in", "n": 2}) == "action/illegal"  # < dice rolled
    assert rejected(s, 0, {"type": "move_in", "n": 6}) == "action/illegal"  # none left behind
    s2, _ = act(s, 0, {"type": "move_in", "n": 4})
    assert cubes_of(s2, "BX01") == 4 and cubes_of(s2, "MN01") == 2
    assert s2.conquered


def test_conquest_with_exactly_dice_plus_one_needs_no_move_in_ny9() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 3, "MN02": 3, "BX01": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 2})
    s, _ = deal(s, [6, 6])
    s, _ = deal(s, [1])
    assert cubes_of(s, "BX01") == 2 and cubes_of(s, "MN01") == 1
    assert s.phase == "attack" and s.move_in is None


def test_elimination_gives_cards_to_the_eliminator_ny7() -> None:
    s = make(
        owners={"MN01": 0, "BX01": 2},
        cubes={"MN01": 4, "BX01": 1},
        hands=(("MN05",), (), ("RW1", "QN01")),
    )
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 6, 6])
    s, ev = deal(s, [1])
    assert "eliminated" in types(ev)
    assert s.hands[0] == ("MN05", "RW1", "QN01") and s.hands[2] == ()
    taken = next(e for e in ev if e.type == "cards_taken")
    assert taken.visible_to == (0, 2)
    public = next(e for e in ev if e.type == "eliminated")
    assert public.visible_to is None and public.data["cards"] == 2 and "RW1" not in str(public.data)
    assert not s.alive(2)


def test_elimination_cards_to_discard_option_ny7() -> None:
    s = make(
        owners={"MN01": 0, "BX01": 2},
        cubes={"MN01": 4, "BX01": 1},
        hands=((), (), ("RW1", "QN01")),
        options={"eliminated_cards": "discard"},
    )
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 6, 6])
    s, ev = deal(s, [1])
    assert s.hands[0] == () and s.discard == ("RW1", "QN01")
    assert "cards_taken" not in types(ev)


def test_eliminated_player_is_skipped_in_turn_order() -> None:
    s = make(owners={"MN01": 0, "BX01": 1}, fill_owner=2, cubes={"MN01": 4, "BX01": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 6, 6])
    s, _ = deal(s, [1])
    assert not s.alive(1) and s.phase == "attack"
    s, _ = act(s, 0, {"type": "end_attack"})
    assert s.phase == "fortify"
    s, ev = act(s, 0, {"type": "end_turn"})
    assert s.current == 2 and s.phase == "reinforce"  # seat 1 is skipped
    assert types(ev)[:2] == ["turn_ended", "card_awarded"]


def test_whole_map_wins_immediately_ny12() -> None:
    s = make(owners={"BX01": 1}, fill_owner=0, cubes={"MN01": 4, "BX01": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "MN01", "to": "BX01", "dice": 3})
    s, _ = deal(s, [6, 6, 6])
    s, ev = deal(s, [1])
    assert s.phase == "over" and s.winner == 0 and s.win_reason == "map"
    assert types(ev)[-1] == "game_over"
    out = GAME.score(s)
    assert out.winners == (0,)
    assert [r.place for r in out.results] == [1, 3, 2]  # seat 2 was eliminated later


def test_mission_win_checked_after_every_conquest_ny12() -> None:
    """Seat 0 holds mission O1 (Manhattan + Staten Island) and takes the last SI neighborhood."""
    manhattan = {f"MN{i:02d}": 0 for i in range(1, 13)}
    si = {"SI01": 0, "SI02": 0, "SI03": 0, "SI04": 1}
    s = make(owners=manhattan | si, cubes={"SI02": 4, "SI04": 1}, options={"missions": True})
    assert s.missions[0] == "O1"
    s, _ = act(s, 0, {"type": "attack", "from": "SI02", "to": "SI04", "dice": 3})
    s, _ = deal(s, [5, 5, 5])
    s, ev = deal(s, [4])
    assert s.phase == "over" and s.winner == 0 and s.win_reason == "mission"
    over = next(e for e in ev if e.type == "game_over")
    assert over.visible_to is None and over.data["mission"] == "O1"
    v = view_of(s, 1)
    assert v["winner_mission"] == {"id": "O1", "boroughs": ["manhattan", "staten_island"]}


def test_mission_not_won_without_the_variant_ny12() -> None:
    manhattan = {f"MN{i:02d}": 0 for i in range(1, 13)}
    si = {"SI01": 0, "SI02": 0, "SI03": 0, "SI04": 1}
    s = make(owners=manhattan | si, cubes={"SI02": 5, "SI04": 1})
    s, _ = act(s, 0, {"type": "attack", "from": "SI02", "to": "SI04", "dice": 3})
    s, _ = deal(s, [5, 5, 5])
    s, _ = deal(s, [4])
    assert s.phase == "move_in" and s.winner is None


def test_mission_complete_at_start_of_turn_wins_ny12() -> None:
    """A mission already satisfied (e.g. at setup) wins at the start of that player's turn."""
    queens_bronx_si = {
        n: 1
        for n in (
            "QN01",
            "QN02",
            "QN03",
            "QN04",
            "QN05",
            "QN06",
            "QN07",
            "BX01",
            "BX02",
            "BX03",
            "BX04",
            "BX05",
            "BX06",
            "SI01",
            "SI02",
            "SI03",
            "SI04",
        )
    }
    # seat 1 holds Queens + The Bronx + Staten Island = mission O5; seat 0 ends its turn
    s = make(
        owners=queens_bronx_si | {"MN01": 0, "MN02": 0},
        fill_owner=2,
        options={"missions": True},
        missions=("O1", "O5", "O2"),
        phase="fortify",
        cubes={"MN01": 2},
    )
    s, ev = act(s, 0, {"type": "end_turn"})
    assert s.phase == "over" and s.winner == 1 and s.win_reason == "mission"
    assert "turn_started" not in types(ev)
