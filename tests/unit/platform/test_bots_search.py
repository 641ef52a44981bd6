"""The bot runner's search seats (services/bots/search.py): a decision from the
seat's view only, within the level's budget, in a bounded pool (a busy pool makes a seat play
the heuristic move, never wait past its budget), the sealed-round memory carried across
the stateless workers, and the lobby's add-bot kinds."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pydantic import ValidationError

from services.bots import search
from services.bots.search import SEARCH_KINDS, SearchPool, SearchSeat, decide
from shared.ai import registry as ai
from shared.protocol import lobby as lm
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Act, Rejection, Simultaneous, Turn, to_json
from tests.support.waits import eventually

pytestmark = pytest.mark.unit


def a_turn(name: str, seats: int) -> tuple[Any, int]:
    """A state where one seat has a real choice of action (from a seeded random game)."""
    game = registry.get(name)
    seen: list[Any] = []
    play(game, seats, {}, seed=5, max_steps=400, on_step=lambda s, m: seen.append(s))
    for state in seen:
        node = game.next(state)
        if isinstance(node, Turn) and len(game.legal_actions(state, node.seats[0])) > 2:
            return state, node.seats[0]
    raise AssertionError("no decision found")


def a_claim(seats: int = 3) -> tuple[Any, Simultaneous]:
    game = registry.get("empire")
    seen: list[Any] = []
    play(game, seats, {}, seed=2, max_steps=50, on_step=lambda s, m: seen.append(s))
    for state in seen:
        node = game.next(state)
        if isinstance(node, Simultaneous):
            return state, node
    raise AssertionError("no sealed round")


def test_the_kinds_a_host_may_add_are_the_levels_the_runner_plays() -> None:
    assert {"easy", "normal", "hard"} == SEARCH_KINDS
    for kind in ("heuristic", "random", *sorted(SEARCH_KINDS)):
        assert lm.AddBot(table_id="t", kind=kind).kind == kind  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        lm.AddBot(table_id="t", kind="godlike")  # type: ignore[arg-type]


def test_a_worker_decision_is_legal_and_uses_only_the_view() -> None:
    game = registry.get("empire-nyc")
    state, seat = a_turn("empire-nyc", 3)
    legal = list(game.legal_actions(state, seat))
    choice, memory, iterations = decide("empire-nyc", "easy", 7, 0.5, {}, {
        "kind": "act", "view": game.view(state, seat), "legal": legal, "seat": seat})
    assert choice in legal and iterations >= 1 and memory == {}
    assert not isinstance(game.apply(state, Act(seat=seat, action=choice)), Rejection)


def test_a_sealed_choice_comes_back_with_the_rounds_memory() -> None:
    game = registry.get("empire")
    state, node = a_claim()
    slot = node.slots[0]
    choice, memory, _ = decide("empire", "easy", 3, 0.5, {}, {
        "kind": "choose", "view": game.view(state, slot.seat),
        "slot": to_json(slot), "seat": slot.seat, "public_parts": {}})
    assert game.check_choice(slot, choice)
    assert memory == {node.round_id: {slot.key: choice}}  # E-14: the round's own choice


def test_no_budget_left_means_no_search() -> None:
    async def run() -> Any:
        game = registry.get("empire-nyc")
        state, seat = a_turn("empire-nyc", 3)
        request = {"kind": "act", "view": game.view(state, seat),
                   "legal": list(game.legal_actions(state, seat)), "seat": seat}
        with ThreadPoolExecutor(1) as ex:
            return await SearchPool(1, ex).decide("empire-nyc", "hard", {}, request, 0.0)

    assert asyncio.run(run()) is None


def test_an_answer_later_than_the_budget_is_not_waited_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner waits for a worker at most the decision's budget (hard <= 2 s),
    not beyond it: it gives the worker the budget less the process hop (``HOP_S``), and a
    worker late past the budget (here 0.12 s, which the old quarter-second grace waited
    for) leaves the seat the heuristic's move."""
    given: list[float] = []

    def slow(game: str, level: str, seed: int, budget_s: float, memory: Any,
             request: Any) -> tuple[Any, Any, int]:
        given.append(budget_s)
        time.sleep(budget_s + search.HOP_S + 0.12)
        return "late", memory, 1

    def quick(game: str, level: str, seed: int, budget_s: float, memory: Any,
              request: Any) -> tuple[Any, Any, int]:
        given.append(budget_s)
        return "in time", memory, 1

    async def run() -> list[Any]:
        with ThreadPoolExecutor(1) as ex:
            pool = SearchPool(1, ex)
            monkeypatch.setattr(search, "decide", slow)
            late = await pool.decide("empire-nyc", "hard", {}, {}, 0.3)
            # the slow worker's slot comes back when it ends
            await eventually(lambda: not pool._slots.locked(), "the slow worker's slot freed")
            monkeypatch.setattr(search, "decide", quick)
            on_time = await pool.decide("empire-nyc", "hard", {}, {}, 5.0)  # a busy machine
            return [late, on_time]

    late, on_time = asyncio.run(run())
    assert late is None
    assert on_time is not None and on_time[0] == "in time"
    assert given[0] <= 0.3 - search.HOP_S + 1e-9 and given[1] <= 5.0 - search.HOP_S + 1e-9


