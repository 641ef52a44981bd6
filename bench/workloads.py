"""The measured workloads: round throughput at N concurrent matches, the match lifecycle, and
Valkey's memory per live game. Each runs against a started system (``bench.system``)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from bench import system
from bench.driver import ROUNDS, BenchError, Identity, Lobby, Player, Stats, gather_limited
from bench.system import ProcSampler

# -- statistics ------------------------------------------------------------------------------


def percentiles(samples: list[float], scale: float = 1000.0) -> dict[str, float | int]:
    """p50/p95/p99/max (in ms by default) of a list of seconds."""
    if not samples:
        return {"n": 0}
    s = sorted(samples)

    def pick(q: float) -> float:
        return round(scale * s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))], 2)

    return {
        "n": len(s),
        "p50": pick(0.50),
        "p95": pick(0.95),
        "p99": pick(0.99),
        "max": round(scale * s[-1], 2),
    }


def in_window(times: list[float], t0: float, t1: float) -> int:
    return sum(1 for t in times if t0 <= t < t1)


# -- players ---------------------------------------------------------------------------------


@dataclass
class Pair:
    host: Identity
    guest: Identity


async def sign_in_pairs(lobby: Lobby, n: int, tag: str) -> list[Pair]:
    ids = await gather_limited(32, [lobby.sign_in(f"{tag}{i}") for i in range(2 * n)])
    return [Pair(ids[2 * i], ids[2 * i + 1]) for i in range(n)]


async def connect(base_url: str, ident: Identity, stats: Stats, seed: int) -> Player:
    p = Player(base_url, ident.player_id, ident.token, stats, random.Random(seed), ident.key)
    await p.connect()
    return p


# -- the pool of idle games ------------------------------------------------------------------


async def prepare_game(
    lobby: Lobby,
    host: Player,
    guest: Player,
    pair: Pair,
    client_entropy: bool,
    until: str = "pick:1",
    timeout: float = 120.0,
) -> str:
    """A started game, played up to the moment its ``until`` round is open at the escrow
    (nobody has committed to it); both seats then stop watching."""
    gid = (await lobby.new_game(pair.host, pair.guest, client_entropy))[0]
    fa = await host.watch(gid, until=until)
    fb = await guest.watch(gid, until=until)
    await asyncio.wait_for(asyncio.gather(fa, fb), timeout)
    await host.unwatch(gid)
    await guest.unwatch(gid)
    return gid


async def prepare_pool(
    base_url: str,
    lobby: Lobby,
    pairs: list[Pair],
    per_pair: int,
    stats: Stats,
    client_entropy: bool = False,
    until: str = "pick:1",
) -> tuple[list[tuple[Player, Player]], list[list[str]]]:
    """Connect every pair and give it ``per_pair`` idle games waiting at ``until``."""
    stats.measuring = False
    players = await gather_limited(
        64, [_connect_pair(base_url, p, stats, i) for i, p in enumerate(pairs)]
    )
    jobs = [
        prepare_game(lobby, players[i][0], players[i][1], pairs[i], client_entropy, until)
        for _ in range(per_pair)
        for i in range(len(pairs))
    ]
    gids = await gather_limited(24, jobs)
    games: list[list[str]] = [[] for _ in pairs]
    for k, gid in enumerate(gids):
        games[k % len(pairs)].append(gid)
    return players, games


async def _connect_pair(base_url: str, pair: Pair, stats: Stats, i: int) -> tuple[Player, Player]:
    a, b = await asyncio.gather(
        connect(base_url, pair.host, stats, 2 * i), connect(base_url, pair.guest, stats, 2 * i + 1)
    )
    return a, b


async def close_players(players: list[tuple[Player, Player]]) -> None:
    await asyncio.gather(*(p.close() for pair in players for p in pair))


# -- throughput: rounds/s at N concurrent matches ---------------------------------------------


FINISHED: list[str] = []  # a sample of games played to the end (for finished_memory)


@dataclass
class Window:
    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


async def _play_games(
    host: Player, guest: Player, games: list[str], stop_at: float, stats: Stats, delay: float = 0.0
) -> str:
    """Play the pair's games back to back: "stopped" at the window's end, "exhausted" when
    out of games, "dead" when a connection was lost."""
    await asyncio.sleep(delay)
    for gid in games:
        if time.perf_counter() >= stop_at:
            return "stopped"
        if host.lost or guest.lost:
            stats.errors["connection lost"] += 1
            return "dead"
        fa = await host.watch(gid)
        fb = await guest.watch(gid)
        try:
            await asyncio.wait_for(asyncio.gather(fa, fb), 60)
            if len(FINISHED) < 200:
                FINISHED.append(gid)
        except (TimeoutError, BenchError) as exc:
            stats.errors[f"game failed: {type(exc).__name__}: {exc}"[:120]] += 1
        if not (host.lost or guest.lost):
            await host.unwatch(gid)
            await guest.unwatch(gid)
    return "exhausted"


async def throughput(
    sup: Any,
    lobby: Lobby,
    pairs: list[Pair],
    matches: int,
    window_s: float,
    est_rounds_per_s: float,
    warmup_s: float = 1.0,
    on_ready: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Rounds/s with ``matches`` concurrent matches, each pair playing pooled games back to
    back for ``window_s`` seconds."""
    stats = Stats()
    per_pair = max(
        2, math.ceil(1.25 * est_rounds_per_s * (window_s + warmup_s) / (ROUNDS * matches)) + 1
    )
    t_prep = time.perf_counter()
    players, games = await prepare_pool(sup.url, lobby, pairs[:matches], per_pair, stats)
    prep_s = time.perf_counter() - t_prep
    redis = aioredis.Redis.from_url(sup.redis_url)
    procs = system.service_processes(sup)
    sampler = ProcSampler(procs)
    if on_ready is not None:
        on_ready()
    stats.clear()
    stats.measuring = True
    # the matches start spread over a ramp (not 2N watches in the same millisecond); the
    # window opens a second after the last one started
    ramp_s = min(2.0, 0.01 * matches)
    warmup_s += ramp_s
    t0 = time.perf_counter()
    stop_at = t0 + warmup_s + window_s
    tasks = [
        asyncio.create_task(_play_games(h, g, games[i], stop_at, stats, ramp_s * i / matches))
        for i, (h, g) in enumerate(players)
    ]
    await asyncio.sleep(warmup_s)
    cs0 = await system.commandstats(redis)
    cc0 = await system.client_commands(redis, procs)
    sampler.start()
    w0 = time.perf_counter()
    pending: set[asyncio.Task[str]] = set(tasks)
    exhausted = False
    while pending and not exhausted and time.perf_counter() < stop_at:
        done, pending = await asyncio.wait(
            pending, timeout=stop_at - time.perf_counter(), return_when=asyncio.FIRST_COMPLETED
        )
        exhausted = any(
            not t.cancelled() and t.exception() is None and t.result() == "exhausted" for t in done
        )
    w1 = time.perf_counter()
    usage = sampler.stop()
    cs1 = await system.commandstats(redis)
    cc1 = await system.client_commands(redis, procs)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    stats.measuring = False
    await close_players(players)
    await redis.aclose()
    window = Window(w0, w1)
    rounds = in_window(stats.rounds_done, w0, w1)
    rps = rounds / window.seconds if window.seconds > 0 else 0.0
    ack = [d for t, d in stats.ack if w0 <= t < w1]
    rev = [d for t, d in stats.reveal if w0 <= t < w1]
    failures = [repr(r) for r in results if isinstance(r, BaseException)]
    failures += [f"pair {i}: connection lost" for i, r in enumerate(results) if r == "dead"]
    return {
        "matches": matches,
        "window_s": round(window.seconds, 2),
        "valid": window.seconds >= 0.5 * window_s and not failures and not stats.errors,
        "rounds": rounds,
        "rounds_per_s": round(rps, 1),
        "moves_per_s": round(4 * rps, 1),
        "games_per_s": round(in_window(stats.games_done, w0, w1) / window.seconds, 2),
        "submit_ack_ms": percentiles(ack),
        "submit_reveal_ms": percentiles(rev),
        "cpu_pct": usage.cpu_pct,
        "rss_mib": usage.rss_mib,
        "cpu_ms_per_round": {k: round(10 * v / rps, 2) for k, v in usage.cpu_pct.items()}
        if rounds
        else {},
        "syscalls_per_round": {
            k: {kind: round(getattr(usage, kind)[k] / max(1, rounds), 1)
                for kind in ("wakeups", "reads", "writes")} for k in usage.wakeups},
        "machine_cpu_pct": usage.machine_cpu_pct,
        "other_cpu_pct": usage.other_cpu_pct,
        "valkey_per_round": system.commandstats_delta(cs0, cs1, max(1, rounds)),
        "valkey_calls_per_round_by_process": {
            k: round((v - cc0.get(k, 0)) / max(1, rounds), 2) for k, v in cc1.items()},
        "pool_exhausted": exhausted,
        "pool_games": per_pair * matches,
        "pool_prep_s": round(prep_s, 1),
        "errors": dict(stats.errors),
        "failures": failures,
        "frames_in_per_round": round(stats.frames_in / max(1, len(stats.rounds_done)), 1),
        "frames_in_per_round_by_kind": {
            k: round(n / max(1, len(stats.rounds_done)), 2)
            for k, n in stats.frames_by_kind.most_common()
        },
    }


