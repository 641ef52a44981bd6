"""Every stream service's operations endpoint: /healthz, /readyz, /metrics."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import urllib.request

import pytest

from shared.runtime.valkey import free_port

pytestmark = pytest.mark.integration


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


async def test_a_service_serves_health_readiness_and_metrics(redis_url: str) -> None:
    port = free_port()
    env = {**os.environ, "EMPIRE_REDIS_URL": redis_url, "EMPIRE_METRICS_PORT": str(port),
           "EMPIRE_INSTANCE": "ops-test"}
    proc = subprocess.Popen([sys.executable, "-m", "services.dealer"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            await asyncio.sleep(0.1)
            try:
                status, _ = _get(f"http://127.0.0.1:{port}/readyz")
            except OSError:
                continue
            if status == 200:
                break
        assert _get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
        assert _get(f"http://127.0.0.1:{port}/readyz")[0] == 200
        status, text = _get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and "empire_draws_total" in text
        assert _get(f"http://127.0.0.1:{port}/nope")[0] == 404
    finally:
        proc.terminate()
        proc.wait(timeout=10)