def test_a_busy_pool_makes_a_seat_play_the_heuristic_move() -> None:
    """Every worker busy: the next seat does not queue past its budget (bounded
    concurrency); the pool gives it nothing and it plays the heuristic bot's move."""

    async def run() -> tuple[Any, Any, list[Any], int]:
        game = registry.get("empire-nyc")
        state, seat = a_turn("empire-nyc", 3)
        view, legal = game.view(state, seat), list(game.legal_actions(state, seat))
        with ThreadPoolExecutor(1) as ex:
            pool = SearchPool(1, ex)
            await pool._slots.acquire()  # the only worker is busy with another seat
            seat_bot = SearchSeat(pool, "empire-nyc", "easy")
            move = await seat_bot.act(view, legal, seat)
            pool._slots.release()  # free again: the next decision searches
            searched = await pool.decide("empire-nyc", "easy", {}, {  # a busy machine's budget
                "kind": "act", "view": view, "legal": legal, "seat": seat}, 10.0)
            return move, searched, legal, seat_bot.fallbacks

    move, searched, legal, fallbacks = asyncio.run(run())
    assert fallbacks == 1 and move in legal
    assert move == ai.get_bot("empire-nyc").act(
        *a_view_and_legal("empire-nyc"))  # the heuristic's own choice
    assert searched is not None and searched[0] in legal


def test_a_hard_seat_falls_back_on_its_own_tuned_heuristic() -> None:
    """When the search has no answer, a seat plays its level's own heuristic: hard's is the
    game's tuned one where it has one (``SearchSpec.tuned``: Empire's End, New York), the
    other levels' the plain heuristic bot."""
    from shared.ai.empire_nyc.bot import TUNED, Style

    with ThreadPoolExecutor(1) as ex:
        pool = SearchPool(1, ex)
        assert SearchSeat(pool, "empire-nyc", "hard").heuristic.style == TUNED != Style()
        assert SearchSeat(pool, "empire-nyc", "normal").heuristic.style == Style()
        assert type(SearchSeat(pool, "empire-engine", "hard").heuristic) is type(
            ai.get_bot("empire-engine"))


def a_view_and_legal(name: str) -> tuple[Any, list[Any], int]:
    game = registry.get(name)
    state, seat = a_turn(name, 3)
    return game.view(state, seat), list(game.legal_actions(state, seat)), seat


def an_engine_record(seed: int = 3) -> tuple[list[dict[str, Any]], int]:
    """A 3-seat Engine game's public record, as the adjudicator writes it (one event entry
    per public event, with the seq of its change), and the seq of its last public event."""
    from shared.rules.api import Event

    game = registry.get("empire-engine")
    changes: list[list[Event]] = []
    play(game, 3, {}, seed=seed, on_events=lambda evs: changes.append(evs))
    record = [{"type": "event", "seq": seq, "event": e.type, "data": e.data}
              for seq, evs in enumerate(changes, start=1) for e in evs if e.visible_to is None]
    return record, int(record[-1]["seq"])


