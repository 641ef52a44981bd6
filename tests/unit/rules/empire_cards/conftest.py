"""Table builders for Empire The Card Game rule tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from shared.rules.api import Act, Event, Json, Rejection, Transition
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.cards import sorted_cards
from shared.rules.empire_cards.match import all_cards
from shared.rules.empire_cards.state import Options, Player, Special, State


def where(state: State) -> list[str]:
    """Every card on the table, the deck and in hands (for conservation checks)."""
    cards = list(state.deck)
    for p in state.players:
        cards += [*p.hand, *p.discard]
        for group in (*p.army, *p.empire_sets, *(s.cards for s in p.specials)):
            cards += group
    return cards


def build(
    n_seats: int = 3,
    *,
    hands: dict[int, list[str]] | None = None,
    armies: dict[int, list[list[str]]] | None = None,
    empire: dict[int, list[list[str]]] | None = None,
    regimes: dict[int, str] | None = None,
    specials: dict[int, list[tuple[str, list[str]]]] | None = None,
    discards: dict[int, list[str]] | None = None,
    deck: list[str] | None = None,
    achievements: dict[int, dict[str, int]] | None = None,
    options: dict[str, Any] | None = None,
    rest_to: int | None = None,
    **update: Any,
) -> State:
    """A state in the ``play`` phase (seat 0 to act, after the first round by default).

    Unnamed cards go under ``deck`` in canonical order, or with ``rest_to=seat`` to the
    bottom of that seat's discard pile (leaving the deck exactly ``deck``), so every card is
    in exactly one place.
    """
    used: list[str] = []
    players = []
    for seat in range(n_seats):
        data: dict[str, Any] = {
            "hand": sorted_cards((hands or {}).get(seat, [])),
            "army": tuple(tuple(s) for s in (armies or {}).get(seat, [])),
            "empire_sets": tuple(tuple(s) for s in (empire or {}).get(seat, [])),
            "regime": (regimes or {}).get(seat),
            "specials": tuple(
                Special(kind=k, cards=tuple(c))  # type: ignore[arg-type]
                for k, c in (specials or {}).get(seat, [])
            ),
            "discard": tuple((discards or {}).get(seat, [])),
            **(achievements or {}).get(seat, {}),
        }
        player = Player(**data)
        players.append(player)
        used += [*player.hand, *player.discard]
        for group in (*player.army, *player.empire_sets, *(s.cards for s in player.specials)):
            used += group
    top = list(deck or [])
    assert len(set(used + top)) == len(used + top), "a card is placed twice"
    rest = [c for c in all_cards(n_seats) if c not in set(used) | set(top)]
    if rest_to is not None:
        pile = players[rest_to].discard
        players[rest_to] = replace(players[rest_to], discard=(*rest, *pile))
        rest = []
    state = State(
        n_seats=n_seats,
        options=Options(**(options or {})),
        phase="play",
        players=tuple(players),
        deck=tuple(top + rest),
        turn_no=update.pop("turn_no", n_seats),
        **update,
    )
    return state


def act(state: State, seat: int, action: dict[str, Json]) -> tuple[State, tuple[Event, ...]]:
    result = GAME.apply(state, Act(seat=seat, action=action))
    assert isinstance(result, Transition), result
    return result.state, result.events


def rejected(state: State, seat: int, action: Any) -> str:
    result = GAME.apply(state, Act(seat=seat, action=action))
    assert isinstance(result, Rejection), f"expected a rejection of {action}"
    return result.code


@pytest.fixture
def make() -> Callable[..., State]:
    return build


@pytest.fixture
def play_act() -> Callable[..., tuple[State, tuple[Event, ...]]]:
    return act


@pytest.fixture
def reject_code() -> Callable[..., str]:
    return rejected


@pytest.fixture
def cards_of() -> Callable[[State], list[str]]:
    return where
