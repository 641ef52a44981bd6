"""The open-loop workload: rounds offered at a fixed rate, whatever the system's pace.

The throughput workload is a closed loop: each pair commits the moment its view allows, so
the offered load is whatever the system absorbs and latency is queueing behind a saturated
CPU. Here games arrive at ``rate / ROUNDS`` per second on a fixed schedule (a game is the
workload's 5 rounds, each played as soon as allowed: a round cannot be offered before the
previous one is revealed); each arrival takes a free pair from ``pairs`` and plays the next
game of its pool. An arrival that finds no free pair is counted (``missed``): the pairs are
too few for that rate, or the system fell behind it. Measured over the window: rounds/s
achieved, submit->ack and submit->reveal percentiles, CPU per round by process.
``python -m bench --only throughput,open`` offers half the rate measured at the highest level
(``--open-rate R`` for another).
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections import deque
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from bench import profiles, system
from bench.driver import ROUNDS, BenchError, Stats
from bench.system import ProcSampler
from bench.workloads import Pair, close_players, in_window, percentiles, prepare_pool


async def open_loop(sup: Any, lobby: Any, pairs: list[Pair], rate: float, window_s: float,
                    warmup_s: float = 2.0) -> dict[str, Any]:
    """Offer ``rate`` rounds/s for ``warmup_s + window_s`` with ``pairs`` (each plays one
    game at a time) and measure the window."""
    games_per_s = rate / ROUNDS
    total = math.ceil(games_per_s * (warmup_s + window_s)) + 1
    per_pair = max(1, math.ceil(1.5 * total / len(pairs)))
    stats = Stats()
    players, pools = await prepare_pool(sup.url, lobby, pairs, per_pair, stats)
    free = deque(range(len(players)))  # first in, first out: every pair takes its turn
    missed = 0
    failed: list[str] = []
    procs = system.service_processes(sup)
    sampler = ProcSampler(procs)
    redis = aioredis.Redis.from_url(sup.redis_url)
    cs0: dict[str, tuple[int, int]] = {}
    cc0: dict[str, int] = {}
    monitor_to = os.environ.get("BENCH_MONITOR", "")  # a file: every command of the window
    mon_task: asyncio.Task[None] | None = None
    spy_dir = os.environ.get("BENCH_PYSPY", "")  # a folder: py-spy of the hot services
    spies: list[tuple[str, Path, Any]] = []
    stats.clear()
    stats.measuring = True

    async def play(i: int) -> None:
        host, guest = players[i]
        try:
            gid = pools[i].pop()
            fa = await host.watch(gid)
            fb = await guest.watch(gid)
            await asyncio.wait_for(asyncio.gather(fa, fb), 60)
            await host.unwatch(gid)
            await guest.unwatch(gid)
        except (TimeoutError, BenchError, IndexError) as exc:
            failed.append(f"{type(exc).__name__}: {exc}"[:200])
        finally:
            if pools[i]:  # a pair out of games is retired
                free.append(i)

    tasks: list[asyncio.Task[None]] = []
    t0 = time.perf_counter()
    w0 = t0 + warmup_s
    end = w0 + window_s
    started_window = False
    k = 0
    while True:
        due = t0 + k / games_per_s
        if due >= end:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if not started_window and time.perf_counter() >= w0:
            cs0 = await system.commandstats(redis)
            cc0 = await system.client_commands(redis, procs)
            if spy_dir:
                spies = _spy(sup, spy_dir, window_s)
            if monitor_to:
                mon_task = asyncio.create_task(system.monitor(sup.redis_url, procs, monitor_to))
            sampler.start()
            started_window = True
        k += 1
        if not free:
            if due >= w0:
                missed += 1
            continue
        tasks.append(asyncio.create_task(play(free.popleft())))
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    w1 = time.perf_counter()
    if not started_window:  # a window shorter than one arrival
        sampler.start()
    usage = sampler.stop()
    if mon_task is not None:
        mon_task.cancel()
    cs1 = await system.commandstats(redis)
    cc1 = await system.client_commands(redis, procs)
    await redis.aclose()
    stats.measuring = False
    await asyncio.gather(*tasks, return_exceptions=True)
    await close_players(players)
    for name, raw, proc in spies:
        await asyncio.to_thread(proc.wait, 60)
        if raw.exists():
            raw.with_suffix(".txt").write_text(
                profiles.render(name, profiles.summarise(raw, top=40)) + "\n")
    return result("games", rate, len(pairs), stats, w0, w1, missed, usage, (cs0, cs1),
                  (cc0, cc1), failed[:10])


def result(mode: str, rate: float, pairs: int, stats: Stats, w0: float, w1: float, missed: int,
           usage: Any, commandstats: tuple[Any, Any], client_commands: tuple[Any, Any],
           failures: list[str]) -> dict[str, Any]:
    """An open loop's record of its window ``[w0, w1)``: rounds, latencies, and CPU, Valkey
    commands and system calls per round (the rounds and the games modes alike)."""
    rounds = in_window(stats.rounds_done, w0, w1)
    rps = rounds / (w1 - w0)
    cs0, cs1 = commandstats
    cc0, cc1 = client_commands
    return {
        "mode": mode,
        "offered_rounds_per_s": round(rate, 1),
        "pairs": pairs,
        "window_s": round(w1 - w0, 2),
        "rounds": rounds,
        "rounds_per_s": round(rps, 1),
        "missed_arrivals": missed,
        "submit_ack_ms": percentiles([d for t, d in stats.ack if w0 <= t < w1]),
        "submit_reveal_ms": percentiles([d for t, d in stats.reveal if w0 <= t < w1]),
        "cpu_ms_per_round": {k: round(10 * v / rps, 2) for k, v in usage.cpu_pct.items()}
        if rounds else {},
        "valkey_per_round": system.commandstats_delta(cs0, cs1, max(1, rounds)),
        "valkey_calls_per_round_by_process": {
            k: round((v - cc0.get(k, 0)) / max(1, rounds), 2) for k, v in cc1.items()},
        "syscalls_per_round": {
            k: {kind: round(getattr(usage, kind)[k] / max(1, rounds), 1)
                for kind in ("wakeups", "reads", "writes")} for k in usage.wakeups},
        "machine_cpu_pct": usage.machine_cpu_pct,
        "other_cpu_pct": usage.other_cpu_pct,
        "errors": dict(stats.errors),
        "failures": failures,
    }


def _spy(sup: Any, out: str, window_s: float) -> list[tuple[str, Path, Any]]:
    exe = profiles.py_spy()
    assert exe is not None, "py-spy is not installed"
    Path(out).mkdir(parents=True, exist_ok=True)
    spies = []
    for p in sup.procs:
        if p.service in system.HOT and p.popen is not None:
            raw = Path(out) / f"{p.service}-{p.index}.raw"
            spies.append((p.service, raw, profiles.record(exe, p.popen.pid, window_s, raw)))
    return spies
