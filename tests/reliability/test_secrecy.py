"""Secrecy, part 1: non-interference for every game.

Along bot playouts of every game, another seat's hidden information is changed (hands,
missions, stashes, hidden score piles, deck orders; sealed choices are not in the engine's
state until their round is revealed, see test_canaries) and, for every seat and the
spectator, we check that what the platform would send them is byte-identical: the payload
the adjudicator renders (view, legal actions, node, events), the refusals of their own
moves, the public record entries and the view after their own moves. The seat's own moves
are applied to both states; a move that draws from a deck only looks at cards the change did
not touch (the change swaps a hand card with the bottom of the deck, never the top).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from services.adjudicator import core
from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.protocol import internal as im
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import (
    Act,
    Event,
    Game,
    Rejection,
    Simultaneous,
    Terminal,
    Transition,
    Turn,
    to_json,
)
from shared.runtime.jsonutil import dumps
from tests.reliability.conftest import report, size

pytestmark = pytest.mark.reliability

Mutator = Callable[[Any, int | None, random.Random], Any]


def _others(n: int, seat: int | None) -> list[int]:
    return [s for s in range(n) if s != seat]


def _swap_with_bottom(
    hand: tuple[str, ...], deck: tuple[str, ...], rng: random.Random
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Swap a random hand card with the deck's bottom card (never drawn next)."""
    if not hand or len(deck) < 4:
        return None
    i = rng.randrange(len(hand))
    if hand[i] == deck[-1]:
        return None
    return (*hand[:i], deck[-1], *hand[i + 1 :]), (*deck[:-1], hand[i])


def _swap_hands(
    hands: list[tuple[str, ...]], deck: tuple[str, ...], others: list[int], rng: random.Random
) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    """Exchange one card between two other seats' hands (sizes kept), or, with one other
    seat, one of its cards with the deck's bottom card."""
    hands = list(hands)
    holding = [o for o in others if hands[o]]
    if len(holding) >= 2:
        a, b = rng.sample(holding, 2)
        i, j = rng.randrange(len(hands[a])), rng.randrange(len(hands[b]))
        ca, cb = hands[a][i], hands[b][j]
        hands[a] = (*hands[a][:i], cb, *hands[a][i + 1 :])
        hands[b] = (*hands[b][:j], ca, *hands[b][j + 1 :])
    elif holding:
        swapped = _swap_with_bottom(hands[holding[0]], deck, rng)
        if swapped is not None:
            hands[holding[0]], deck = swapped
    return hands, deck


