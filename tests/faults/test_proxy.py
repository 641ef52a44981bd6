"""The fault proxy itself, against a real Valkey: each fault does what it says."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis

from shared.runtime.valkey import EmbeddedValkey
from tests.faults.proxy import FaultProxy

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def valkey() -> Iterator[EmbeddedValkey]:
    v = EmbeddedValkey()
    v.start()
    yield v
    v.stop()


@pytest.fixture
def proxy(valkey: EmbeddedValkey) -> Iterator[FaultProxy]:
    p = FaultProxy(valkey.port, seed=7).start()
    yield p
    p.stop()


def _client(p: FaultProxy, timeout: float = 5.0) -> redis.Redis:
    return redis.Redis(port=p.port, socket_timeout=timeout, retry=None)


def test_a_clean_link_relays(proxy: FaultProxy) -> None:
    with _client(proxy) as r:
        assert r.ping() and r.set("k", "v") and r.get("k") == b"v"
    assert proxy.counters.bytes_up > 0 and proxy.counters.bytes_down > 0


def test_latency_applies_per_chunk_not_per_queue(proxy: FaultProxy) -> None:
    with _client(proxy) as r:
        r.ping()
        proxy.set(latency_s=0.1)
        t0 = time.monotonic()
        pipe = r.pipeline(transaction=False)
        for _ in range(50):
            pipe.ping()
        pipe.execute()
        rtt = time.monotonic() - t0
    assert 0.2 <= rtt < 2.5  # one round trip of +0.1 s each way, not 50 (5 s)


def test_a_one_way_cut_swallows_without_closing(proxy: FaultProxy) -> None:
    with _client(proxy, timeout=0.5) as r:
        r.ping()
        proxy.cut("down")
        with pytest.raises(redis.exceptions.TimeoutError):
            r.ping()
        assert proxy.counters.swallowed > 0
    proxy.heal()
    with _client(proxy) as r:
        assert r.ping()


def test_resets_kill_connections(proxy: FaultProxy) -> None:
    proxy.set(reset_p=1.0)
    with _client(proxy) as r, pytest.raises(redis.exceptions.ConnectionError):
        r.ping()
    assert proxy.counters.resets >= 1


def test_a_partition_holds_new_connections(proxy: FaultProxy) -> None:
    proxy.partition()
    with _client(proxy, timeout=0.5) as r, pytest.raises(
            (redis.exceptions.TimeoutError, redis.exceptions.ConnectionError)):
        r.ping()
    proxy.heal()
    with _client(proxy) as r:
        assert r.ping()


def test_a_holding_partition_delivers_after_the_heal(proxy: FaultProxy) -> None:
    with _client(proxy, timeout=10) as r:
        r.ping()
        proxy.partition(hold=True)
        healer = threading.Timer(0.5, proxy.heal)
        healer.start()
        assert r.incr("held") == 1  # held across the partition, then answered, once
        healer.join()
        assert proxy.counters.swallowed == 0


def test_bandwidth_throttles(proxy: FaultProxy) -> None:
    with _client(proxy, timeout=10) as r:
        r.set("big", b"x" * 200_000)
        proxy.set(bandwidth_bps=400_000)
        t0 = time.monotonic()
        assert len(r.get("big") or b"") == 200_000
        assert time.monotonic() - t0 >= 0.4  # 200 kB at 400 kB/s
