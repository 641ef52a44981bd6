"""Nation claiming (RULEBOOK §9): the five-player example, E-14, E-15, ER-1."""

from __future__ import annotations

import pytest

from shared.rules.api import Chance, ChanceOutcome, JointAction, SealedSlot, Simultaneous
from shared.rules.empire import GAME

pytestmark = pytest.mark.unit

JIMMY, JALEN, CHRIS, RAY, JUWAN = range(5)
OTTOMANS, VENICE, PORTUGAL, NETHERLANDS, SPAIN, FRANCE, BRITAIN, PRUSSIA = range(8)
# "The Ottomans, the Netherlands, Great Britain, France, and Venice are dealt out."
EXAMPLE_DEAL = (OTTOMANS, NETHERLANDS, BRITAIN, FRANCE, VENICE, PORTUGAL, SPAIN, PRUSSIA)


def test_rulebook_five_player_claiming_example_er1(drv) -> None:
    """The worked example, with ER-1: the Netherlands is number 3, not 2."""
    state, _ = drv.start(5, "standard", nations=EXAMPLE_DEAL)
    node = GAME.next(state)
    assert isinstance(node, Simultaneous) and node.round_id == "claim:1"
    assert [s.key for s in node.slots] == ["s0", "s1", "s2", "s3", "s4"]
    assert node.slots[0].allowed == (0, 1, 3, 5, 6)  # E-14: only nations in the market
    assert node.slots[0].default == 0
    # E-S1 (docs/rulings-server.md): every seat times out to a different nation
    assert [s.default for s in node.slots] == [0, 1, 3, 5, 6]

    # ER-1: Jimmy's "number 2" would be Portugal, which was not dealt: illegal (E-14).
    assert not GAME.check_choice(node.slots[JIMMY], PORTUGAL)
    bad = JointAction(round_id="claim:1", choices={"s0": 2, "s1": 5, "s2": 5, "s3": 0, "s4": 6})
    assert drv.rejected(state, bad) == "action/illegal"

    # Round 1: Jalen and Chris both select France; nobody selects Venice.
    state, events = drv.joint(state, [NETHERLANDS, FRANCE, FRANCE, OTTOMANS, BRITAIN])
    reveal = drv.of(events, "claim_revealed")[0]
    assert reveal["collision"] is True
    assert reveal["contested"] == [FRANCE] and reveal["unselected"] == [VENICE]
    assert state.phase == "claim" and state.nations == (None,) * 5
    stacks = dict(zip(state.claim.market, state.claim.stacks, strict=True))
    assert (stacks[FRANCE].supporters, stacks[FRANCE].revolts) == (1, 2)  # +1 revolt
    assert (stacks[VENICE].supporters, stacks[VENICE].revolts) == (2, 1)  # +1 supporter
    assert (stacks[NETHERLANDS].supporters, stacks[NETHERLANDS].revolts) == (1, 1)

    # Round 2: everyone distinct -> every seat claims.
    assert GAME.next(state).round_id == "claim:2"
    state, events = drv.joint(state, [NETHERLANDS, VENICE, FRANCE, OTTOMANS, BRITAIN])
    assert state.nations == (NETHERLANDS, VENICE, FRANCE, OTTOMANS, BRITAIN)
    claimed = {e["seat"]: e for e in drv.of(events, "nation_claimed")}
    assert claimed[JIMMY]["name"] == "The Netherlands"
    assert claimed[JIMMY]["support_taken"] == {"supporters": 1, "revolts": 1}
    assert claimed[JIMMY]["starting_cards"] == {
        "gold": 15,
        "goods": 1,
        "populations": 2,
        "colonies": 1,
        "bonds": 4,
    }
    assert claimed[JALEN]["support_taken"] == {"supporters": 2, "revolts": 1}
    assert claimed[CHRIS]["support_taken"] == {"supporters": 1, "revolts": 2}
    assert claimed[JUWAN]["name"] == "Great Britain"  # ER-7: same nation as "Britain"
    # The first round begins at once with its development.
    assert state.phase == "commerce" and state.round == 1 and state.claim is None


