"""The history checker on histories with known anomalies: each is found, valid ones pass."""

from __future__ import annotations

import pytest

from tests.faults.history import Op, check

pytestmark = pytest.mark.unit


def h(*ops: tuple[str, str, str]) -> list[Op]:
    return [Op(p, k, "act", key, "g") for p, k, key in ops]  # type: ignore[arg-type]


def test_a_valid_history_with_unknowns_passes() -> None:
    ops = h(("s0", "invoke", "a"), ("s0", "ok", "a"), ("s0", "invoke", "b"), ("s0", "info", "b"),
            ("s1", "invoke", "c"), ("s1", "fail", "c"), ("s1", "invoke", "d"))
    for applied in (["a"], ["a", "b"], ["a", "d"], ["a", "b", "d"]):
        v = check(ops, {"g": applied})
        assert v.valid, (applied, v.anomalies)
    assert check(ops, {"g": ["a", "b"]}).counts["applied_unknown"] == 1


@pytest.mark.parametrize(("applied", "anomaly"), [
    ([], "acknowledged but not applied (lost)"),
    (["a", "a"], "applied 2 times"),
    (["a", "z"], "applied but never sent (phantom)"),
    (["a", "c"], "refused but applied"),
])
def test_each_anomaly_is_found(applied: list[str], anomaly: str) -> None:
    ops = h(("s0", "invoke", "a"), ("s0", "ok", "a"), ("s1", "invoke", "c"), ("s1", "fail", "c"))
    v = check(ops, {"g": applied})
    assert any(anomaly in a for a in v.anomalies), v.anomalies


def test_real_time_order_per_client() -> None:
    ops = h(("s0", "invoke", "a"), ("s0", "ok", "a"), ("s0", "invoke", "b"), ("s0", "ok", "b"))
    assert check(ops, {"g": ["a", "b"]}).valid
    v = check(ops, {"g": ["b", "a"]})
    assert any("applied before it" in a for a in v.anomalies)
    # concurrent (b invoked before a was acknowledged): either order is fine
    ops2 = h(("s0", "invoke", "a"), ("s0", "invoke", "b"), ("s0", "ok", "a"), ("s0", "ok", "b"))
    assert check(ops2, {"g": ["b", "a"]}).valid


def test_protocol_misuse_is_reported() -> None:
    ops = h(("s0", "ok", "x"), ("s0", "invoke", "a"), ("s0", "invoke", "a"))
    v = check(ops, {"g": []})
    assert any("never invoked" in a for a in v.anomalies)
    assert any("invoked twice" in a for a in v.anomalies)
