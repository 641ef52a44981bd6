"""Turn-based games at scale: Valkey memory per idle turn-based game and for 100,000 of them,
and the durable timers (shared/runtime/timers.py) firing 100,000 pending deadlines on time.

    python -m bench.turn_based                  # both parts (make bench-turn-based)
    python -m bench.turn_based --only timers --timers 100000 --window 120
    python -m bench.turn_based --only memory --games 300 --scale 100000

**memory**: the whole system on a private Valkey (the supervisor, as ``make run``); ``--games``
real turn-based duel tables (two humans, clocks of 3 days) created, joined and started through
the gateway, then left idle at their client-seed round (nobody acts). Valkey's ``used_memory``
before and after, per game, and ``MEMORY USAGE`` of each key family of those games. Then the
idle games' keys are copied (``DUMP``/``RESTORE`` under new ids, the shared sets and streams
given one member or entry per copy as the services write them) up to ``--scale`` games, and
``used_memory`` is read again: the bytes 100,000 idle games hold, measured, not multiplied.

**timers**: a private Valkey and one ``Timers`` of the adjudicator's shape (batch 32, 4 rounds
per poll, polled every ``--poll-ms``); ``--timers`` deadlines armed at once, due spread evenly
over ``--window`` seconds from a few seconds on (every one pending when the first fires); each
firing's lateness (fired - due) as percentiles, and how many fired later than 1 s. ``--burst``
deadlines due at the same instant measure the drain rate (deadlines per second) of one poller.
The handler does nothing: this measures the timer machinery (claim, drop), not a game step.

Writes ``bench/results/turn-based-<time>.json`` and prints the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from shared.protocol import streams
from shared.runtime.timers import Timers
from shared.runtime.valkey import EmbeddedValkey, free_port

RESULTS = Path("bench/results")
LOGS = Path("test-output") / "bench-turn-based"
DAY_MS = 86_400_000


def now_ms() -> int:
    return int(time.time() * 1000)


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


# --- timers ---------------------------------------------------------------------------------


async def timers_part(n: int, window_s: float, burst: int, poll_ms: int) -> dict[str, Any]:
    server = EmbeddedValkey()
    server.start()
    r = aioredis.Redis.from_url(server.url)
    try:
        spread = await _fire(r, n, window_s, poll_ms, start_in_s=5.0)
        await r.flushdb()
        drained = await _fire(r, burst, 0.0, poll_ms, start_in_s=2.0)
        return {"pending": n, "window_s": window_s, "poll_ms": poll_ms, "spread": spread,
                "burst": {"deadlines": burst, **drained}}
    finally:
        await r.aclose()
        server.stop()


async def _fire(r: Any, n: int, window_s: float, poll_ms: int,
                start_in_s: float) -> dict[str, Any]:
    timers = Timers(r, streams.TIMERS_ADJ, partitions=1)
    t0 = now_ms() + int(start_in_s * 1000)
    step = window_s * 1000 / max(1, n)
    due = {f"g-{i:06d}|{i}": int(t0 + i * step) for i in range(n)}
    key = timers.key("g-000000")
    items = list(due.items())
    for i in range(0, n, 10_000):  # armed in chunks of one ZADD each
        await r.zadd(key, dict(items[i:i + 10_000]))
    late: list[float] = []

    async def handle(member: str) -> bool:
        late.append(now_ms() - due[member])
        return True

    task = asyncio.create_task(timers.run(handle, poll_ms / 1000, now_ms))
    deadline = time.monotonic() + start_in_s + window_s + 600
    while len(late) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    task.cancel()
    last_fire = max(late) if late else 0.0
    return {
        "fired": len(late),
        "late_ms_p50": pct(late, 0.5), "late_ms_p99": pct(late, 0.99),
        "late_ms_max": max(late) if late else None,
        "over_1s": sum(1 for x in late if x > 1000),
        "mean_late_ms": round(statistics.fmean(late), 1) if late else None,
        "drain_per_s": round(n / max(0.001, (window_s * 1000 + last_fire) / 1000))
        if window_s == 0 else None,
    }


# --- memory ---------------------------------------------------------------------------------


async def memory_part(games: int, scale: int) -> dict[str, Any]:
    from clients.sdk import Client
    from services.supervisor import Supervisor

    env = {"EMPIRE_QUOTA_TURN_BASED_GAMES": "100000", "EMPIRE_QUOTA_OPEN_TABLES": "100000",
           "EMPIRE_RATE_LIMITS": "0"}  # one host and one guest make every table
    sup = Supervisor(port=free_port(), log_dir=LOGS, env_extra=env)
    sup.start(wait=180)
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    try:
        await asyncio.sleep(2.0)
        before = int((await admin.info("memory"))["used_memory"])
        ids: list[tuple[str, str]] = []
        async with Client(sup.url) as host, Client(sup.url) as guest:
            await host.sign_in("tb-host")
            await guest.sign_in("tb-guest")
            for _ in range(games):
                t = await host.create_table("duel", seats=2, options={"rounds": 3},
                                            pace="turn-based", turn_timeout_ms=3 * DAY_MS,
                                            round_timeout_ms=3 * DAY_MS)
                await guest.join(t["table_id"])
                ids.append((await host.start(t["table_id"]), t["table_id"]))
        await _settled(admin, [g for g, _ in ids])
        after = int((await admin.info("memory"))["used_memory"])
        families = await _families(admin, ids)
        per_game = (after - before) / len(ids)
        copied = await _copy_up_to(admin, ids, scale)
        at_scale = int((await admin.info("memory"))["used_memory"])
        return {
            "games": len(ids), "used_memory_before": before, "used_memory_after": after,
            "bytes_per_game": round(per_game), "key_families": families,
            "scale": scale, "copied": copied,
            "used_memory_at_scale": at_scale,
            "bytes_per_game_at_scale": round((at_scale - before) / max(1, scale)),
        }
    finally:
        await admin.aclose()
        sup.stop()


async def _settled(admin: Any, game_ids: list[str], timeout_s: float = 120) -> None:
    """Every game at its client-seed round (the escrow opened it): idle from then on."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        opened = 0
        for gid in game_ids:
            if await admin.exists(f"esc:{{{gid}}}:round"):
                opened += 1
        if opened == len(game_ids):
            await asyncio.sleep(2.0)
            return
        await asyncio.sleep(0.5)
    raise RuntimeError("games not idle at their first round in time")


