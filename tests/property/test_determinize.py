"""Determinization for the search bots: every game's ``determinize(view, seat, rng)``
gives a full state consistent with the seat's view, and it cannot depend on what the seat
cannot see.

* **Consistent.** At decision points of seeded games (random and heuristic seats), for every
  seat that may act, the sampled state shows the seat exactly the same view. The seat has the
  same legal actions, and the same node is pending.
* **No leak.** ``determinize`` is given only the view. To check that it never reaches past
  it, a second true state is made from each position. It has the same view for the seat, but
  the hidden parts differ: a card swapped between an opponent's hand and the deck, missions
  or score piles or stashes changed. The sampled states from the two must be equal, sample
  for sample.
* **Complete.** Every card of the game is in exactly one place in a sample.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Simultaneous, Turn

pytestmark = pytest.mark.property

GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "duel": (3, {}),
    "empire": (3, {"memory_mode": True}),
    "empire-engine": (3, {}),
    "empires-end": (3, {}),
    "empire-nyc": (4, {"missions": True}),
    "empire-cards": (4, {"max_hands": 1, "expert_spells": True}),
}


@cache
def positions(name: str) -> tuple[tuple[Any, tuple[int, ...]], ...]:
    """(state, seats that may act) at decision points of two seeded games: all random, and
    random seat 0 with heuristic bots elsewhere."""
    game = registry.get(name)
    n, options = GAMES[name]
    seen: list[Any] = []
    play(game, n, options, seed=1, max_steps=3000, on_step=lambda s, m: seen.append(s))
    bot = ai.get_bot(name)
    play(game, n, options, seed=2, max_steps=3000, on_step=lambda s, m: seen.append(s),
         actors={i: bot_actor(bot) for i in range(1, n)},
         choosers={i: bot_chooser(bot) for i in range(1, n)})
    out: list[tuple[Any, tuple[int, ...]]] = []
    for state in seen[:: max(1, len(seen) // 120)]:
        node = game.next(state)
        if isinstance(node, Turn):
            out.append((state, (*node.seats, *node.open_to)))
        elif isinstance(node, Simultaneous):
            out.append((state, tuple(sorted({s.seat for s in node.slots}))))
    return tuple(out)


def same_node(game: Any, a: Any, b: Any, seat: int) -> bool:
    na, nb = game.next(a), game.next(b)
    if isinstance(na, Simultaneous) and isinstance(nb, Simultaneous):
        return na.round_id == nb.round_id and [s for s in na.slots if s.seat == seat] == [
            s for s in nb.slots if s.seat == seat]
    if isinstance(na, Turn) and isinstance(nb, Turn):
        return na == nb
    return False


@pytest.mark.parametrize("name", list(GAMES))
def test_a_sample_shows_the_seat_exactly_its_view(name: str) -> None:
    game, spec = registry.get(name), ai.get_search_spec(name)
    checked = 0
    for state, seats in positions(name):
        for seat in seats:
            view = game.view(state, seat)
            for k in range(2):
                sample = spec.determinize(view, seat, random.Random(k))
                assert game.view(sample, seat) == view
                assert list(game.legal_actions(sample, seat)) == list(
                    game.legal_actions(state, seat))
                assert same_node(game, sample, state, seat)
                assert game.decode(game.encode(sample)) == sample
                checked += 1
    assert checked >= 40


def _swap_card(hands: list[list[str]], deck: list[str], seat: int) -> bool:
    """Swap a card of another seat's hand with a deck card (views keep their sizes)."""
    for o, hand in enumerate(hands):
        if o != seat and hand and deck:
            hand[0], deck[0] = deck[0], hand[0]
            return True
    return False


def hidden_variant(name: str, state: Any, seat: int) -> Any | None:
    """Another true state with the same view for ``seat`` but other hidden parts (None if
    this game hides nothing at this point)."""
    if name == "empire-cards":
        hands = [list(p.hand) for p in state.players]
        deck = list(state.deck)
        if not _swap_card(hands, deck, seat):
            return None
        from shared.rules.empire_cards.cards import sorted_cards

        players = tuple(replace(p, hand=sorted_cards(h))
                        for p, h in zip(state.players, hands, strict=True))
        return replace(state, players=players, deck=tuple(deck))
    if name == "empire-nyc":
        hands = [list(h) for h in state.hands]
        deck = list(state.deck)
        changed = _swap_card(hands, deck, seat)
        missions = list(state.missions)
        others = [s for s in range(state.n_seats) if s != seat]
        if missions and len(others) >= 2:
            a, b = others[:2]
            missions[a], missions[b] = missions[b], missions[a]
            changed = changed or missions[a] != missions[b]
        if not changed:
            return None
        return replace(state, hands=tuple(tuple(h) for h in hands), deck=tuple(deck),
                       missions=tuple(missions))
    if name == "empires-end":
        if not state.players:
            return None
        hands = [list(p.hand) for p in state.players]
        deck = list(state.deck)
        _swap_card(hands, deck, seat)
        other = state.clone()
        for s, h in enumerate(hands):
            p = other.writable(s)  # a clone shares its players until one is asked for
            p.hand = tuple(h)
            if s != seat:
                p.res.axe += 3
        other.deck = tuple(deck)
        return other
    if name == "empire-engine":
        if state.phase == "over" or not state.options.hidden_score_piles:
            return None
        other = state.clone()
        for s, p in enumerate(other.players):
            if s != seat:
                p.score.goods += 2
        return other
    if name == "empire":
        if not state.options.memory_mode or not state.holdings:
            return None
        holdings = tuple(h if s == seat else replace(h, goods=h.goods + 1)
                         for s, h in enumerate(state.holdings))
        return replace(state, holdings=holdings)
    return None  # duel hides nothing but sealed picks, which never reach the state


@pytest.mark.parametrize("name", list(GAMES))
def test_a_sample_does_not_depend_on_what_the_seat_cannot_see(name: str) -> None:
    game, spec = registry.get(name), ai.get_search_spec(name)
    variants = 0
    for state, seats in positions(name):
        for seat in seats:
            other = hidden_variant(name, state, seat)
            if other is None or other == state:
                continue
            view = game.view(state, seat)
            assert game.view(other, seat) == view, "the variant must differ only in hiding"
            variants += 1
            for k in range(3):
                a = spec.determinize(view, seat, random.Random(k))
                b = spec.determinize(game.view(other, seat), seat, random.Random(k))
                assert a == b
    if name != "duel":
        assert variants >= 10


def cards_of(name: str) -> Callable[[Any], list[str]] | None:
    if name == "empire-cards":
        return lambda s: [c for p in s.players for c in (
            *p.hand, *p.discard, *(c for g in (*p.army, *p.empire_sets) for c in g),
            *(c for sp in p.specials for c in sp.cards))] + list(s.deck)
    if name == "empire-nyc":
        return lambda s: [c for h in s.hands for c in h] + list(s.deck) + list(s.discard)
    return None


@pytest.mark.parametrize("name", ["empire-cards", "empire-nyc"])
def test_a_sample_keeps_every_card_in_one_place(name: str) -> None:
    game, spec = registry.get(name), ai.get_search_spec(name)
    count = cards_of(name)
    assert count is not None
    for state, seats in positions(name):
        for seat in seats:
            sample = spec.determinize(game.view(state, seat), seat, random.Random(seat))
            assert sorted(count(sample)) == sorted(count(state))
