"""Memory of the bot runner per seat: the whole system on a private Valkey, N seats
given to one bot runner in games that wait on a human seat (so every bot stays connected),
the runner's RSS before and after.

    python -m bench.bot_seats [--seats 60] [--per-table 3]

Prints JSON: seats, RSS before/after (KiB) and KiB per seat.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port

LOGS = Path("test-output") / "bench-bot-seats"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def bots_pid(sup: Supervisor) -> int:
    for p in sup.procs:
        if p.service == "bots" and p.popen is not None:
            return int(p.popen.pid)
    raise RuntimeError("no bot runner")


async def seat_bots(url: str, seats: int, per_table: int) -> list[str]:
    """Tables of one human host (who never acts) and ``per_table`` bots each."""
    games = []
    tables = (seats + per_table - 1) // per_table
    for i in range(tables):
        async with Client(url) as c:
            await c.sign_in(f"host{i}")
            t = await c.create_table("duel", seats=per_table + 1, options={"rounds": 1},
                                     turn_timeout_ms=3_600_000, round_timeout_ms=3_600_000)
            for _ in range(min(per_table, seats - i * per_table)):
                await c.add_bot(t["table_id"])
            games.append(await c.start(t["table_id"]))
    return games


async def leases(admin: Any) -> int:
    n = 0
    async for _ in admin.scan_iter(match="bots:lease:*", count=1000):
        n += 1
    return n


async def measure(seats: int, per_table: int) -> dict[str, Any]:
    env = {"EMPIRE_QUOTA_OPEN_TABLES": "1000", "EMPIRE_QUOTA_RUNNING_GAMES": "1000",
           "EMPIRE_QUOTA_BOT_SEATS": "100000", "EMPIRE_BOTS_MAX_SEATS": str(seats + 10),
           "EMPIRE_LOG_LEVEL": "WARNING"}
    sup = Supervisor(port=free_port(), log_dir=LOGS, env_extra=env)
    sup.start(wait=120)
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    try:
        pid = bots_pid(sup)
        await asyncio.sleep(3.0)  # settled after start
        before = rss_kib(pid)
        t0 = time.monotonic()
        await seat_bots(sup.url, seats, per_table)
        deadline = time.monotonic() + 300
        while await leases(admin) < seats:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {await leases(admin)} of {seats} seats leased")
            await asyncio.sleep(0.5)
        await asyncio.sleep(5.0)  # every seat connected and watching
        after = rss_kib(pid)
        return {"seats": seats, "rss_before_kib": before, "rss_after_kib": after,
                "kib_per_seat": round((after - before) / seats, 1),
                "seating_s": round(time.monotonic() - t0, 1)}
    finally:
        await admin.aclose()
        sup.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seats", type=int, default=60)
    ap.add_argument("--per-table", type=int, default=3)
    args = ap.parse_args()
    print(json.dumps(asyncio.run(measure(args.seats, args.per_table))))


if __name__ == "__main__":
    main()