def test_e15_france_takes_its_claim_stack_plus_five_revolts(drv) -> None:
    state, _ = drv.start(5, "standard", nations=EXAMPLE_DEAL)
    state, _ = drv.joint(state, [NETHERLANDS, FRANCE, FRANCE, OTTOMANS, BRITAIN])
    state, events = drv.joint(state, [NETHERLANDS, VENICE, FRANCE, OTTOMANS, BRITAIN])
    france = next(e for e in drv.of(events, "nation_claimed") if e["seat"] == CHRIS)
    assert france["starting_cards"] == {
        "revolts": 5,
        "gold": 10,
        "goods": 2,
        "populations": 4,
        "colonies": 2,
        "bonds": 4,
    }
    # After round-1 development: 2 luxuries (+2 supporters), 2 industries (+2 goods),
    # no cathedral (no populations left), 4 bonds paid from 10 gold.
    h = state.holdings[CHRIS]
    assert (h.supporters, h.revolts) == (1 + 2, 2 + 5)
    assert (h.goods, h.populations, h.colonies, h.bonds, h.gold) == (2, 4, 2, 4, 6)


def test_e14_unlimited_reselection_by_default(drv) -> None:
    state, _ = drv.start(2, "standard")
    for k in range(1, 6):
        assert GAME.next(state).round_id == f"claim:{k}"
        state, _ = drv.joint(state, [0, 0])
    stacks = state.claim.stacks
    assert (stacks[0].supporters, stacks[0].revolts) == (1, 6)
    assert (stacks[1].supporters, stacks[1].revolts) == (6, 1)
    assert state.phase == "claim"


def test_e14_collision_cap_assigns_colliders_by_a_dealer_shuffle(drv) -> None:
    state, _ = drv.start(4, "standard", claim_collision_cap=2)
    state, _ = drv.joint(state, [0, 0, 1, 2])  # collision 1
    state, events = drv.joint(state, [0, 3, 3, 2])  # collision 2 = the cap
    assert drv.of(events, "claim_revealed")[0]["random_assignment"] is True
    node = GAME.next(state)
    assert node == Chance(label="claim:assign", draw="shuffle", n=2)
    # Seat 0 and seat 3 keep their unique picks; seats 1 and 2 share the free 1 and 3.
    assert drv.rejected(state, ChanceOutcome(label="claim:assign", values=(0, 0))) == (
        "action/malformed"
    )
    state, events = drv.chance(state, "claim:assign", [1, 0])
    assert drv.of(events, "claim_assigned") == [{"assigned": {"1": 3, "2": 1}}]
    assert state.nations == (0, 3, 1, 2)
    assert state.phase == "commerce"


def test_claim_choices_must_be_integers_e14() -> None:
    slot = SealedSlot(seat=0, key="s0", allowed=(0, 1), default=0)
    assert GAME.check_choice(slot, 1)
    assert not GAME.check_choice(slot, True)
    assert not GAME.check_choice(slot, 1.0)
    assert not GAME.check_choice(slot, "1")


def test_joint_action_validation(drv) -> None:
    state, _ = drv.start(3, "standard")
    wrong_round = JointAction(round_id="claim:2", choices={"s0": 0, "s1": 1, "s2": 2})
    assert drv.rejected(state, wrong_round) == "action/unknown_round"
    missing = JointAction(round_id="claim:1", choices={"s0": 0, "s1": 1})
    assert drv.rejected(state, missing) == "action/malformed"
    extra = JointAction(round_id="claim:1", choices={"s0": 0, "s1": 1, "s2": 2, "s3": 0})
    assert drv.rejected(state, extra) == "action/malformed"
    bad_default = JointAction(
        round_id="claim:1", choices={"s0": 0, "s1": 1, "s2": 2}, defaulted=("s9",)
    )
    assert drv.rejected(state, bad_default) == "action/malformed"
    state2, events = drv.joint(state, [0, 1, 2], defaulted=["s1"])
    assert drv.of(events, "claim_revealed")[0]["defaulted"] == ["s1"]
    assert state2.nations == (0, 1, 2)
