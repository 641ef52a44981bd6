"""Who deals (CG-3 with CG-S3) and the perfect-deal bonus (CG-2 with CG-S4).

The rulebook: "To determine who goes first all players play paper scissors rock to determine a
winner and that person deals", and "If the dealer does a perfect deal ... they immediately pick
up 2 additional cards". RULINGS CG-3 / CG-2 keep a random first dealer and no bonus by
default; the rulebook's way is a table option: sealed rock-paper-scissors rounds, and a public
1-in-7 draw for the dealer's grab."""

from __future__ import annotations

from typing import Any

import pytest

from shared.ai.empire_cards.bot import HeuristicBot
from shared.rules.api import (
    Chance,
    ChanceOutcome,
    JointAction,
    Rejection,
    Simultaneous,
    Transition,
)
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.match import RPS_ROUNDS, SHAPES
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.unit


def start(n: int = 3, **options: Any) -> State:
    return GAME.setup(options, n)  # type: ignore[no-any-return]


def joint(state: State, shapes: dict[int, str]) -> Transition | Rejection:
    node = GAME.next(state)
    assert isinstance(node, Simultaneous)
    return GAME.apply(state, JointAction(round_id=node.round_id,
                                         choices={f"s{s}": v for s, v in shapes.items()}))


def ok(res: Transition | Rejection) -> State:
    assert isinstance(res, Transition), res
    return res.state  # type: ignore[no-any-return]


def test_cg3_default_is_one_random_draw_over_every_seat() -> None:
    node = GAME.next(start(4))
    assert isinstance(node, Chance) and node.label == "hand:1:dealer" and node.n == 4
    st = ok(GAME.apply(start(4), ChanceOutcome(label="hand:1:dealer", values=(2,))))
    assert st.dealer == 2 and st.active == 2 and st.phase == "shuffle"


def test_cg_s3_rock_paper_scissors_is_a_sealed_round_of_every_seat() -> None:
    node = GAME.next(start(3, first_dealer="rps"))
    assert isinstance(node, Simultaneous) and node.round_id == "hand:1:rps:1"
    assert not node.ordered  # everyone shows at once
    assert [s.key for s in node.slots] == ["s0", "s1", "s2"]
    assert all(s.allowed == SHAPES and s.default in SHAPES for s in node.slots)


def test_cg_s3_the_winning_shape_stays_in_until_one_seat_is_left() -> None:
    st = start(3, first_dealer="rps")
    res = joint(st, {0: "rock", 1: "paper", 2: "paper"})  # paper covers rock
    st = ok(res)
    assert st.phase == "dealer" and st.rps_seats == (1, 2)
    assert [e.data for e in res.events if e.type == "rps"] == [  # type: ignore[union-attr]
        {"hand": 1, "round": 1, "shapes": {"0": "rock", "1": "paper", "2": "paper"},
         "stay": [1, 2]}]
    node = GAME.next(st)
    assert isinstance(node, Simultaneous) and node.round_id == "hand:1:rps:2"
    assert [s.seat for s in node.slots] == [1, 2]  # seat 0 is out
    st = ok(joint(st, {1: "paper", 2: "scissors"}))  # scissors cut paper
    assert st.dealer == 2 and st.active == 2 and st.phase == "shuffle"
    assert st.rps_round == 0 and st.rps_seats == ()  # ready for the next hand


@pytest.mark.parametrize("shapes", [{0: "rock", 1: "rock", 2: "rock"},
                                    {0: "rock", 1: "paper", 2: "scissors"}])
def test_cg_s3_one_or_three_shapes_is_a_draw(shapes: dict[int, str]) -> None:
    st = ok(joint(start(3, first_dealer="rps"), shapes))
    assert st.phase == "dealer" and st.rps_round == 1 and st.rps_seats == (0, 1, 2)


def test_cg_s3_after_nine_draws_a_random_seat_of_those_still_in_deals() -> None:
    st = ok(joint(start(4, first_dealer="rps"), {0: "rock", 1: "rock", 2: "paper", 3: "paper"}))
    assert st.rps_seats == (2, 3)
    for _ in range(RPS_ROUNDS - 1):
        st = ok(joint(st, {2: "rock", 3: "rock"}))
    node = GAME.next(st)
    assert isinstance(node, Chance) and node.label == "hand:1:dealer" and node.n == 2
    st = ok(GAME.apply(st, ChanceOutcome(label="hand:1:dealer", values=(1,))))
    assert st.dealer == 3


def test_cg_s3_a_shape_that_is_not_one_is_refused_and_changes_nothing() -> None:
    st = start(3, first_dealer="rps")
    res = joint(st, {0: "rock", 1: "lizard", 2: "paper"})
    assert isinstance(res, Rejection)
    assert GAME.encode(st) == GAME.encode(start(3, first_dealer="rps"))


def test_cg_s3_the_bot_shows_a_shape() -> None:
    st = start(3, first_dealer="rps")
    node = GAME.next(st)
    assert isinstance(node, Simultaneous)
    bot = HeuristicBot()
    for slot in node.slots:
        assert bot.choose(GAME.view(st, slot.seat), slot, slot.seat, {}) in SHAPES


def dealt(**options: Any) -> State:
    st = ok(GAME.apply(start(3, **options), ChanceOutcome(label="hand:1:dealer", values=(1,))))
    node = GAME.next(st)
    assert isinstance(node, Chance) and node.label == "hand:1:deal"
    return ok(GAME.apply(st, ChanceOutcome(label="hand:1:deal", values=tuple(range(node.n)))))


def test_cg2_default_no_bonus_and_play_starts() -> None:
    st = dealt()
    assert st.phase == "play" and len(st.players[1].hand) == 10


@pytest.mark.parametrize(("value", "bonus"), [(3, 2), (0, 0), (6, 0)])
def test_cg_s4_perfect_deal_takes_two_more_cards(value: int, bonus: int) -> None:
    st = dealt(perfect_deal=True)
    node = GAME.next(st)
    assert isinstance(node, Chance) and node.label == "hand:1:grab" and node.n == 7
    assert not node.secret  # the grab is public
    deck = st.deck
    res = GAME.apply(st, ChanceOutcome(label="hand:1:grab", values=(value,)))
    after = ok(res)
    assert after.phase == "play" and after.active == 1
    assert len(after.players[1].hand) == 10 + bonus
    assert after.deck == deck[bonus:]  # from the top of the deck
    (e,) = [e for e in res.events if e.type == "perfect_deal"]  # type: ignore[union-attr]
    assert e.data == {"hand": 1, "seat": 1, "perfect": bonus > 0, "extra": bonus}
    drew = [e for e in res.events if e.type == "drew"]  # type: ignore[union-attr]
    assert all(e.visible_to == (1,) for e in drew)  # the cards only to the dealer
