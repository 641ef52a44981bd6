"""The fault scenarios' bookkeeping: accepted-then-refused acts, the phases of a
command's latency, the recovery time and the answer labels."""

from __future__ import annotations

from typing import Any

import pytest

from tests.faults.history import Op, check
from tests.faults.scenarios import _answer
from tests.faults.system import Sample, Sampler, Timed, latencies, p99, settle_acts, silent

pytestmark = pytest.mark.unit


def test_an_accepted_act_the_adjudicator_refused_is_a_failure() -> None:
    ops = [Op("p", "invoke", "act", "c1", "g"), Op("p", "ok", "act", "c1", "g"),
           Op("p", "invoke", "act", "c2", "g"), Op("p", "ok", "act", "c2", "g")]
    settled = settle_acts(ops, {("g", "c2")})
    assert [o.kind for o in settled] == ["invoke", "ok", "invoke", "fail"]
    assert check(settled, {"g": ["c1"]}).valid
    # refused yet applied: an anomaly; accepted, not refused and not applied: lost
    assert not check(settled, {"g": ["c1", "c2"]}).valid
    assert not check(settle_acts(ops, set()), {"g": ["c1"]}).valid


class _C:
    def __init__(self, timed: dict[str, Timed]) -> None:
        self.timed = timed
        self.process = "p"


def test_latency_phases_count_a_command_in_flight_during_the_fault_as_during() -> None:
    c: Any = _C({"a": Timed(1.0, 1.1), "b": Timed(4.9, 7.0), "c": Timed(8.0, 8.2),
                 "d": Timed(2.0, None, gave_up=32.0)})
    lat = latencies([c], t0=0.0, fault_on=5.0, healed=6.0, t_end=9.0)
    assert {k: [round(x, 2) for x in v] for k, v in lat.items()} == {
        "before": [0.1], "during": [2.1], "after": [0.2]}
    assert p99([0.1, 0.2]) == 200.0 and p99([]) is None
    assert silent([c], end=40.0) == ["p/d: no answer after 30.0 s"]


def test_recovery_is_the_first_window_back_at_the_baseline_rate() -> None:
    s = Sampler("redis://unused", [])
    s.samples = [Sample(t / 2, moves, 0) for t, moves in enumerate(
        [0, 10, 20, 30, 30, 30, 31, 32, 40, 50, 60, 70, 80])]
    assert s.rate(0.0, 1.5) == 20.0
    # 2-s windows from the heal: 5, 10, 14.5 moves/s, then 3.5 -> 5.5 s at 19 >= 80% of 20
    assert s.recovery_s(healed=2.0, baseline=20.0) == 3.5
    assert s.recovery_s(healed=2.0, baseline=100.0) is None


def test_answers_are_labelled_by_kind() -> None:
    assert _answer("accepted") == "accepted"
    assert _answer("rejected:message/unavailable") == "rejected:message/unavailable"
    assert _answer("rejected:escrow/closed") == "rejected"
    assert _answer("error:TimeoutError") == "error"