def test_a_search_seat_remembers_the_public_record_once_it_has_caught_up() -> None:
    """EE-12: the Engine's search bot knows the hidden score piles as well as a
    player who watched every public event. The runner reads them off the game's record (a
    watch replays it from the first entry, whenever it began) and sends nothing while the
    record lags the views, or when it did not begin at the game's start."""
    from clients.sdk.client import GameSession
    from shared.ai.empire_engine.determinize import remember

    record, last = an_engine_record()
    public = [{"type": r["event"], "data": r["data"]} for r in record]

    def seat_with(entries: list[dict[str, Any]], seen_seq: int) -> SearchSeat:
        session = GameSession(game_id="g", client=None)  # type: ignore[arg-type]
        session.record, session.public_event_seq = list(entries), seen_seq
        return SearchSeat(SearchPool(1), "empire-engine", "easy", session)

    whole = seat_with(record, last)
    assert whole.recall(1) == remember(None, public, 1) and whole.recall(1) is not None
    lagging = seat_with(record[:-3], last)  # the catch-up still under way
    assert lagging.recall(1) is None
    assert lagging.session is not None
    lagging.session.record = list(record)  # caught up: the rest is folded in, once
    assert lagging.recall(1) == remember(None, public, 1)
    assert seat_with(record[1:], last).recall(1) is None  # began after the game's first event
    other = SearchSeat(SearchPool(1), "empire", "easy", GameSession(game_id="g", client=None))  # type: ignore[arg-type]
    assert other.recall(0) is None  # a game that keeps no such memory


def test_a_card_game_seat_remembers_the_hand_from_the_record() -> None:
    """CG-15, CG-16: the Card Game's search seat folds the record's event entries
    into the same memory of the hand as the ladder's bots fold their client's events."""
    from clients.sdk.client import GameSession
    from shared.ai.empire_cards.memory import remember
    from shared.rules.api import Event, client_events

    game = registry.get("empire-cards")
    changes: list[list[Event]] = []
    play(game, 3, {"max_hands": 1}, seed=5, on_events=lambda evs: changes.append(evs))
    record = [{"type": "event", "seq": seq, "event": e.type, "data": e.data}
              for seq, evs in enumerate(changes, start=1) for e in evs if e.visible_to is None]
    session = GameSession(game_id="g", client=None)  # type: ignore[arg-type]
    session.record, session.public_event_seq = record, int(record[-1]["seq"])
    seat = SearchSeat(SearchPool(1), "empire-cards", "easy", session)
    got = seat.recall(2)
    mine = remember(None, client_events([e for evs in changes for e in evs], 2), 2)
    assert got == mine and isinstance(got, dict) and any(got["piles"].values())


def test_a_worker_searches_with_the_public_record_it_is_sent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from shared.ai.empire_engine.determinize import remember

    made: list[Any] = []
    real = ai.get_search_bot
    monkeypatch.setattr(ai, "get_search_bot",
                        lambda *a: made.append(real(*a)) or made[-1])

    game = registry.get("empire-engine")
    seen: list[tuple[Any, list[Any]]] = []
    events: list[Any] = []
    play(game, 3, {}, seed=3, on_events=events.extend,
         on_step=lambda s, m: seen.append((s, list(events))))
    state, before = next((s, ev) for s, ev in reversed(seen) if s.phase == "plan")
    node = game.next(state)
    assert isinstance(node, Simultaneous)
    slot = node.slots[0]
    public = [{"type": e.type, "data": e.data} for e in before if e.visible_to is None]
    choice, _, iterations = decide("empire-engine", "easy", 3, 0.5, {}, {
        "kind": "choose", "view": game.view(state, slot.seat),
        "slot": to_json(slot), "seat": slot.seat, "public_parts": {},
        "remembered": remember(None, public, slot.seat)})
    assert game.check_choice(slot, choice) and iterations >= 1
    assert made[0].remembered == remember(None, public, slot.seat) is not None
