"""The siege tier: the gateway under attack from outside, as a hostile client would attack it
on the open internet (slow readers, slow-loris, floods, hostile bytes). One system (the
supervisor's processes on the session's Valkey, its own logical database) plus extra gateway
processes where a test needs its own settings or two replicas.

Every test prints its figures and writes them to test-output/siege/<name>.json.
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.supervisor import Proc, Supervisor
from shared.runtime.valkey import free_port
from tests.e2e.conftest import with_db
from tests.support.dir_scope import until_directory_ends

OUT = Path("test-output") / "siege"

# the supervisor's gateway: short slow-consumer and slow-HTTP bounds, so the tests are quick
SIEGE_ENV = {
    "EMPIRE_PUBLIC_METRICS": "1",  # metric() reads each gateway's own /metrics
    "EMPIRE_WS_SEND_TIMEOUT_S": "4",
    "EMPIRE_WS_QUEUE_FRAMES": "256",
    "EMPIRE_HTTP_HEAD_TIMEOUT_S": "3",
    "EMPIRE_HTTP_BODY_TIMEOUT_S": "3",
    "EMPIRE_HTTP_WRITE_TIMEOUT_S": "3",
    "EMPIRE_HTTP_KEEP_ALIVE_S": "2",
    "EMPIRE_TOKEN_BURST": "100000",  # the hostile-input probes reuse one token
}


def report(name: str, figures: dict[str, Any]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"\n[siege] {name}: {json.dumps(figures, sort_keys=True)}", flush=True)


@pytest.fixture(scope="session")
def siege(redis_url: str) -> Iterator[Supervisor]:
    sup = Supervisor(redis_url=with_db(redis_url, 6), port=free_port(),
                     log_dir=OUT / "logs" / "siege", env_extra=dict(SIEGE_ENV))
    try:
        sup.start(wait=120)
    except Exception:
        sup.stop()
        raise
    stop = until_directory_ends(__file__, sup.stop)
    yield sup
    stop()


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=1) as r:
            return bool(r.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def extra_gateways(sup: Supervisor, env: dict[str, str], n: int = 1,
                   nofile: int | None = None) -> Iterator[list[str]]:
    """``n`` more gateway processes of the running system (same Valkey, same secret), each on
    its own port with ``env`` on top of the system's environment (and ``nofile`` as its soft
    and hard RLIMIT_NOFILE when given); yields their URLs."""

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    procs: list[subprocess.Popen[bytes]] = []
    urls = []
    try:
        for i in range(n):
            port = free_port()
            penv = {**sup.env(Proc("gateway", 50 + i)), **env, "EMPIRE_PORT": str(port)}
            log = OUT / "logs" / f"gateway-extra-{port}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            procs.append(subprocess.Popen([sys.executable, "-m", "services.gateway"],
                                          env=penv, stdout=log.open("ab"),
                                          stderr=subprocess.STDOUT, preexec_fn=limit))
            urls.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120  # a loaded 2-core machine took over 60 s
        while not all(_ready(u) for u in urls):
            if time.monotonic() > deadline:
                raise RuntimeError("extra gateways did not become ready")
            time.sleep(0.2)
        yield urls
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def metric(url: str, name: str) -> float:
    """The sum of a Prometheus metric's samples on a gateway (0 when absent)."""
    with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
        body = r.read().decode()
    total = 0.0
    for line in body.splitlines():
        if line.startswith(name) and (line[len(name)] in " {"):
            total += float(line.rsplit(" ", 1)[1])
    return total