def _shuffled(deck: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    cards = list(deck)
    rng.shuffle(cards)
    return tuple(cards)


def _changed(new: Any, old: Any) -> Any:
    return None if new == old else new


# -- others' hidden holdings (checked statically and through the seat's own moves) ---------


def hidden_cards(s: Any, seat: int | None, rng: random.Random) -> Any:
    """empire-cards: others' hands."""
    hands, deck = _swap_hands([p.hand for p in s.players], s.deck, _others(s.n_seats, seat), rng)
    players = tuple(replace(p, hand=h) for p, h in zip(s.players, hands, strict=True))
    return _changed(replace(s, players=players, deck=deck), s)


def hidden_nyc(s: Any, seat: int | None, rng: random.Random) -> Any:
    """empire-nyc: others' hands and secret missions."""
    if not s.hands:
        return None
    others = _others(s.n_seats, seat)
    hands, deck = _swap_hands(list(s.hands), s.deck, others, rng)
    missions = list(s.missions)
    if len(missions) == s.n_seats and len(others) >= 2:
        a, b = rng.sample(others, 2)
        missions[a], missions[b] = missions[b], missions[a]
    return _changed(
        replace(s, hands=tuple(hands), deck=deck, missions=tuple(missions)), s
    )


def hidden_end(s: Any, seat: int | None, rng: random.Random) -> Any:
    """empires-end: others' stashes and hands."""
    new = s.clone()
    for o in _others(s.n, seat):
        p = new.writable(o)  # a clone shares its players until one is asked for to change
        for k in ("wheat", "hammer", "axe", "coin"):
            p.res.gain(k, rng.randrange(1, 3))
        p.hand = tuple(reversed(p.hand)) if len(p.hand) > 1 else p.hand
    return _changed(new, s)


def hidden_engine(s: Any, seat: int | None, rng: random.Random) -> Any:
    """empire-engine (hidden score piles): others' score piles."""
    new = s.clone()
    for o in _others(s.n_seats, seat):
        sc = new.players[o].score
        sc.inventions += rng.randrange(1, 4)
        sc.soldiers += rng.randrange(0, 3)
    return _changed(new, s)


def hidden_empire(s: Any, seat: int | None, rng: random.Random) -> Any:
    """empire (memory mode): others' face-down counts."""
    if not s.holdings:
        return None
    new = s.clone()
    holdings = list(s.holdings)
    for o in _others(s.n, seat):
        h = holdings[o] = holdings[o].copy()
        h.supporters += rng.randrange(1, 3)
        h.revolts += rng.randrange(0, 2)
    new.holdings = tuple(holdings)
    return _changed(new, s)


# -- deck orders (checked statically: any draw reveals the drawn cards, by the rules) -------


def deck_cards(s: Any, seat: int | None, rng: random.Random) -> Any:
    return _changed(replace(s, deck=_shuffled(s.deck, rng)), s)


def deck_nyc(s: Any, seat: int | None, rng: random.Random) -> Any:
    return _changed(replace(s, deck=_shuffled(s.deck, rng)), s)


def deck_end(s: Any, seat: int | None, rng: random.Random) -> Any:
    new = s.clone()
    new.deck = _shuffled(s.deck, rng)
    new.conflict_deck = _shuffled(s.conflict_deck, rng)
    return _changed(new, s)


# Moves whose very purpose, by the rules, is to reveal something of another seat to the mover
# or to everyone: for these only the refusals must not differ.
REVEALING: dict[str, set[str]] = {
    # CG-6..8: the target of a battle demand answers publicly whether it holds the rank and
    # the loser hands over spoils; a steal / plunder / sabotage / spell takes a card from
    # another hand (seen by the taker)
    "empire-cards": {
        "battle",
        "battle_set",
        "battle_give",
        "steal",
        "plunder",
        "sabotage_take",
        "spell_take",
    },
}

GAMES: list[tuple[str, int, dict[str, Any], Mutator, Mutator | None]] = [
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 80}, hidden_cards, deck_cards),
    ("empire-nyc", 3, {"missions": True}, hidden_nyc, deck_nyc),
    ("empires-end", 2, {}, hidden_end, deck_end),
    ("empire-engine", 3, {"hidden_score_piles": True}, hidden_engine, None),
    ("empire", 3, {"version": "standard", "memory_mode": True}, hidden_empire, None),
]


def _doc(game: Game, name: str, state: Any, n: int) -> core.GameDoc:
    players = [im.PlayerRef(player_id=f"p{i}", name=f"p{i}") for i in range(n)]
    return core.GameDoc(
        game_id="g-ni",
        game=name,
        options={},
        players=players,
        seq=7,
        stage="playing",
        engine=game.encode(state),
        turn_timeout_ms=1000,
        round_timeout_ms=1000,
    )


def _payloads(
    game: Game, name: str, state: Any, n: int, events: list[Event]
) -> dict[int | None, str]:
    """What the adjudicator would store for each seat and the spectator, as bytes."""
    views = core.render_views(_doc(game, name, state, n), events)
    return {seat: dumps(p) for seat, p in views.items()}


def _public(events: tuple[Event, ...]) -> str:
    return dumps([to_json(e) for e in events if e.visible_to is None])


def _own_moves(game: Game, state: Any, seat: int, rng: random.Random) -> list[Any]:
    legal = list(game.legal_actions(state, seat))
    picks = rng.sample(legal, min(len(legal), 6))
    return [*picks, {"type": "nonsense"}, None]  # and refusals


