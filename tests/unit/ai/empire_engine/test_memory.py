"""A search bot's memory of the public record in The Empire Engine (EE-12): the
hidden score piles are the sum of public events but for a Salvage's type, so a bot that
watched every event it was sent knows them that well, and no better."""

from __future__ import annotations

import random
from typing import Any

import pytest

from shared.ai.empire_engine.determinize import SEARCH, recall, remember
from shared.rules._kit.playout import play
from shared.rules.api import Event, client_events
from shared.rules.empire_engine import GAME
from shared.rules.empire_engine.state import State

pytestmark = pytest.mark.unit


def _game(seed: int, seats: int) -> tuple[list[tuple[State, list[Event]]], State]:
    """Every state of a random game with the events that led to it."""
    seen: list[tuple[State, list[Event]]] = []
    events: list[Event] = []

    def keep(state: Any, move: Any) -> None:
        seen.append((state, list(events)))

    out = play(GAME, seats, {}, seed=seed, on_step=keep,
               on_events=lambda evs: events.extend(evs))
    return seen, out.state


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_tally_is_every_hidden_pile_but_the_salvage_types(seats: int) -> None:
    checked = 0
    for seed in range(6):
        states, _ = _game(seed, seats)
        for state, events in states[1::3]:  # (the first: before any event)
            memory = remember(None, client_events(events, 0), 0)
            assert isinstance(memory, dict)
            for s, p in enumerate(state.players):
                if s == 0:
                    continue
                known = memory["piles"].get(str(s), {})
                true = p.score.as_json()
                short = {f: true[f] - int(known.get(f, 0))
                         for f in ("soldiers", "goods", "inventions")}
                assert all(n >= 0 for n in short.values()), (short, known, true)
                assert sum(short.values()) == int(known.get("unknown", 0)), (short, known)
                checked += 1
    assert checked > 20


def test_the_tally_folds_the_same_in_any_batches_and_only_from_the_game_start() -> None:
    states, _ = _game(11, 3)
    events = client_events(states[-1][1], 1)
    whole = remember(None, events, 1)
    step: Any = None
    for k in range(0, len(events), 7):
        step = remember(step, events[k:k + 7], 1)
    assert step == whole and whole is not None
    assert remember(None, events[1:], 1) is None  # missed the first event: nothing known


def test_recall_gives_the_known_counts_and_draws_only_the_salvage_types() -> None:
    states, _ = _game(4, 3)
    state, events = next((st, ev) for st, ev in reversed(states) if st.phase == "plan")
    view = GAME.view(state, 0)
    memory = remember(None, client_events(events, 0), 0)
    assert isinstance(memory, dict)
    for k in range(20):
        guess = recall(view, 0, random.Random(k), memory)
        for s in (1, 2):
            pile = memory["piles"].get(str(s), {})
            got = guess.players[s].score.as_json()
            assert got["soldiers"] + got["goods"] + got["inventions"] == sum(
                int(pile.get(f, 0)) for f in ("soldiers", "goods", "inventions", "unknown"))
            assert all(got[f] >= int(pile.get(f, 0)) for f in ("soldiers", "goods", "inventions"))
        assert guess.players[0] == state.players[0]  # the seat's own pile is in its view
    assert SEARCH.remember is remember and SEARCH.recall is recall


def test_a_search_bot_remembers_what_it_observes() -> None:
    from shared.ai import registry as ai

    bot = ai.get_search_bot("empire-engine", "easy", 1)
    states, _ = _game(2, 3)
    events = client_events(states[-1][1], 2)
    bot.observe(events[:5], 2)
    bot.observe(events[5:], 2)
    assert bot.remembered == remember(None, events, 2)
    assert bot._searcher().remembered == bot.remembered
