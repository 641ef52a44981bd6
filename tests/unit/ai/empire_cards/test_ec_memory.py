"""A search bot's memory of the hand in Empire The Card Game (CG-15, CG-16): every card
under a discard pile's top was shown as it was discarded, and a card stolen from a pile or
taken from an army was shown as it was taken. A bot that watched the hand's public events
knows those piles and those cards, no more (no private event, no card passed face down)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from shared.ai.empire_cards.bot import HeuristicBot
from shared.ai.empire_cards.determinize import SEARCH, determinize, recall
from shared.ai.empire_cards.memory import remember
from shared.ai.playout import bot_actor
from shared.rules._kit.playout import play
from shared.rules.api import Event, client_events
from shared.rules.empire_cards import GAME
from shared.rules.empire_cards.interact import matches_demand
from shared.rules.empire_cards.state import State

pytestmark = pytest.mark.unit

OPTIONS: dict[str, Any] = {"max_hands": 2, "expert_spells": True}


def _game(seed: int, seats: int, heuristic: bool
          ) -> list[tuple[State, list[Event]]]:
    """Every state of a game with the events that led to it."""
    seen: list[tuple[State, list[Event]]] = []
    events: list[Event] = []

    def keep(state: Any, move: Any) -> None:
        seen.append((state, list(events)))

    actors = None
    if heuristic:
        bot = HeuristicBot()
        actors = {s: bot_actor(bot) for s in range(seats)}
    play(GAME, seats, OPTIONS, seed=seed, actors=actors, on_step=keep,
         on_events=lambda evs: events.extend(evs), max_steps=3_000)
    return seen


def _true(state: State, memory: Any, me: int) -> tuple[int, int, int]:
    """Check the memory against the true state: the piles it holds, the known cards and the
    demands a hand cannot answer."""
    piles = known = lacks = 0
    for s, p in enumerate(state.players):
        for demand in memory["lacks"].get(str(s), []):
            assert not any(matches_demand(c, *demand) for c in p.hand), (s, demand, p.hand)
            lacks += 1
        pile = memory["piles"].get(str(s), [])
        assert tuple(pile) == p.discard, (s, pile, p.discard)
        piles += max(0, len(pile) - 1)
        held = memory["known"].get(str(s), [])
        if s != me:
            assert all(c in p.hand for c in held), (s, held, p.hand)
            known += len(held)
    return piles, known, lacks


@pytest.mark.parametrize("heuristic", [False, True])
def test_the_memory_is_every_pile_and_only_cards_truly_in_a_hand(heuristic: bool) -> None:
    under = known = lacking = checked = 0
    for seed in range(5):
        for state, events in _game(seed, 3 + seed % 2, heuristic)[::7]:
            me = seed % state.n_seats
            memory = remember(None, client_events(events, me), me)
            if not any(e.type == "deal" for e in events):
                assert memory is None  # nothing before the first deal
                continue
            if state.phase in ("dealer", "shuffle"):  # between hands: the piles went back
                continue
            a, b, c = _true(state, memory, me)
            under, known, lacking, checked = under + a, known + b, lacking + c, checked + 1
    assert checked > 50 and under > 100 and known > 5 and lacking > 5, (
        checked, under, known, lacking)


def test_private_events_are_not_folded_and_batches_do_not_matter() -> None:
    states = _game(3, 3, True)
    whole_events = states[-1][1]
    me = 1
    seen_by_me = client_events(whole_events, me)
    public_only = client_events(whole_events, None)
    assert any(e.get("private") for e in seen_by_me)
    whole = remember(None, seen_by_me, me)
    assert whole == remember(None, public_only, me)  # the service reads the public record
    step: Any = None
    for k in range(0, len(seen_by_me), 11):
        step = remember(step, seen_by_me[k:k + 11], me)
    assert step == whole and whole is not None


def test_recall_deals_the_remembered_piles_and_known_cards_and_keeps_the_view() -> None:
    tried = fixed = lacked = 0
    for seed in range(4):
        for state, events in _game(seed, 3, True)[20::9]:
            if state.phase not in ("play",):
                continue
            me = state.active
            view = GAME.view(state, me)
            memory = remember(None, client_events(events, me), me)
            for k in range(3):
                guess = recall(view, me, random.Random(k), memory)
                assert GAME.view(guess, me) == view  # consistent with all the seat sees
                assert sorted(guess.deck + tuple(c for p in guess.players for c in p.hand)
                              + tuple(c for p in guess.players for c in p.discard)) == sorted(
                    state.deck + tuple(c for p in state.players for c in p.hand)
                    + tuple(c for p in state.players for c in p.discard))
                for s, p in enumerate(guess.players):
                    assert p.discard == state.players[s].discard  # piles: as remembered
                    for demand in memory["lacks"].get(str(s), []):  # (the pool has plenty)
                        assert s == me or not any(matches_demand(c, *demand) for c in p.hand)
                        lacked += s != me
                    for c in memory["known"].get(str(s), []):
                        if s != me:
                            assert c in p.hand
                            fixed += 1
                tried += 1
    assert tried > 30 and fixed > 0 and lacked > 0, (tried, fixed, lacked)
    assert SEARCH.remember is remember and SEARCH.recall is recall


def test_a_memory_the_view_contradicts_is_not_used_for_that_pile() -> None:
    states = _game(2, 3, True)
    state, events = next((st, ev) for st, ev in reversed(states)
                         if st.phase == "play" and len(st.players[1].discard) > 2)
    view = GAME.view(state, 0)
    memory: Any = remember(None, client_events(events, 0), 0)
    wrong = {**memory, "piles": {**memory["piles"], "1": memory["piles"]["1"][:-1]}}
    guess = recall(view, 0, random.Random(5), wrong)
    assert GAME.view(guess, 0) == view
    assert guess.players[2].discard == state.players[2].discard  # the others still used
    plain = determinize(view, 0, random.Random(5))
    assert GAME.view(plain, 0) == view
    assert recall(view, 0, random.Random(5), None) == plain  # no memory: the view alone


def test_a_search_bot_remembers_the_hand() -> None:
    from shared.ai import registry as ai

    bot = ai.get_search_bot("empire-cards", "easy", 1)
    states = _game(4, 3, True)
    events = client_events(states[-1][1], 2)
    bot.observe(events[:9], 2)
    bot.observe(events[9:], 2)
    assert bot.remembered == remember(None, events, 2)


def test_a_lack_ends_when_a_card_may_have_come_into_the_hand() -> None:
    """A "no" to a demand (CG-20) holds until the seat's hand may have gained a card: a draw,
    a pass or steal into it, or a card taken from its army (a set left with one card sends
    it back to the hand, CG-9)."""
    start = [{"type": "deal", "data": {"hand": 0, "dealer": 0, "cards_each": 10}},
             {"type": "battle", "data": {"seat": 0, "target": 1, "rank": "7", "suit": None}},
             {"type": "battle_answer", "data": {"seat": 1, "has": False}}]
    lacking: Any = remember(None, start, 0)
    assert lacking["lacks"] == {"1": [["7", None]]}

    def after(kind: str, **data: Any) -> Any:
        return remember(lacking, [{"type": kind, "data": data}], 0)["lacks"]

    assert after("discard", seat=1, card="9H0", source="hand") == {"1": [["7", None]]}
    assert after("discard", seat=1, card="7S0", source="army") == {}
    assert after("draw", seat=1, count=1, reason="turn") == {}
    assert after("draw", seat=2, count=1, reason="turn") == {"1": [["7", None]]}
    assert after("steal", seat=1, target=2, card="KH0") == {}
    assert after("trade_done", seat=2, to=1) == {}
    assert after("sabotage_take", seat=2, target=1, set=0, card="8C0") == {}
