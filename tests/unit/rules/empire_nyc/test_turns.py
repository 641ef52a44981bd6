"""Setup (NY-1, NY-2, NY-13), reinforcements A + B + C (NY-3, NY-5, NY-6), cards (NY-4),
the free move (NY-10), supply (NY-11) and optional links (NY-14)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from shared.rules.api import Chance, RuleError, Turn
from shared.rules.empire_nyc import GAME, board
from tests.unit.rules.empire_nyc.helpers import (
    act,
    cubes_of,
    deal,
    legal,
    make,
    rejected,
    types,
    view_of,
)

pytestmark = pytest.mark.unit


# ---------------------------------------------------------------------------- setup


@pytest.mark.parametrize("n", [2, 7])
def test_player_count_is_3_to_6_ny13(n: int) -> None:
    with pytest.raises(RuleError):
        GAME.setup({}, n)


def test_bad_options_raise() -> None:
    with pytest.raises(RuleError):
        GAME.setup({"eliminated_cards": "burn"}, 3)
    with pytest.raises(RuleError):
        GAME.setup({"no_such_flag": True}, 3)


def test_setup_first_player_deal_and_one_cube_at_a_time_ny1_ny2() -> None:
    s = GAME.setup({}, 4)
    assert GAME.next(s) == Chance(label="setup:first_player", draw="below", n=4)
    s, _ = deal(s, [2])
    assert s.order == (2, 3, 0, 1)
    node = GAME.next(s)
    assert node == Chance(label="deal:neighborhoods", draw="shuffle", n=42)
    s, ev = deal(s, list(range(42)))
    # NY-1: dealt from the first player on; 42 = 4 x 10 + 2 -> seats 2 and 3 get 11
    held = Counter(s.owner)
    assert held == {2: 11, 3: 11, 0: 10, 1: 10}
    assert s.owner[0] == 2 and s.owner[1] == 3 and s.owner[2] == 0 and s.owner[41] == 3
    assert s.to_place == (20, 20, 19, 19)  # 30 starting cubes (4 players) minus one per card
    assert all(c == 1 for c in s.cubes)
    assert ev[0].visible_to is None
    placed: list[int] = []
    while s.phase == "setup_place":
        node = GAME.next(s)
        assert isinstance(node, Turn)
        seat = node.seats[0]
        acts = legal(s, seat)
        assert all(a["n"] == 1 for a in acts)
        assert rejected(s, seat, {"type": "place", "nb": acts[0]["nb"], "n": 2}) == (
            "action/illegal"
        )
        placed.append(seat)
        s, _ = act(s, seat, acts[0])
    assert placed[:8] == [2, 3, 0, 1, 2, 3, 0, 1]  # turn order
    assert placed[-2:] == [0, 1]  # seats 2 and 3 ran out first
    assert len(placed) == 78
    assert Counter(placed) == {0: 20, 1: 20, 2: 19, 3: 19}
    assert sum(s.cubes) == 120
    node = GAME.next(s)
    assert node == Chance(label="deck:draw:shuffle:0", draw="shuffle", n=44, secret=True)
    s, ev = deal(s, list(range(44)))
    assert sorted(s.deck) == sorted(board.CARD_IDS) and "RW1" in s.deck  # NY-2
    assert s.phase == "reinforce" and s.current == 2 and s.turn == 1
    assert s.pool == 3 and ev[-1].data["reinforcements"] == 3  # 11 // 3 = 3
    assert "deck" not in view_of(s, 2) and view_of(s, 2)["deck_size"] == 44


@pytest.mark.parametrize(("n", "cubes"), [(3, 35), (4, 30), (5, 25), (6, 20)])
def test_starting_cubes_by_player_count(n: int, cubes: int) -> None:
    s = GAME.setup({}, n)
    s, _ = deal(s, [0])
    s, _ = deal(s, list(range(42)))
    assert sum(s.to_place) + 42 == n * cubes


def test_missions_are_dealt_secretly_ny12() -> None:
    s = GAME.setup({"missions": True}, 3)
    s, _ = deal(s, [0])
    s, _ = deal(s, list(range(42)))
    node = GAME.next(s)
    assert node == Chance(label="deal:missions", draw="shuffle", n=6, secret=True)
    s, ev = deal(s, [5, 3, 1, 0, 2, 4])
    assert s.missions == ("O6", "O4", "O2")
    private = [e for e in ev if e.type == "mission"]
    assert [(e.visible_to, e.data["mission"]) for e in private] == [
        ((0,), "O6"),
        ((1,), "O4"),
        ((2,), "O2"),
    ]
    public = [e for e in ev if e.visible_to is None]
    assert all("O" not in str(e.data) for e in public)
    assert view_of(s, 1)["mission"] == {"id": "O4", "boroughs": ["brooklyn", "bronx"]}
    assert "mission" not in view_of(s, None)


# ---------------------------------------------------------------------------- reinforcements


def _start_turn_of_seat0(**kw: object) -> tuple[object, tuple[object, ...]]:
    s = make(phase="fortify", current=2, **kw)  # type: ignore[arg-type]
    return act(s, 2, {"type": "end_turn"})


@pytest.mark.parametrize(
    ("owned", "expected"),
    [
        (["MN01"], 3),  # 1 // 3 = 0 -> minimum 3
        ([f"MN{i:02d}" for i in (1, 2, 3, 4, 5, 6, 7, 8)], 3),  # 8 // 3 = 2 -> 3
        ([f"BK0{i}" for i in range(1, 10)] + ["MN01", "MN02"], 3 + 5),  # 11//3 + Brooklyn
        ([f"MN{i:02d}" for i in range(1, 13)] + ["BX01", "BX02"], 4 + 10),  # 14//3 + Manhattan
        (
            [f"MN{i:02d}" for i in range(1, 13)]
            + [f"NJ0{i}" for i in range(1, 5)]
            + [f"SI0{i}" for i in range(1, 5)]
            + ["QN01"],
            7 + 10 + 2 + 2,
        ),  # 21 nbs, 3 boroughs
    ],
)
def test_reinforcement_arithmetic_a_plus_b(owned: list[str], expected: int) -> None:
    s, ev = _start_turn_of_seat0(owners=dict.fromkeys(owned, 0))
    assert s.phase == "reinforce" and s.current == 0  # type: ignore[attr-defined]
    assert s.pool == expected  # type: ignore[attr-defined]
    assert ev[-1].data["reinforcements"] == expected  # type: ignore[attr-defined]


def test_minimum_three_applies_to_part_a_only_ny3() -> None:
    """7 neighborhoods incl. all of Staten Island: A = max(3, 7 // 3 = 2) = 3, B = 2 -> 5
    (a minimum on the total would give max(3, 2 + 2) = 4)."""
    owned = ["SI01", "SI02", "SI03", "SI04", "MN01", "MN02", "MN03"]
    s, ev = _start_turn_of_seat0(owners=dict.fromkeys(owned, 0))
    assert s.pool == 5  # type: ignore[attr-defined]
    assert ev[-1].data["base"] == 3 and ev[-1].data["boroughs"] == {"staten_island": 2}  # type: ignore[attr-defined]


def test_set_values_escalate_globally_ny5() -> None:
    assert [board.set_value(k) for k in range(10)] == [4, 6, 8, 10, 12, 15, 20, 25, 30, 35]
    hands = (("MN01", "MN02", "MN05"), ("MN03", "MN04", "MN09"), ())
    s = make(owners={"MN10": 0, "MN11": 1}, phase="reinforce", pool=3, hands=hands)
    s, ev = act(s, 0, {"type": "trade", "cards": ["MN01", "MN02", "MN05"]})
    assert s.pool == 3 + 4 and s.sets_traded == 1 and s.hands[0] == ()
    assert ev[0].data == {"seat": 0, "cards": ["MN01", "MN02", "MN05"], "value": 4, "set_number": 1}
    # the counter is global: the next set, by another player, is worth 6
    s = replace(s, current=1, pool=3)
    s, ev = act(s, 1, {"type": "trade", "cards": ["MN03", "MN04", "MN09"]})
    assert s.pool == 3 + 6 and s.sets_traded == 2
    assert s.discard == ("MN01", "MN02", "MN05", "MN03", "MN04", "MN09")


@pytest.mark.parametrize(
    ("cards", "valid"),
    [
        (("MN01", "MN02", "MN05"), True),  # squirrel x3
        (("MN01", "MN03", "MN06"), True),  # squirrel, rat, pigeon
        (("MN01", "MN02", "MN03"), False),  # two squirrels + rat
        (("MN01", "MN03", "RW1"), True),  # wild completes one of each
        (("MN01", "MN02", "RW2"), True),  # wild completes three of a kind
        (("MN01", "RW1", "RW2"), True),
        (("MN01", "MN01", "MN02"), False),  # the same card twice
    ],
)
def test_card_sets_with_river_wild(cards: tuple[str, str, str], valid: bool) -> None:
    assert board.is_set(cards) is valid


def test_trade_rejections() -> None:
    s = make(
        owners={"MN10": 0},
        phase="reinforce",
        pool=3,
        hands=(("MN01", "MN02", "MN03", "RW1"), (), ()),
    )
    assert rejected(s, 0, {"type": "trade", "cards": ["MN01", "MN02", "MN03"]}) == (
        "action/illegal"
    )
    assert rejected(s, 0, {"type": "trade", "cards": ["MN01", "MN02", "MN05"]}) == (
        "action/illegal"
    )  # MN05 not held
    assert rejected(s, 0, {"type": "trade", "cards": ["MN01", "MN02", "XX"]}) == (
        "action/malformed"
    )
    assert rejected(s, 0, {"type": "trade", "cards": ["MN01", "MN02"]}) == "action/malformed"
    trades = [a for a in legal(s, 0) if a["type"] == "trade"]
    assert {tuple(t["cards"]) for t in trades} == {("MN01", "MN02", "RW1"), ("MN01", "MN03", "RW1")}
    # a non-canonical set is accepted too
    s2, _ = act(s, 0, {"type": "trade", "cards": ["MN02", "MN03", "RW1"]})
    assert s2.hands[0] == ("MN01",)


def test_trading_is_optional_no_hand_limit_no_territory_bonus_ny6() -> None:
    hand = ("MN01", "MN02", "MN05", "MN07", "MN10", "BX01")  # six squirrels
    s = make(owners={"MN01": 0, "MN02": 0}, phase="reinforce", pool=3, hands=(hand, (), ()))
    acts = legal(s, 0)
    assert any(a["type"] == "place" for a in acts)
    s_placed, _ = act(s, 0, {"type": "place", "nb": "MN01", "n": 3})
    assert s_placed.hands[0] == hand and s_placed.phase != "reinforce"
    # trading cards of neighborhoods you occupy gives no bonus: exactly the set value
    s_traded, _ = act(s, 0, {"type": "trade", "cards": ["MN01", "MN02", "MN05"]})
    assert s_traded.pool == 3 + 4
    assert cubes_of(s_traded, "MN01") == 1


def test_forced_trade_flag_at_five_cards_ny6() -> None:
    hand = ("MN01", "MN02", "MN05", "MN07", "MN03")
    s = make(
        owners={"MN01": 0},
        phase="reinforce",
        pool=3,
        hands=(hand, (), ()),
        options={"forced_trade": True},
    )
    acts = legal(s, 0)
    assert acts and all(a["type"] == "trade" for a in acts)
    assert rejected(s, 0, {"type": "place", "nb": "MN01", "n": 3}) == "action/illegal"
    assert view_of(s, 0)["must_trade"] is True
    assert GAME.default_action(s, 0) in acts
    s, _ = act(s, 0, acts[0])
    assert len(s.hands[0]) == 2
    assert any(a["type"] == "place" for a in legal(s, 0))


def test_placing_reinforcements_and_unlimited_supply_ny11() -> None:
    """NY-11: integer counts, unlimited supply: 300 cubes on the map, still reinforced."""
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN02": 300}, phase="reinforce", pool=12)
    assert rejected(s, 0, {"type": "place", "nb": "MN01", "n": 13}) == "action/illegal"
    assert rejected(s, 0, {"type": "place", "nb": "MN01", "n": 0}) == "action/illegal"
    assert rejected(s, 0, {"type": "place", "nb": "BX01", "n": 1}) == "action/illegal"
    s, _ = act(s, 0, {"type": "place", "nb": "MN01", "n": 5})
    assert s.pool == 7 and cubes_of(s, "MN01") == 6
    s, _ = act(s, 0, {"type": "place", "nb": "MN02", "n": 7})
    assert cubes_of(s, "MN02") == 307 and s.phase == "attack"
    assert view_of(s, 1)["players"][0]["cubes"] == 313


# ---------------------------------------------------------------------------- cards


def test_one_card_per_turn_only_if_a_neighborhood_was_taken_ny4() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, cubes={"MN01": 9, "MN02": 5, "BX01": 1, "BX03": 1})
    for frm, to in (("MN01", "BX01"), ("MN02", "BX03")):
        s, _ = act(s, 0, {"type": "attack", "from": frm, "to": to, "dice": 1})
        s, _ = deal(s, [6])
        s, ev = deal(s, [1])
        assert "conquered" in types(ev)
        s, _ = act(s, 0, {"type": "move_in", "n": 1})
    assert s.conquered
    s, _ = act(s, 0, {"type": "end_attack"})
    top = s.deck[0]
    s, ev = act(s, 0, {"type": "end_turn"})
    assert s.hands[0] == (top,)  # one card for two conquests
    drawn = [e for e in ev if e.type == "card_drawn"]
    assert len(drawn) == 1 and drawn[0].visible_to == (0,) and drawn[0].data["card"] == top
    awarded = next(e for e in ev if e.type == "card_awarded")
    assert awarded.visible_to is None and top not in str(awarded.data)
    # next player conquers nothing: no card
    assert s.current == 1
    s = replace(s, phase="fortify")
    s, ev = act(s, 1, {"type": "end_turn"})
    assert s.hands[1] == () and "card_awarded" not in types(ev)


def test_empty_pile_reshuffles_the_traded_sets_ny4() -> None:
    discard = ("MN01", "MN02", "MN05", "RW1", "BX01", "QN01")
    s = make(
        owners={"MN01": 0, "MN02": 0},
        phase="fortify",
        conquered=True,
        deck=(),
        discard=discard,
        deck_shuffles=3,
    )
    s, _ = act(s, 0, {"type": "end_turn"})
    node = GAME.next(s)
    assert node == Chance(label="deck:draw:shuffle:3", draw="shuffle", n=6, secret=True)
    s, _ = deal(s, [3, 0, 1, 2, 5, 4])
    assert s.hands[0] == ("RW1",) and s.deck == ("MN01", "MN02", "MN05", "QN01", "BX01")
    assert s.discard == () and s.current == 1 and s.phase == "reinforce"


def test_no_card_when_pile_and_discard_are_empty_ny4() -> None:
    s = make(owners={"MN01": 0, "MN02": 0}, phase="fortify", conquered=True, deck=())
    s, ev = act(s, 0, {"type": "end_turn"})
    assert "no_card" in types(ev) and s.current == 1


# ---------------------------------------------------------------------------- free move


def test_one_free_move_to_an_adjacent_own_neighborhood_ny10() -> None:
    s = make(owners={"MN01": 0, "MN02": 0, "MN03": 0}, cubes={"MN01": 6}, phase="fortify")
    assert rejected(s, 0, {"type": "fortify", "from": "MN01", "to": "MN03", "n": 1}) == (
        "action/illegal"
    )  # not adjacent
    assert rejected(s, 0, {"type": "fortify", "from": "MN01", "to": "MN02", "n": 6}) == (
        "action/illegal"
    )  # must leave one
    assert rejected(s, 0, {"type": "fortify", "from": "MN01", "to": "BX01", "n": 1}) == (
        "action/illegal"
    )  # not yours
    s, ev = act(s, 0, {"type": "fortify", "from": "MN01", "to": "MN02", "n": 5})
    assert cubes_of(s, "MN01") == 1 and cubes_of(s, "MN02") == 6
    assert types(ev)[:2] == ["fortified", "turn_ended"]
    assert s.current == 1  # the move ends the turn: only one


def test_tunnels_and_ferry_off_by_default_ny14() -> None:
    s = make(owners={"MN08": 0}, cubes={"MN08": 4})
    assert rejected(s, 0, {"type": "attack", "from": "MN08", "to": "NJ02", "dice": 1}) == (
        "action/illegal"
    )
    s2 = make(owners={"MN08": 0}, cubes={"MN08": 4}, options={"extra_links": True})
    s2, ev = act(s2, 0, {"type": "attack", "from": "MN08", "to": "NJ02", "dice": 1})
    assert ev[0].data["to"] == "NJ02"
    assert "NJ02" in view_of(s2, 0)["adjacency"]["MN08"]
    assert "NJ02" not in view_of(s, 0)["adjacency"]["MN08"]


# ---------------------------------------------------------------------------- NY-S1


def test_ny_s1_the_game_ends_after_round_30_by_default() -> None:
    """NY-S1 (docs/rulings-server.md): the leader by neighborhoods, then cubes, wins."""
    assert GAME.setup({}, 3).options.max_rounds == 30
    s = make(owners={"MN01": 0, "MN02": 0}, phase="fortify", current=2, round=30)
    s = replace(s, owner=tuple(2 if o == 1 else o for o in s.owner))
    s, ev = act(s, 2, {"type": "end_turn"})
    assert s.phase == "over" and s.win_reason == "round_limit" and s.winner == 2
    assert ev[-1].type == "game_over" and ev[-1].data["reason"] == "round_limit"
    assert [r.place for r in GAME.score(s).results] == [2, 3, 1]


def test_ny_s1_rounds_count_orbits_and_the_last_round_is_complete() -> None:
    s = make(owners={"MN01": 0, "MN02": 2}, phase="fortify", current=0, round=30)
    s, _ = act(s, 0, {"type": "end_turn"})  # seat 1 still plays round 30
    assert s.phase == "reinforce" and s.current == 1 and s.round == 30
    assert view_of(s, 1)["round"] == 30
    s = make(owners={"MN01": 0}, phase="fortify", current=2, round=3)
    s, _ = act(s, 2, {"type": "end_turn"})  # wraps to seat 0: round 4
    assert s.current == 0 and s.round == 4


def test_ny_s1_a_tie_at_the_limit_shares_first_place_and_none_is_unlimited() -> None:
    owners = {nb: i % 2 if i < 40 else 2 for i, nb in enumerate(board.NB_IDS)}  # 20, 20, 2
    s = make(3, owners=owners, phase="fortify", current=2, round=30)
    s, _ = act(s, 2, {"type": "end_turn"})
    assert s.phase == "over" and s.winner is None
    assert [r.place for r in GAME.score(s).results][:2] == [1, 1]
    s = make(owners={"MN01": 0}, phase="fortify", current=2, round=500,
             options={"max_rounds": None})
    s, _ = act(s, 2, {"type": "end_turn"})
    assert s.phase == "reinforce" and s.round == 501