# -- lifecycle: create, join, start, connect, 5 rounds, close --------------------------------


async def _one_match(
    base_url: str,
    lobby: Lobby,
    pair: Pair,
    stats: Stats,
    entropy: bool,
    seed: int,
    times: list[tuple[float, float]],
) -> None:
    t0 = time.perf_counter()
    gid, _ = await lobby.new_game(pair.host, pair.guest, entropy)
    a, b = await asyncio.gather(
        connect(base_url, pair.host, stats, seed), connect(base_url, pair.guest, stats, seed + 1)
    )
    try:
        fa = await a.watch(gid)
        fb = await b.watch(gid)
        await asyncio.wait_for(asyncio.gather(fa, fb), 60)
    finally:
        await asyncio.gather(a.close(), b.close())
    t1 = time.perf_counter()
    times.append((t1, t1 - t0))


async def lifecycle(
    sup: Any,
    lobby: Lobby,
    pairs: list[Pair],
    concurrency: int,
    window_s: float,
    entropy: bool,
    warmup_s: float = 4.0,
    on_window: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Complete matches/s with ``concurrency`` matches in flight: create (the host takes seat
    0), join (seat 1), start, both players connect a new WebSocket and watch, 5 rounds (after
    the entropy round when ``entropy``), both close. ``on_window`` is called as the measured
    window opens (after the warm-up)."""
    stats = Stats()
    stats.measuring = False  # per-round latencies are not the point here
    times: list[tuple[float, float]] = []
    errors: list[str] = []
    t_start = time.perf_counter()
    stop_at = t_start + warmup_s + window_s

    async def loop(i: int) -> None:
        await asyncio.sleep(i / concurrency)  # starts spread over a second
        k = 0
        while time.perf_counter() < stop_at:
            try:
                await _one_match(sup.url, lobby, pairs[i], stats, entropy, 1000 * i + 2 * k, times)
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
            k += 1

    sampler = ProcSampler(system.service_processes(sup))
    tasks = [asyncio.create_task(loop(i)) for i in range(concurrency)]
    await asyncio.sleep(warmup_s)
    if on_window is not None:
        on_window()
    sampler.start()
    w0 = time.perf_counter()
    await asyncio.sleep(max(0.0, stop_at - w0))
    w1 = time.perf_counter()
    usage = sampler.stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    done = [d for t, d in times if w0 <= t < w1]
    return {
        "concurrency": concurrency,
        "client_entropy": entropy,
        "window_s": round(w1 - w0, 2),
        "matches": len(done),
        "matches_per_s": round(len(done) / (w1 - w0), 2),
        "match_ms": percentiles(done),
        "cpu_pct": usage.cpu_pct,
        "rss_mib": usage.rss_mib,
        "machine_cpu_pct": usage.machine_cpu_pct,
        "other_cpu_pct": usage.other_cpu_pct,
        "errors": errors[:10],
        "error_count": len(errors),
    }


# -- Valkey memory per live game ------------------------------------------------------------


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


GAME_ID = re.compile(r"g-[0-9a-f]{16}")


def key_kind(key: str, gid: str) -> str:
    """``g:{id}:v:0`` -> ``g:v:<seat>``, ``esc:{id}:c:pick:1`` -> ``esc:c:<round>``."""
    kind = key.replace("{" + gid + "}", "").replace(gid, "<id>").replace("::", ":")
    parts = kind.split(":")
    if parts[:2] == ["g", "v"] and len(parts) == 3 and parts[2] != "spec":
        return "g:v:<seat>"
    if parts[:2] == ["esc", "c"]:
        return "esc:c:<round>"
    return kind


async def game_memory(redis: Any, gids: list[str], tables: dict[str, str]) -> dict[str, Any]:
    """MEMORY USAGE (exact: SAMPLES 0) over every key of each game, by kind of key."""
    wanted = set(gids)
    keys: dict[str, list[str]] = {g: [] for g in gids}
    async for raw in redis.scan_iter(count=1000):
        k = _s(raw)
        for g in GAME_ID.findall(k):
            if g in wanted:
                keys[g].append(k)
                break
    for g, tid in tables.items():
        if g in keys:
            keys[g].append(f"lobby:table:{tid}")
    by_kind: dict[str, list[int]] = {}
    totals = []
    for g, ks in keys.items():
        total = 0
        for k in ks:
            n = await redis.memory_usage(k, samples=0) or 0
            total += n
            kind = "lobby:table" if k.startswith("lobby:table:") else key_kind(k, g)
            by_kind.setdefault(kind, []).append(n)
        totals.append(total)
    n = max(1, len(gids))
    return {
        "games": len(gids),
        "bytes_per_game": round(sum(totals) / n),
        "keys_per_game": round(sum(len(v) for v in keys.values()) / n, 1),
        "by_key": {
            k: round(sum(v) / n) for k, v in sorted(by_kind.items(), key=lambda kv: -sum(kv[1]))
        },
    }


async def memory(
    sup: Any, lobby: Lobby, pairs: list[Pair], n_games: int, entropy: bool = True
) -> dict[str, Any]:
    """Valkey bytes per idle live game: INFO used_memory before/after ``n_games`` games that
    wait at their first pick round (default options: client entropy on), and MEMORY USAGE
    over each game's keys; plus the same keys for games idle before their last round."""
    redis = aioredis.Redis.from_url(sup.redis_url)
    stats = Stats()
    await asyncio.sleep(1.0)
    before = int((await redis.info("memory"))["used_memory"])
    tables: dict[str, str] = {}
    lobby.table_log = tables
    players, games = await prepare_pool(
        sup.url, lobby, pairs, math.ceil(n_games / len(pairs)), stats, client_entropy=entropy
    )
    await asyncio.sleep(1.0)
    after = int((await redis.info("memory"))["used_memory"])
    fresh = [g for gs in games for g in gs]
    late: list[str] = []
    sample = 20
    for i in range(min(sample, len(players))):
        gid = await prepare_game(
            lobby, players[i][0], players[i][1], pairs[i], entropy, until=f"pick:{ROUNDS}"
        )
        late.append(gid)
    lobby.table_log = None
    await close_players(players)
    out = {
        "client_entropy": entropy,
        "info_used_memory_delta_per_game": round((after - before) / len(fresh)),
        "idle_at_first_round": await game_memory(redis, fresh[: sample * 5], tables),
        "idle_before_last_round": await game_memory(redis, late, tables),
    }
    await redis.aclose()
    return out


async def finished_memory(sup: Any, sample: int = 50) -> dict[str, Any]:
    """What an ended game leaves in Valkey, a while after its end (scored, seed revealed)."""
    redis = aioredis.Redis.from_url(sup.redis_url)
    out = await game_memory(redis, FINISHED[:sample], {})
    with contextlib.suppress(Exception):
        await redis.aclose()
    return out
