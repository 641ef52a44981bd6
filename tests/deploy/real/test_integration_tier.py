"""The integration tier once on a testcontainers Valkey (tests/conftest.py's redis_url) from our
engine and the locally built Valkey image, instead of the embedded server: DOCKER_HOST points
at the engine for that run alone, no reaper image (TESTCONTAINERS_RYUK_DISABLED). Its file sorts
first in this folder: the compose stack (a session fixture) is not up while the tier runs."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import TEST_NETWORK, VALKEY_IMAGE
from tests.deploy.real.compose import ROOT, Engine

pytestmark = pytest.mark.containers


def test_the_integration_tier_runs_on_a_testcontainers_valkey(engine: Engine) -> None:
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:  # the fixture's container, while the tier runs
        while not done.is_set():
            out = engine.docker("ps", "--filter", f"ancestor={VALKEY_IMAGE}", "--filter",
                                f"network={TEST_NETWORK}", "--format", "{{.Names}}",
                                check=False, timeout=30)
            seen.update(out.split())
            time.sleep(2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    env = {**engine.env, "TESTCONTAINERS_RYUK_DISABLED": "true"}
    env.pop("REDIS_URL", None)
    t = time.monotonic()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m",
             "integration and not slow"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    finally:
        done.set()
        watcher.join(10)
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    print(f"deploy-real: integration tier on testcontainers: {time.monotonic() - t:.0f} s\n"
          + "\n".join(run.stdout.splitlines()[-3:]))
    assert run.returncode == 0, tail
    assert seen, f"no {VALKEY_IMAGE} container ran on {TEST_NETWORK}"
