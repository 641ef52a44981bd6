"""Every stream service's operations endpoint: /healthz, /readyz, /metrics."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

from shared.runtime.valkey import free_port

pytestmark = pytest.mark.integration


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


async def test_a_service_serves_health_readiness_and_metrics(redis_url: str) -> None:
    port = free_port()
    env = {**os.environ, "EMPIRE_REDIS_URL": redis_url, "EMPIRE_METRICS_PORT": str(port),
           "EMPIRE_REDIS_PLAINTEXT": "1",  # a loopback test server (shared/runtime/startup.py)
           "EMPIRE_INSTANCE": "ops-test"}
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "services.dealer"], env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            # a cold start without bytecode (the Makefile sets PYTHONDONTWRITEBYTECODE) on a busy
            # 2-core CI box can take well over 10 s; wait while the process lives, bounded
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and proc.poll() is None:
                await asyncio.sleep(0.2)
                try:
                    status, _ = _get(f"http://127.0.0.1:{port}/readyz")
                except OSError:
                    continue
                if status == 200:
                    break
            if proc.poll() is not None:
                err.seek(0)
                pytest.fail(f"the dealer exited with {proc.returncode}: "
                            f"{err.read().decode(errors='replace')[-2000:]}")
            assert _get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
            assert _get(f"http://127.0.0.1:{port}/readyz")[0] == 200
            status, text = _get(f"http://127.0.0.1:{port}/metrics")
            assert status == 200 and "empire_draws_total" in text
            # the live readers' batch metrics (shared/runtime/bus.py) and faststream's
            # middleware on the broker (its reclaim subscribers)
            for name in ("empire_stream_batch_seconds", "empire_stream_messages_total",
                         "empire_stream_in_process",
                         "faststream_received_processed_messages_duration_seconds"):
                assert f"# TYPE {name} " in text, name
            assert _get(f"http://127.0.0.1:{port}/nope")[0] == 404
        finally:
            proc.terminate()
            proc.wait(timeout=10)
