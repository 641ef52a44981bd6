"""From outside: with Valkey near maxmemory a client is told 503 storage/full with
Retry-After when it signs up or creates a table, while a running game's moves go on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.support.waits import eventually

pytestmark = [pytest.mark.e2e, pytest.mark.full]


async def test_near_the_limit_new_things_wait_and_running_games_finish() -> None:
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/logs/storage-full"),
                     env_extra={"EMPIRE_PUBLIC_METRICS": "1"})  # the memory gauge read below
    sup.start(wait=180)
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    try:
        async with Client(sup.url) as host:
            await host.sign_in("before-the-limit")
            t = await host.create_table("duel", 2, {"rounds": 3})
            await host.add_bot(t["table_id"])
            gid = await host.start(t["table_id"])
            used = int((await admin.info("memory"))["used_memory"])
            cap = used + 48 * 1024 * 1024
            await admin.config_set("maxmemory", str(cap))
            n = 0  # ballast up to 87%: past the soft limit (85%), with ~6 MiB of headroom
            while int((await admin.info("memory"))["used_memory"]) < cap * 0.87:
                await admin.set(f"ballast:{n}", b"x" * 64 * 1024)
                n += 1
            async with httpx.AsyncClient(base_url=sup.url, timeout=30) as http:

                async def sampled() -> bool:  # the gateway samples Valkey's memory every 2 s
                    text = (await http.get("/metrics")).text
                    return any(line.startswith("empire_valkey_memory_ratio ")
                               and float(line.split()[1]) >= 0.85 for line in text.splitlines())

                await eventually(sampled, "the gateway saw Valkey past its soft limit")
                r = await http.post("/api/players", json={"name": "after-the-limit"})
                assert r.status_code == 503 and r.json()["code"] == "storage/full"
                assert r.headers["retry-after"] == "30"
                r = await http.post("/api/tables", json={"game": "duel", "seats": 2},
                                    headers={"authorization": f"Bearer {host.token}"})
                assert r.status_code == 503 and r.json()["code"] == "storage/full"
            session = await asyncio.wait_for(play_seat(host, gid), 120)  # moves go on
            assert session.ended
    finally:
        await admin.aclose()
        sup.stop()
