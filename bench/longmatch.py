"""The long match: what a round costs early in one match and late in it.

``matches`` games of ``rounds`` rounds of the duel (the throughput workload's options but the
round count), one pair of players each, played as fast as the seats may move. The server's
CPU (every service process and Valkey, not the driver) is sampled every 100 ms from
``/proc/<pid>/task/*/schedstat`` (nanoseconds; ``/proc/<pid>/stat`` counts 10 ms ticks, too
coarse for a band of rounds). Per band of rounds (``BANDS``: around round 25 = the peer's move
100 and round 500 = its move 2,000, 4 peer moves per round): the wall ms per round of each
match between the band's first and last round (median over matches), and the server's CPU
between the median times those rounds were reached, per round any match completed meanwhile.
The peer's driver (bench/peer/driver.js ``bandFigures``) computes the same figures the same
way. ``python -m bench --only long``; ``make bench-peer`` runs it for every side.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from bench.driver import OPTIONS, Stats
from bench.workloads import Pair, close_players, connect

# (the peer's move the band is around, first round, last round): rounds completed
BANDS: tuple[tuple[int, int, int], ...] = ((100, 15, 35), (2000, 490, 510))
ROUNDS = 512


def task_seconds(pid: int) -> float:
    """CPU seconds ``pid`` has run, every thread (0.0 once it is gone)."""
    ns = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for t in tasks:
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                ns += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return ns / 1e9


@dataclass
class CpuTrace:
    """The CPU seconds of each of ``pids`` (name -> pid), sampled every ``every`` s in a
    thread; ``samples`` holds their sum, ``by_name`` each one's."""

    pids: dict[str, int]
    every: float = 0.1
    samples: list[tuple[float, float]] = field(default_factory=list)
    by_name: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def read(self) -> float:
        now = time.perf_counter()
        total = 0.0
        for name, pid in self.pids.items():
            v = task_seconds(pid)
            self.by_name.setdefault(name, []).append((now, v))
            total += v
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            t = time.perf_counter()
            self.samples.append((t, self.read()))
            self._stop.wait(self.every)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        t = time.perf_counter()
        self.samples.append((t, self.read()))


def cpu_at(samples: list[tuple[float, float]], t: float) -> float:
    """The CPU seconds at ``t``, linear between the samples around it."""
    prev = samples[0]
    for cur in samples:
        if cur[0] >= t:
            if cur[0] == prev[0]:
                return cur[1]
            return prev[1] + (cur[1] - prev[1]) * (t - prev[0]) / (cur[0] - prev[0])
        prev = cur
    return prev[1]


def band_figures(marks: list[tuple[str, int, float]], samples: list[tuple[float, float]],
                 bands: tuple[tuple[int, int, int], ...] = BANDS,
                 by_name: dict[str, list[tuple[float, float]]] | None = None
                 ) -> list[dict[str, Any]]:
    """Per band: rounds completed in it, wall ms per round (median over matches) and server
    CPU ms per round (``samples``: (when, CPU seconds so far)), and with ``by_name`` each
    process's CPU ms per round (``by_process``)."""
    by_match: dict[str, dict[int, float]] = {}
    for gid, r, t in marks:
        by_match.setdefault(gid, {})[r] = t
    out = []
    for move, first, last in bands:
        ends = [m for m in by_match.values() if first in m and last in m]
        row: dict[str, Any] = {"move": move, "from": first, "to": last, "rounds": 0,
                               "wall_ms_per_round": None, "cpu_ms_per_round": None}
        if ends and samples:
            ta = statistics.median_low([m[first] for m in ends])
            tb = statistics.median_low([m[last] for m in ends])
            rounds = sum(1 for _, _, t in marks if ta < t <= tb)
            row["rounds"] = rounds
            row["wall_ms_per_round"] = round(statistics.median_low(
                [1000 * (m[last] - m[first]) / (last - first) for m in ends]), 3)
            if rounds:
                row["cpu_ms_per_round"] = round(
                    1000 * (cpu_at(samples, tb) - cpu_at(samples, ta)) / rounds, 3)
                if by_name:
                    row["by_process"] = {
                        name: round(1000 * (cpu_at(ss, tb) - cpu_at(ss, ta)) / rounds, 3)
                        for name, ss in by_name.items()}
        out.append(row)
    return out


async def long_match(url: str, lobby: Any, pairs: list[Pair], server_pids: dict[str, int],
                     rounds: int = ROUNDS, matches: int = 1,
                     timeout_s: float = 900.0) -> dict[str, Any]:
    """``matches`` games of ``rounds`` rounds at once, one pair each; the bands' figures."""
    options = {**OPTIONS, "rounds": rounds}
    stats = Stats()
    stats.measuring = False
    stats.marks = []
    players = [await _pair(url, p, stats, i) for i, p in enumerate(pairs[:matches])]
    gids = [(await lobby.new_game(pairs[i].host, pairs[i].guest, False, options))[0]
            for i in range(matches)]
    trace = CpuTrace(server_pids)
    trace.start()
    t0 = time.perf_counter()
    try:
        futs = []
        for (a, b), gid in zip(players, gids, strict=True):
            futs += [await a.watch(gid), await b.watch(gid)]
        await asyncio.wait_for(asyncio.gather(*futs), timeout_s)
    finally:
        trace.stop()
        await close_players(players)
    bands = band_figures(stats.marks, trace.samples,
                         tuple(b for b in BANDS if b[2] <= rounds), trace.by_name)
    return {"matches": matches, "rounds_per_match": rounds,
            "seconds": round(time.perf_counter() - t0, 2),
            "errors": dict(stats.errors), "bands": bands}


async def _pair(url: str, pair: Pair, stats: Stats, i: int) -> tuple[Any, Any]:
    a, b = await asyncio.gather(connect(url, pair.host, stats, 2 * i),
                                connect(url, pair.guest, stats, 2 * i + 1))
    return a, b
