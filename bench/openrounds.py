"""The open loop of rounds: rounds offered at a rate, whatever the system's pace, each a
commit -> reveal of a game already running.

``K`` long duel games (``ROUNDS_PER_GAME`` rounds each, the workload's other options) are
created, watched and brought to their first round before the window, so the window holds
rounds only: no watch, no game start or end, which the games mode (bench/openloop.py) spreads
over its rounds. Each seat holds a round the moment its view offers it; a game whose seats
both hold the same round is ready. Rounds arrive by a Poisson process of ``rate`` a second
(seeded: the same arrival times in every run); an arrival releases the ready game that has
waited longest (both seats commit at once, as in the closed loop) and one that finds none is
counted (``missed``: too few games for the rate, or the system fell behind it). Measured over
the window: rounds/s done, submit->ack and submit->reveal percentiles, CPU per round by
process, Valkey commands per round and each process's wake-ups and system calls per round.
``python -m bench --only open --open-mode rounds --open-rate R --open-pairs K``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from typing import Any

import redis.asyncio as aioredis

from bench import system
from bench.driver import OPTIONS, Player, Stats, Track, gather_limited
from bench.openloop import result
from bench.system import ProcSampler
from bench.workloads import Pair, close_players

ROUNDS_PER_GAME = 1000  # the duel's most: a game outlasts any window at these rates


class HeldPlayer(Player):
    """A player whose rounds wait for the schedule: ``hold`` takes each offered round."""

    hold: Any = None  # (player, track, node) -> None

    async def _commit_round(self, tr: Track, node: dict[str, Any],
                            released: bool = False) -> None:
        if not released and self.hold is not None and node["round_id"] not in tr.committed:
            self.hold(self, tr, node)
            return
        await super()._commit_round(tr, node)


async def open_rounds(sup: Any, lobby: Any, pairs: list[Pair], rate: float, window_s: float,
                      warmup_s: float = 2.0, seed: int = 48) -> dict[str, Any]:
    """Offer ``rate`` rounds/s of ``len(pairs)`` running games for ``warmup_s + window_s``
    and measure the window."""
    stats = Stats()
    stats.measuring = False
    options = {**OPTIONS, "rounds": ROUNDS_PER_GAME}
    held: dict[str, dict[int, tuple[HeldPlayer, Track, dict[str, Any]]]] = {}
    ready: deque[str] = deque()

    def hold(player: HeldPlayer, tr: Track, node: dict[str, Any]) -> None:
        seats = held.setdefault(tr.game_id, {})
        assert tr.seat is not None
        seats[tr.seat] = (player, tr, node)
        if len(seats) == 2 and len({n["round_id"] for _, _, n in seats.values()}) == 1:
            ready.append(tr.game_id)

    async def connect(ident: Any, i: int) -> HeldPlayer:
        p = HeldPlayer(sup.url, ident.player_id, ident.token, stats, random.Random(i),
                       ident.key)
        p.hold = hold
        await p.connect()
        return p

    players: list[tuple[Player, Player]] = [
        (await connect(p.host, 2 * i), await connect(p.guest, 2 * i + 1))
        for i, p in enumerate(pairs)]
    games = await gather_limited(16, [lobby.new_game(p.host, p.guest, False, options)
                                      for p in pairs])
    ends = []
    for (a, b), (gid, *_) in zip(players, games, strict=True):
        ends += [await a.watch(gid), await b.watch(gid)]
    t_ready = time.perf_counter() + 30
    while len(ready) < len(pairs) and time.perf_counter() < t_ready:
        await asyncio.sleep(0.05)
    if len(ready) < len(pairs):
        raise RuntimeError(f"only {len(ready)} of {len(pairs)} games reached their first round")

    procs = system.service_processes(sup)
    sampler = ProcSampler(procs)
    redis = aioredis.Redis.from_url(sup.redis_url)
    rng = random.Random(seed)
    missed = 0
    stats.clear()
    stats.measuring = True
    t0 = time.perf_counter()
    w0, end = t0 + warmup_s, t0 + warmup_s + window_s
    started = False
    cs0: dict[str, tuple[int, int]] = {}
    cc0: dict[str, int] = {}
    due = t0
    while True:
        due += rng.expovariate(rate)
        if due >= end:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if not started and time.perf_counter() >= w0:
            cs0 = await system.commandstats(redis)
            cc0 = await system.client_commands(redis, procs)
            sampler.start()
            started = True
        if not ready:
            if due >= w0:
                missed += 1
            continue
        gid = ready.popleft()
        for player, tr, node in held.pop(gid).values():
            asyncio.get_running_loop().create_task(
                player._commit_round(tr, node, released=True))
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    w1 = time.perf_counter()
    if not started:
        sampler.start()
    usage = sampler.stop()
    cs1 = await system.commandstats(redis)
    cc1 = await system.client_commands(redis, procs)
    await redis.aclose()
    stats.measuring = False
    await close_players(players)
    # the games outlive the run: closing the sockets ends the watches (connection lost)
    await asyncio.gather(*ends, return_exceptions=True)
    return result("rounds", rate, len(pairs), stats, w0, w1, missed, usage, (cs0, cs1),
                  (cc0, cc1), [])