def _game_keys(gid: str, tid: str) -> list[str]:
    return [f"g:{{{gid}}}:{s}" for s in ("state", "log", "rec", "cmds", "v:spec", "v:0", "v:1",
                                         "meta")] + [
        f"esc:{{{gid}}}:{s}" for s in ("round", "st", "open", "c:entropy")] + [
        f"dealer:{{{gid}}}:seed", f"lobby:table:{tid}", f"lobby:mg:game:{gid}"]


async def _families(admin: Any, ids: list[tuple[str, str]]) -> dict[str, int]:
    """Mean MEMORY USAGE per game of each key family (the game's own keys and the lobby's)."""
    sums: dict[str, int] = {}
    for gid, tid in ids:
        for k in _game_keys(gid, tid):
            used = await admin.memory_usage(k, samples=0)
            if used:
                fam = k.replace(gid, "<id>").replace(tid, "<table>")
                sums[fam] = sums.get(fam, 0) + int(used)
    return {k: round(v / len(ids)) for k, v in sorted(sums.items())}


async def _copy_up_to(admin: Any, ids: list[tuple[str, str]], scale: int) -> int:
    """Copies of the idle games' keys under new ids until ``scale`` games exist, with what
    the services keep per game in shared keys: a timer per game (the turn's or round's
    deadline and the lifetime), the game in each player's My games, its turns entry."""
    dumps = []
    for gid, tid in ids:
        keys = [k for k in _game_keys(gid, tid) if await admin.exists(k)]
        dumps.append((gid, tid, [(k, await admin.dump(k)) for k in keys]))
    timers_key = f"{streams.TIMERS_ADJ}:{{adj/0}}"  # the lifetime (and a turn's deadline)
    esc_timers = f"{streams.TIMERS_ESC}:{{esc/0}}"  # the open round's deadline
    made = 0
    i = 0
    while len(ids) + made < scale:
        gid, tid, blobs = dumps[i % len(dumps)]
        new_g, new_t = f"g-c{i:07d}", f"t-c{i:07d}"
        async with admin.pipeline(transaction=False) as pipe:
            for k, blob in blobs:
                pipe.restore(k.replace(gid, new_g).replace(tid, new_t), 0, blob, replace=True)
            pipe.zadd(timers_key, {f"{new_g}|expire": now_ms() + 30 * DAY_MS})
            pipe.zadd(esc_timers, {f"{new_g}|entropy": now_ms() + 3 * DAY_MS})
            pipe.zadd(f"lobby:mg:player:p-copy-{i % 3334}", {new_g: now_ms()})
            pipe.xadd("turns", {"__data__": b"x" * 380}, maxlen=streams.maxlen("turns"))
            await pipe.execute()
        made += 1
        i += 1
    return made


# --- main -----------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("memory", "timers"))
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--scale", type=int, default=100_000)
    ap.add_argument("--timers", type=int, default=100_000)
    ap.add_argument("--window", type=float, default=120.0)
    ap.add_argument("--burst", type=int, default=10_000)
    ap.add_argument("--poll-ms", type=int, default=200)
    args = ap.parse_args()
    out: dict[str, Any] = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.only in (None, "timers"):
        out["timers"] = asyncio.run(timers_part(args.timers, args.window, args.burst,
                                                args.poll_ms))
        print(json.dumps(out["timers"], indent=1))
    if args.only in (None, "memory"):
        out["memory"] = asyncio.run(memory_part(args.games, args.scale))
        print(json.dumps(out["memory"], indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"turn-based-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
