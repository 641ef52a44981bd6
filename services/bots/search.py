"""Search bots in the runner: a seat of kind "easy", "normal" or "hard" plays the
game's ISMCTS bot (``shared.ai.search``) at that level.

A search runs in a worker process of a small pool (``bots_search_workers``), never on the
event loop, so one seat's thinking never holds up the others. Every decision has a time
budget (``LEVELS[level].time_s``: hard 2 s, normal 0.5 s, easy 0.15 s) that covers waiting for
a worker too:

* the seat waits for a free worker at most until its budget is spent;
* the worker gets the rest of the budget less ``HOP_S`` (the process hop both ways) as its
  deadline; the search asks it between iterations and stops once one more iteration as
  long as its longest yet would end past it (``deadline_within``), so the last iteration
  does not run over;
* the runner waits for the answer at most the rest of the budget, never beyond it;

and whenever one of these runs out, the seat plays the heuristic bot's move instead (it is
computed here, in microseconds). So a decision takes at most its budget. The bot sees only
what the gateway sends the seat: its view, its legal actions, its own slots and the public
parts already committed.

Between the slots of one sealed round a search bot remembers the plan it chose
(``SearchBot._sealed``); the worker is stateless, so that memory travels with each call.
So does what the seat remembers of the public record (``SearchSpec.remember``: the Engine's
tally of the hidden score piles, EE-12; the Card Game's discard piles under their tops, CG-16).
The runner folds in the public events of the game's record, which a watch replays from the
game's first entry whatever the moment it began (a view carries only its own change's
events), and sends None (the search then samples without it) while the record has not yet
caught up with the latest view that brought a public event.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import structlog

from clients.sdk.bot_player import play_with
from clients.sdk.client import GameSession
from shared.ai import registry as ai
from shared.ai.search import LEVELS, deadline_within, seeded_heuristic
from shared.rules.api import SealedSlot, from_json, to_json

log = structlog.get_logger("bots.search")
SEARCH_KINDS = frozenset(LEVELS)  # "easy", "normal", "hard"
HOP_S = 0.05  # of the budget, kept back from the worker's deadline: the process hop

Memory = dict[str, dict[str, Any]]  # round id -> own slot key -> choice (SearchBot._sealed)


def decide(game: str, level: str, seed: int, budget_s: float, memory: Memory,
           request: dict[str, Any]) -> tuple[Any, Memory, int]:
    """One decision in a worker process: ``request`` is {"act": view, legal, seat} or
    {"choose": view, slot, seat, public_parts}, each with the "remembered" public record.
    Returns (choice, memory, iterations)."""
    deadline = deadline_within(max(0.0, budget_s), time.monotonic)
    bot = ai.get_search_bot(game, level, seed)
    bot._sealed = memory
    bot.remembered = request.get("remembered")
    if request["kind"] == "act":
        choice = bot.act(request["view"], request["legal"], request["seat"], deadline)
    else:
        slot = from_json(SealedSlot, request["slot"])
        choice = bot.choose(request["view"], slot, request["seat"], request["public_parts"],
                            deadline)
    return choice, bot._sealed, bot.last_iterations


class SearchPool:
    """The runner's bounded search workers (processes, spawned: no fork of the event loop)."""

    def __init__(self, workers: int, executor: Executor | None = None) -> None:
        self.workers = workers
        self._executor = executor
        self._slots = asyncio.Semaphore(workers)

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
        return self._executor

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def decide(self, game: str, level: str, memory: Memory, request: dict[str, Any],
                     budget_s: float | None = None) -> tuple[Any, Memory, int] | None:
        """The search's answer within ``budget_s`` (the level's by default), or None when the
        budget ran out (waiting for a worker, or the worker's answer)."""
        loop = asyncio.get_running_loop()
        budget = LEVELS[level].time_s if budget_s is None else budget_s
        end = loop.time() + budget
        try:
            await asyncio.wait_for(self._slots.acquire(), budget)
        except TimeoutError:
            return None
        held = True
        try:
            left = end - loop.time()
            if left <= 0:
                return None
            fut = loop.run_in_executor(self.executor(), decide, game, level,
                                       secrets.randbits(32), left - HOP_S, memory, request)
            try:
                return await asyncio.wait_for(asyncio.shield(fut), left)
            except TimeoutError:  # the worker is still busy: its slot frees when it ends
                held = False
                fut.add_done_callback(self._free)
                return None
            except Exception as exc:  # a search bug: the heuristic plays this decision
                log.warning("search_failed", game=game, level=level, error=repr(exc)[:300])
                return None
        finally:
            if held:
                self._slots.release()

    def _free(self, fut: asyncio.Future[Any]) -> None:
        with contextlib.suppress(BaseException):
            fut.result()
        self._slots.release()


