"""Views and hidden information (EEND-21): screens, hands and the deck stay private."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from shared.rules.empires_end import scenario as sc
from shared.rules.empires_end.data import CARD_IDS
from shared.rules.empires_end.state import State

pytestmark = pytest.mark.unit


def cards_in(view: dict[str, object]) -> set[str]:
    text = json.dumps(view)
    return {c for c in CARD_IDS if f'"{c}"' in text}


def hide_test_state() -> State:
    state = sc.new_game(3, deck=["famine-6"])
    state = sc.set_empire(state, 1, innovations={"city": ["riots-4"]})
    return sc.set_res(state, 2, wheat=3, coin=1)


def test_view_contents() -> None:
    state = hide_test_state()
    v = sc.view(state, 2)
    assert (v["game"], v["phase"], v["seat"], v["n_seats"]) == ("empires-end", "disaster", 2, 3)
    assert v["you"] == {
        "resources": {"wheat": 3, "hammer": 0, "axe": 0, "coin": 1},
        "hand": list(state.players[2].hand),
    }
    players = v["players"]
    assert isinstance(players, list) and len(players) == 3
    assert players[1]["empire"][0]["innovations"] == [{"card": "riots-4", "exhausted": False}]
    assert all("resources" not in p and "hand" not in p for p in players)
    assert v["disaster"]["slots"][0]["card"] == "famine-6"
    assert v["awaiting"] == [0]
    spectator = sc.view(state, None)
    assert "you" not in spectator and spectator["seat"] is None


def test_no_view_shows_another_seats_secrets_eend_21() -> None:
    """EEND-21: change one seat's stash and hand and the deck order: every other seat's view and
    the spectator view are unchanged."""
    state = hide_test_state()
    for seat in range(3):
        other = sc.set_res(state, seat, wheat=9, hammer=9, axe=9, coin=9)
        deck = other.deck
        other = sc.with_player(other, seat, replace(other.players[seat], hand=deck[:4]))
        other = replace(other, deck=(*reversed(deck[4:]), *state.players[seat].hand))
        for viewer in (None, 0, 1, 2):
            if viewer == seat:
                assert sc.view(other, viewer) != sc.view(state, viewer)
            else:
                assert sc.view(other, viewer) == sc.view(state, viewer)


def test_only_own_and_public_cards_are_visible_eend_21() -> None:
    state = hide_test_state()
    public = {"famine-6", "riots-4"}
    for viewer in (None, 0, 1, 2):
        own = set(state.players[viewer].hand) if viewer is not None else set()
        assert cards_in(sc.view(state, viewer)) == public | own