def _check_state(
    name: str,
    game: Game,
    mutate: Mutator,
    state: Any,
    n: int,
    rng: random.Random,
    tally: dict[str, int],
    dynamic: bool = True,
) -> None:
    """Every seat's and the spectator's payload is the same with ``mutate``'s change to the
    others' secrets; with ``dynamic`` also the refusals, public records and views of the
    seat's own moves."""
    node = game.next(state)
    for seat in [*range(n), None]:
        other = mutate(state, seat, rng)
        if other is None:
            continue
        tally["mutations"] += 1
        a = _payloads(game, name, state, n, [])[seat]
        b = _payloads(game, name, other, n, [])[seat]
        assert a == b, f"{name}: seat {seat} sees another seat's secret\n{a}\n{b}"
        if seat is None or not dynamic:
            continue
        acting = isinstance(node, Turn) and (seat in node.seats or seat in node.open_to)
        if not acting:
            continue
        for action in _own_moves(game, state, seat, rng):
            r1 = game.apply(state, Act(seat=seat, action=action))
            r2 = game.apply(other, Act(seat=seat, action=action))
            tally["own_moves"] += 1
            if isinstance(r1, Rejection) or isinstance(r2, Rejection):
                assert isinstance(r1, Rejection) and isinstance(r2, Rejection) and r1 == r2, (
                    f"{name}: seat {seat}'s {action} refused differently: {r1} {r2}"
                )
                continue
            assert isinstance(r1, Transition) and isinstance(r2, Transition)
            if isinstance(game.next(r1.state), Terminal):
                tally["revealing_moves"] += 1  # the end: the final scoring shows everything
                continue
            if isinstance(action, dict) and action.get("type") in REVEALING.get(name, set()):
                tally["revealing_moves"] += 1
                continue
            assert _public(r1.events) == _public(r2.events), (
                f"{name}: seat {seat}'s {action} published another seat's secret"
            )
            mine1 = _payloads(game, name, r1.state, n, list(r1.events))[seat]
            mine2 = _payloads(game, name, r2.state, n, list(r2.events))[seat]
            assert mine1 == mine2, f"{name}: after its {action}, seat {seat} saw a secret"


@pytest.mark.parametrize(
    ("name", "n", "options", "hidden", "deck"), GAMES, ids=[g[0] for g in GAMES]
)
def test_a_seat_sees_nothing_of_another_seats_secrets(
    name: str, n: int, options: dict[str, Any], hidden: Mutator, deck: Mutator | None
) -> None:
    game = registry.get(name)
    games = size(2, 8)
    tally = {"states": 0, "mutations": 0, "own_moves": 0, "revealing_moves": 0, "deck_mutations": 0}
    t0 = time.monotonic()
    for g in range(games):
        rng = random.Random(1000 + g)
        random.seed(g)  # the bots' own choices (reproducible playouts)
        states: list[Any] = []

        def keep(st: Any, mv: Any, states: list[Any] = states) -> None:
            states.append(st)

        bot = ai.get_bot(name)
        seats = range(n)
        play(
            game,
            n,
            options,
            seed=g,
            actors={s: bot_actor(bot) for s in seats},
            choosers={s: bot_chooser(bot) for s in seats},
            on_step=keep,
        )
        every = max(1, len(states) // size(25, 100))
        for i, st in enumerate(states):
            if i % every:
                continue
            if isinstance(game.next(st), Simultaneous | Turn):
                tally["states"] += 1
                _check_state(name, game, hidden, st, n, rng, tally)
                if deck is not None:
                    before = tally["mutations"]
                    _check_state(name, game, deck, st, n, rng, tally, dynamic=False)
                    tally["deck_mutations"] += tally["mutations"] - before
                    tally["mutations"] = before
    assert tally["mutations"] > 20 and tally["own_moves"] > 10, tally
    report(f"secrecy-{name}", {**tally, "games": games, "wall_s": round(time.monotonic() - t0, 1)})


def test_the_check_catches_a_leak() -> None:
    """Sensitivity: changing the observer's *own* hand must show in its payload."""
    name, n, options, _, _ = GAMES[0]
    game = registry.get(name)
    states: list[Any] = []
    play(game, n, options, seed=3, on_step=lambda st, mv: states.append(st))

    def own_hand(s: Any, seat: int | None, rng: random.Random) -> Any:
        if seat is None or len(s.players[seat].hand) < 1 or len(s.deck) < 4:
            return None
        hand, deck = _swap_with_bottom(s.players[seat].hand, s.deck, rng) or ((), ())
        if not hand:
            return None
        players = list(s.players)
        players[seat] = replace(players[seat], hand=hand)
        return replace(s, players=tuple(players), deck=deck)

    caught = 0
    tally = {"states": 0, "mutations": 0, "own_moves": 0, "revealing_moves": 0}
    for st in states[5::7]:
        try:
            _check_state(name, game, own_hand, st, n, random.Random(1), tally)
        except AssertionError:
            caught += 1
    assert caught >= 3
