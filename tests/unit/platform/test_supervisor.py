"""The supervisor restarts a crashing service with exponential back-off and gives up with one
FATAL line after repeated quick crashes or a configuration refusal; a process killed
on purpose (chaos tests) comes back at once and does not count as a crash."""

from __future__ import annotations

import sys
import threading

import pytest

from services import supervisor as sv
from tests.support.waits import eventually_sync

pytestmark = pytest.mark.unit


class Fake(sv.Supervisor):
    code = 3

    def argv(self, proc: sv.Proc) -> list[str]:
        return [sys.executable, "-c", f"import sys, time; time.sleep(0.05); sys.exit({self.code})"]


def _run(sup: Fake) -> sv.Proc:
    """Start one process under the watchdog and run until the supervisor gives it up."""
    sup.redis_url = "redis://127.0.0.1:1/0"
    p = sv.Proc("escrow", 0)
    sup._spawn(p)
    sup.procs.append(p)
    watch = threading.Thread(target=sup._watchdog, daemon=True)
    watch.start()
    eventually_sync(lambda: bool(p.fatal), "the supervisor gave the process up", timeout_s=60)
    sup._stop.set()
    watch.join(2)
    return p


def test_quick_crashes_back_off_then_fatal(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sv, "BACKOFF_S", 0.1)
    monkeypatch.setattr(sv, "MAX_QUICK_CRASHES", 4)
    delays: list[float] = []
    exited = Fake._exited

    def record(self: Fake, proc: sv.Proc, code: int, now: float) -> None:
        exited(self, proc, code, now)
        if not proc.fatal:
            delays.append(round(proc.next_start - now, 3))

    monkeypatch.setattr(Fake, "_exited", record)
    p = _run(Fake())
    assert p.fatal.startswith("crashed 4 times")
    assert p.restarts == 3  # the first start + 3 restarts, then given up
    assert delays == [0.1, 0.2, 0.4]  # doubling
    assert "FATAL: services.escrow #0 crashed 4 times" in capsys.readouterr().err


def test_a_configuration_refusal_is_fatal_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    sup = Fake()
    sup.code = 78
    p = _run(sup)
    assert p.restarts == 0 and "exit 78" in p.fatal
    assert "FATAL" in capsys.readouterr().err


def test_a_kill_on_purpose_restarts_at_once_and_is_not_a_crash() -> None:
    class Sleeper(Fake):
        def argv(self, proc: sv.Proc) -> list[str]:
            return [sys.executable, "-c", "import time; time.sleep(30)"]

    sup = Sleeper()
    sup.redis_url = "redis://127.0.0.1:1/0"
    p = sv.Proc("escrow", 0)
    sup._spawn(p)
    sup.procs.append(p)
    watch = threading.Thread(target=sup._watchdog, daemon=True)
    watch.start()
    try:
        for n in range(1, 4):
            sup.kill("escrow", 0)
            eventually_sync(lambda n=n: p.restarts == n, f"restart {n} after a kill")
        assert p.restarts == 3 and p.quick_crashes == 0 and not p.fatal
    finally:
        sup.stop()
