"""Views (E-8, ER-4, ER-6) and state encoding."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.empire import GAME
from shared.rules.empire.state import EmpireState, Holdings

pytestmark = pytest.mark.unit


def test_e8_counts_are_public_by_default(drv) -> None:
    state = drv.at_commerce([dict(goods=2, gold=7), dict(colonies=3, revolts=1)])
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["game"] == "empire" and view["phase"] == "commerce" and view["seat"] == seat
        players = view["players"]
        assert players[0]["holdings"]["gold"] == 7 and players[1]["holdings"]["colonies"] == 3
        assert players[1]["support"] == -1
        json.dumps(view)
    assert "you" not in GAME.view(state, None)
    assert GAME.view(state, 1)["you"]["holdings"]["revolts"] == 1


def test_e8_the_sealed_slot_is_shown_to_its_own_seat_only(drv) -> None:
    state = drv.at_commerce([dict(goods=2), dict(goods=5)])
    assert GAME.view(state, 0)["sealed"] == {
        "round_id": "commerce:1",
        "slots": [
            {"key": "s0", "allowed": [0, 1, 2], "default": 0, "context": {"round": 1, "goods": 2}}
        ],
    }
    assert GAME.view(state, None)["sealed"]["slots"] == []


def mutate(state: EmpireState, seat: int) -> EmpireState:
    holdings = list(state.holdings)
    h = holdings[seat]
    holdings[seat] = replace(h, goods=h.goods + 3, revolts=h.revolts + 2)
    return replace(state, holdings=tuple(holdings))


@pytest.mark.parametrize("version", ["beginner", "standard"])
def test_e8_er4_memory_mode_hides_other_empires(version: str) -> None:
    """Take states from a real playout, change one seat's (private) stacks: no other seat's
    view and no spectator view changes."""
    states: list[Any] = []
    play(GAME, 3, {"version": version, "memory_mode": True}, seed=3,
         on_step=lambda s, m: states.append(s))  # fmt: skip
    checked = 0
    for state in states[:: max(1, len(states) // 40)]:
        if not state.holdings or state.phase in ("setup", "claim"):
            continue
        for secret in range(3):
            changed = mutate(state, secret)
            for seat in (None, 0, 1, 2):
                if seat == secret:
                    assert GAME.view(changed, seat) != GAME.view(state, seat)
                else:
                    assert GAME.view(changed, seat) == GAME.view(state, seat)
            checked += 1
        others = GAME.view(state, 0)["players"][1]
        assert others["holdings"] is None and "tradeable" not in others
    assert checked > 10


def test_er6_row_is_face_up_and_resolved_cards_are_marked(drv) -> None:
    state = drv.at_exploration([dict(gold=1), dict(gold=1)])
    row = GAME.view(state, None)["row"]
    assert [r["status"] for r in row] == [
        "shortage",
        "auction",
        "waiting",
        "waiting",
        "waiting",
        "waiting",
    ]
    assert [r["resource"] for r in row] == list(state.row)
    state, _ = drv.pass_all(state)
    statuses = [r["status"] for r in GAME.view(state, 0)["row"]]
    assert statuses[:3] == ["shortage", "done", "auction"]
    auction = GAME.view(state, 1)["auction"]
    assert auction["card"] == 2 and auction["bids"] == [0, 0] and auction["to_act"] == 0


def test_view_shows_offers_claim_market_and_whose_turn(drv) -> None:
    state, _ = drv.start(3, "standard")
    claim = GAME.view(state, 2)["claim"]
    assert [m["number"] for m in claim["market"]] == [0, 1, 2]
    assert claim["market"][0] == {
        "number": 0,
        "name": "The Ottomans",
        "institution": "protectorate",
        "supporters": 1,
        "revolts": 1,
    }
    state = drv.at_exploration([dict(goods=1), dict(), dict()], start_player=0)
    state, _ = drv.act(state, 0, {"type": "offer_trade", "to": 2, "give": {"goods": 1}})
    view = GAME.view(state, 2)
    assert view["awaiting"] == [1] and view["trading_open"] is True
    assert view["offers"] == [{"offer": 1, "from": 0, "to": 2, "give": {"goods": 1}, "get": {}}]


def test_encode_decode_round_trip_on_playout_states() -> None:
    states: list[Any] = []
    for version, n in [("beginner", 2), ("standard", 5)]:
        play(GAME, n, {"version": version}, seed=n, on_step=lambda s, m: states.append(s))
    for state in states[::7]:
        data = json.loads(json.dumps(GAME.encode(state)))
        assert GAME.decode(data) == state


def test_holdings_bundle_helpers() -> None:
    a = Holdings(goods=2, gold=5)
    b = Holdings(goods=1, revolts=1)
    assert a.plus(b) == Holdings(goods=3, gold=5, revolts=1)
    assert a.covers(Holdings(goods=2)) and not a.covers(b)
    assert a.minus(Holdings(gold=5)) == Holdings(goods=2)
    assert Holdings().is_empty() and a.nonzero() == {"goods": 2, "gold": 5}