class SearchSeat:
    """One seat's search bot: the heuristic plays at once when the search has no answer."""

    def __init__(self, pool: SearchPool, game: str, level: str,
                 session: GameSession | None = None) -> None:
        self.pool = pool
        self.game = game
        self.level = level
        self.session = session  # its record feeds the public record remembered
        spec = ai.get_search_spec(game)
        self.remember = spec.remember
        self.remembered: Any = None
        self.folded = 0  # the session's record entries folded into ``remembered`` so far
        self.record_seq = -1  # the seq of the latest event entry folded
        # the move when the search has no answer: the level's own heuristic (hard's is the
        # game's tuned one, where it has one: ``SearchSpec.tuned``), its draws seeded afresh
        self.heuristic = seeded_heuristic(spec, random.Random(secrets.randbits(32)),
                                          tuned=LEVELS[level].tuned)
        self.memory: Memory = {}
        self.fallbacks = 0
        self.decisions = 0

    async def act(self, view: dict[str, Any], legal: list[Any], seat: int) -> Any:
        self.decisions += 1
        if len(legal) > 1:
            got = await self.pool.decide(self.game, self.level, self.memory, {
                "kind": "act", "view": view, "legal": legal, "seat": seat,
                "remembered": self.recall(seat)})
            if got is not None and got[0] in legal:
                return got[0]
            self.fallbacks += 1
        return self.heuristic.act(view, legal, seat)

    async def choose(self, view: dict[str, Any], slot: SealedSlot, seat: int,
                     public_parts: dict[str, Any]) -> Any:
        self.decisions += 1
        got = await self.pool.decide(self.game, self.level, self.memory, {
            "kind": "choose", "view": view, "slot": to_json(slot),
            "seat": seat, "public_parts": public_parts, "remembered": self.recall(seat)})
        if got is not None:
            choice, self.memory, _ = got
            return choice
        self.fallbacks += 1
        choice = self.heuristic.choose(view, slot, seat, public_parts)
        round_id = _round_of(view)
        if round_id is not None:  # keep the round's memory consistent with what was sent
            self.memory = {round_id: {**self.memory.get(round_id, {}), slot.key: choice}}
        return choice

    def recall(self, seat: int) -> Any:
        """The public record as a watcher of every public event knows it: the record's
        event entries folded in (once each); None while the record lags the views (a watch's
        catch-up still under way) and when the record did not begin at the game's first
        event (``remember`` then stays None)."""
        if self.remember is None or self.session is None:
            return None
        record = self.session.record
        new = [e for e in record[self.folded:] if e.get("type") == "event"]
        self.folded = len(record)
        if new:  # folded in one call (``remember`` copies the memory once per call)
            self.remembered = self.remember(
                self.remembered, [{"type": e.get("event"), "data": e.get("data")} for e in new],
                seat)
            self.record_seq = int(new[-1].get("seq", -1))
        if self.record_seq < self.session.public_event_seq:
            return None
        return self.remembered


def _round_of(view: dict[str, Any]) -> str | None:
    from shared.ai.search.bot import _round_id

    return _round_id(view)


async def play_search(game: GameSession, game_name: str, level: str, pool: SearchPool,
                      stop: asyncio.Event | None = None) -> GameSession:
    """``clients.sdk.bot_player.play_with`` for a search bot on a watched game: the same
    loop, each decision awaited from the pool within its budget."""
    bot = SearchSeat(pool, game_name, level, game)
    await play_with(game, bot, stop)
    log.info("search_seat_done", game_id=game.game_id, level=level, decisions=bot.decisions,
             fallbacks=bot.fallbacks)
    return game
