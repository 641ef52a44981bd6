"""Probes that mean something: a stream service whose consumer is wedged fails
liveness, one whose consume loop stopped fails readiness and liveness, a healthy one passes
both; consumers of processes that are gone are removed from their groups; the gateway's
/readyz answers 503 ("fan-out") once its gw:updates subscriber stops."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from shared.runtime.redis import ensure_group
from shared.runtime.service import build, live_probe, ready_probe, reap_consumers
from shared.runtime.settings import Settings
from tests.support.waits import eventually

pytestmark = pytest.mark.integration


async def _kit(redis_url: str, handler_hangs: bool) -> tuple[object, str, asyncio.Event]:
    stream = f"probe:{uuid.uuid4().hex[:8]}"
    settings = Settings(redis_url=redis_url, liveness_stall_s=1.0, log_json=False,
                        instance=f"probe-{uuid.uuid4().hex[:6]}")
    kit = build("probe-test", settings)
    release = asyncio.Event()

    async def handler(body: dict[str, object]) -> None:
        if handler_hangs:
            await release.wait()  # a handler that never returns: the entry stays pending

    kit.consume(stream, "g", handler)
    await ensure_group(kit.redis, stream, "g")
    await kit.broker.start()
    kit.start_readers()
    return kit, stream, release


async def test_a_wedged_consumer_fails_liveness_and_a_healthy_one_passes(redis_url: str) -> None:
    wedged, stream, release = await _kit(redis_url, handler_hangs=True)
    healthy, stream2, _ = await _kit(redis_url, handler_hangs=False)
    try:
        await wedged.redis.xadd(stream, {"__data__": b'{"game_id":"x"}'})  # type: ignore[attr-defined]
        await healthy.redis.xadd(stream2, {"__data__": b'{"game_id":"x"}'})  # type: ignore[attr-defined]
        assert await live_probe(wedged) and await ready_probe(wedged)  # type: ignore[arg-type]
        async def stalled() -> bool:  # its handler busy past the stall bound (1 s)
            return not await live_probe(wedged)  # type: ignore[arg-type]

        await eventually(stalled, "the wedged consumer failed its liveness probe")
        assert await live_probe(healthy) and await ready_probe(healthy)  # type: ignore[arg-type]
    finally:
        release.set()
        for kit in (wedged, healthy):
            await kit.stop_readers()  # type: ignore[attr-defined]
            await kit.broker.stop()  # type: ignore[attr-defined]
    # a stopped consume loop: neither ready nor live
    assert not await ready_probe(healthy)  # type: ignore[arg-type]
    assert not await live_probe(healthy)  # type: ignore[arg-type]
    for kit in (wedged, healthy):
        await kit.redis.aclose()  # type: ignore[attr-defined]


async def test_consumers_of_gone_processes_are_removed(redis_url: str) -> None:
    r = aioredis.Redis.from_url(redis_url, decode_responses=True)
    stream = f"reap:{uuid.uuid4().hex[:8]}"
    try:
        await ensure_group(r, stream, "g")
        await r.xadd(stream, {"d": "1"})
        await r.xadd(stream, {"d": "2"})
        await r.xreadgroup("g", "gone-idle", {stream: ">"}, count=1)  # then acked: nothing pending
        await r.xack(stream, "g", (await r.xrange(stream, count=1))[0][0])
        await r.xreadgroup("g", "gone-pending", {stream: ">"}, count=1)  # left pending
        await asyncio.sleep(0.3)
        assert await reap_consumers(r, [(stream, "g")], idle_s=0.1) == 1
        names = {c["name"] for c in await r.xinfo_consumers(stream, "g")}
        assert names == {"gone-pending"}  # kept until reclaim takes its entry
        assert await reap_consumers(r, [(stream, "g")], idle_s=3600) == 0
    finally:
        await r.delete(stream)
        await r.aclose()


# The gateway in a process of its own (create_app reads the environment's settings): the real
# app with its lifespan (broker, fan-out subscriber on gw:updates, lobby reply channel) against
# the test server; its /readyz through ASGI before and after the fan-out subscriber's consume
# loop ends (as when its task dies: the loop is cancelled, the process lives on).
GATEWAY_READINESS = """
import asyncio, json, sys
import httpx
from services.gateway.app import create_app

async def main():
    out = {}
    app = create_app()
    gw = app.state.gateway
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as http:
            async def readyz():
                for _ in range(100):  # the subscribers start their loops right after start
                    r = await http.get("/readyz")
                    if r.status_code == 200 or out.get("ready"):
                        return r.status_code, r.json()
                    await asyncio.sleep(0.1)
                return r.status_code, r.json()
            out["ready"] = await readyz()
            fan_out = [s for s in gw.broker.subscribers if "gw:updates" in str(
                getattr(getattr(s, "stream_sub", None), "name", ""))]
            out["fan_out_subscribers"] = len(fan_out)
            for s in fan_out:
                for t in s.tasks:
                    t.cancel()
            await asyncio.sleep(0.2)
            out["after"] = await readyz()
            out["healthz"] = (await http.get("/healthz")).status_code
    print(json.dumps(out))

asyncio.run(main())
"""


def test_the_gateway_is_not_ready_once_its_fan_out_subscriber_stops(redis_url: str) -> None:
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "EMPIRE_REDIS_URL": redis_url, "EMPIRE_REDIS_PLAINTEXT": "1",
           "EMPIRE_LOG_JSON": "0", "EMPIRE_INSTANCE": f"gw-probe-{uuid.uuid4().hex[:6]}",
           "EMPIRE_METRICS_PORT": "0"}
    env.pop("REDIS_URL", None)
    run = subprocess.run([sys.executable, "-c", GATEWAY_READINESS], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["ready"] == [200, {"ok": True, "instance": env["EMPIRE_INSTANCE"]}], out
    assert out["fan_out_subscribers"] == 1, out
    assert out["after"] == [503, {"ok": False, "reason": "fan-out"}], out
    assert out["healthz"] == 200  # alive: the process answers; it only stops taking sockets
