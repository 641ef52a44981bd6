"""A silent cut between a service and Valkey (no RST: packets vanish, as in a partition)
must fail the service's Redis calls within a bound, not hang them forever. Without
a socket timeout a command on a cut link waits without end: a gateway call (an act, a watch)
would never answer its client, even after the link healed. The bound comes from redis-py 8's
default socket timeouts (5 s, connect and read; pyproject pins redis>=8.1), which the
services' pools and faststream's broker inherit: these tests keep it from going away."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis.exceptions

from shared.runtime import redis as rt
from shared.runtime.settings import Settings
from shared.runtime.valkey import EmbeddedValkey
from tests.faults.proxy import FaultProxy

pytestmark = pytest.mark.integration
BOUND_S = 30.0  # far above the socket timeout: only a hang reaches it


@pytest.fixture(scope="module")
def valkey() -> Iterator[EmbeddedValkey]:
    v = EmbeddedValkey()
    v.start()
    yield v
    v.stop()


@pytest.fixture
def proxy(valkey: EmbeddedValkey) -> Iterator[FaultProxy]:
    p = FaultProxy(valkey.port, seed=3).start()
    yield p
    p.stop()


def _settings(p: FaultProxy) -> Settings:
    return Settings(redis_url=f"redis://127.0.0.1:{p.port}/0", redis_plaintext=True)


async def _outcome(coro: object) -> str:
    try:
        await asyncio.wait_for(coro, BOUND_S)  # type: ignore[arg-type]
    except TimeoutError:
        return "hung"
    except (redis.exceptions.TimeoutError, redis.exceptions.ConnectionError):
        return "failed"
    return "answered"


async def test_a_command_on_a_silently_cut_link_fails_instead_of_hanging(
        proxy: FaultProxy) -> None:
    r = rt.client(_settings(proxy))
    try:
        assert await r.ping()
        proxy.cut("both")  # swallowed both ways, the connection stays open
        assert await _outcome(r.set("k", "v")) == "failed"
        proxy.heal()
        assert await _outcome(r.get("k")) == "answered"  # a fresh connection after the heal
    finally:
        await r.aclose()


@pytest.mark.full  # tens of seconds: make test-full
async def test_a_new_connection_into_a_partition_fails_instead_of_hanging(
        proxy: FaultProxy) -> None:
    r = rt.client(_settings(proxy))
    try:
        proxy.partition()  # the handshake completes, nothing more (no AUTH, no answer)
        assert await _outcome(r.ping()) == "failed"
        proxy.heal()
        assert await _outcome(r.ping()) == "answered"
    finally:
        await r.aclose()

