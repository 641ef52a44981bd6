"""Each gateway replica's view of the cluster's GCRA rates (services/gateway/edge/local_rates.py):
what the cluster answered refuses here without a call; on its own it holds the burst and
the rate; its subjects are bounded."""

from __future__ import annotations

import pytest

from services.gateway.edge.local_rates import LocalRates

pytestmark = pytest.mark.unit

S = 1_000_000  # µs


def test_on_its_own_it_holds_the_burst_then_the_rate() -> None:
    r = LocalRates()
    now = 1_000 * S
    assert [r.take("k", now, S, 3) for _ in range(5)] == [0, 0, 0, S, S]
    assert r.take("k", now + S, S, 3) == 0  # one token back a second later
    assert r.take("k", now + S, S, 3) > 0


def test_a_learned_cluster_state_refuses_without_a_call_and_never_moves_back() -> None:
    r = LocalRates()
    now = 1_000 * S
    assert r.wait_us("k", now, S, 3) == 0  # unknown: ask the cluster
    r.learn("k", now + 3 * S)  # the cluster's burst is spent
    assert r.wait_us("k", now, S, 3) == S
    r.learn("k", now + S)  # an older answer arriving late
    assert r.wait_us("k", now, S, 3) == S
    assert r.wait_us("k", now + S, S, 3) == 0  # the cluster's next token
    assert r.take("k", now, S, 3) == S  # the fallback starts from the cluster's state


def test_subjects_are_bounded_least_recently_used_first() -> None:
    r = LocalRates(size=2)
    now = 1_000 * S
    r.learn("a", now + 9 * S)
    r.learn("b", now + 9 * S)
    assert r.wait_us("a", now, S, 3) > 0  # a is used: b is the oldest
    r.learn("c", now + 9 * S)
    assert len(r) == 2
    assert r.wait_us("b", now, S, 3) == 0 and r.wait_us("a", now, S, 3) > 0
