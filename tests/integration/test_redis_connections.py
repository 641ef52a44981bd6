"""Pooled Redis connections across a server restart (shared.runtime.redis): a connection the
server dropped while it sat idle is replaced before a command goes out on it, and no command
is ever sent twice; a write the server does not take is bounded by ``socket_timeout``. These
tests kill and restart the server, so they run their own embedded Valkey whatever REDIS_URL
says."""

from __future__ import annotations

import asyncio
import tempfile
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from shared.runtime.redis import CheckedConnection, FreeFirstPool, client, healthy
from shared.runtime.settings import Settings
from shared.runtime.valkey import EmbeddedValkey
from tests.support.waits import eventually

pytestmark = pytest.mark.integration


async def _pooled(r: Any, n: int) -> None:
    """Put ``n`` connections in the pool (n commands at once)."""
    await asyncio.gather(*[r.execute_command("BLPOP", f"nothing:{i}", 0.05) for i in range(n)])


async def test_idle_connections_dropped_by_a_restart_are_replaced_before_use() -> None:
    data = tempfile.mkdtemp(prefix="empire-conn-")
    server = EmbeddedValkey(aof=True, data_dir=data)
    url = server.start()
    r = client(Settings(redis_url=url))
    try:
        await _pooled(r, 8)
        await r.set("k", "1")
        server.kill()
        server = EmbeddedValkey(port=server.port, aof=True, data_dir=data)
        server.start()
        await asyncio.sleep(1.2)  # idle past the health-check interval
        # every pooled connection is stale: each command still succeeds, and INCR (not
        # idempotent) runs once per call
        for _ in range(8):
            await r.incr("n")
        assert int(await r.get("n")) == 8
        assert await r.get("k") == b"1"  # the AOF kept the write before the kill
    finally:
        await r.aclose()
        server.stop()


async def test_without_the_check_a_stale_connection_fails_its_command() -> None:
    """The control: redis-py's default connection fails one command per stale connection
    (what the services met after a Valkey restart before the check)."""
    server = EmbeddedValkey()
    url = server.start()
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=4)
    r = aioredis.Redis(connection_pool=pool)
    try:
        await _pooled(r, 4)
        server.kill()
        server = EmbeddedValkey(port=server.port)
        server.start()
        await asyncio.sleep(1.2)
        failures = 0
        for _ in range(4):
            try:
                await r.ping()
            except RedisConnectionError:
                failures += 1
        assert failures >= 1
    finally:
        await r.aclose()
        server.stop()


def test_the_check_applies_to_tcp_and_tls_urls_only() -> None:
    assert healthy("redis://h:6379/0")["connection_class"] is CheckedConnection
    assert healthy("rediss://h:6380/0")["health_check_interval"] == 1
    assert healthy("unix:///tmp/valkey.sock") == {}


async def test_the_pool_hands_out_a_free_connection_and_still_waits_when_none_is(
        redis_url: str) -> None:
    """FreeFirstPool: a free connection is reused without the blocking pool's wait; with all
    ``max_connections`` busy, callers wait for one (no error, never more connections)."""
    pool = FreeFirstPool.from_url(redis_url, max_connections=2, timeout=10)
    r = aioredis.Redis(connection_pool=pool)
    try:
        for _ in range(5):  # one after another: one connection, reused
            await r.ping()
        assert len(pool._available_connections) + len(pool._in_use_connections) == 1
        # 6 blocking commands on 2 connections: they queue instead of failing
        got = await asyncio.gather(
            *[r.execute_command("BLPOP", f"free-first:{i}", 0.1) for i in range(6)]
        )
        assert got == [None] * 6
        assert len(pool._available_connections) + len(pool._in_use_connections) == 2
        assert not pool._in_use_connections  # every connection came back
    finally:
        await r.aclose()


async def test_with_no_free_connection_the_wait_is_bounded_by_the_pool_timeout(
        redis_url: str) -> None:
    pool = FreeFirstPool.from_url(redis_url, max_connections=1, timeout=0.2)
    r = aioredis.Redis(connection_pool=pool)
    try:
        busy = asyncio.create_task(r.execute_command("BLPOP", "free-first:busy", 3))
        await eventually(lambda: bool(pool._in_use_connections), "the BLPOP took the connection")
        with pytest.raises(RedisConnectionError, match="No connection available"):
            await r.ping()
        assert await busy is None
    finally:
        await r.aclose()


async def test_a_service_pool_holds_at_most_its_budget_and_callers_wait(redis_url: str) -> None:
    """EMPIRE_REDIS_MAX_CONNECTIONS bounds a process's pool (it was a fixed 512): 12 commands
    at once on a budget of 3 open 3 connections and all 12 succeed (the others wait)."""
    settings = Settings(redis_url=redis_url, redis_max_connections=3)
    assert Settings(redis_url=redis_url).redis_max_connections == 24  # the documented budget
    r = client(settings)
    try:
        assert r.connection_pool.max_connections == 3
        got = await asyncio.gather(
            *[r.execute_command("BLPOP", f"budget:{i}", 0.05) for i in range(12)])
        assert got == [None] * 12
        assert len(r.connection_pool._available_connections) == 3  # never more were made
    finally:
        await r.aclose()


async def test_a_write_the_server_stops_reading_times_out_and_drops_the_connection() -> None:
    """A server that answers the handshake and a PING, then never reads again: the kernel's
    buffers fill, the write waits in ``drain`` and ``socket_timeout`` bounds it (redis'
    TimeoutError, the connection dropped)."""
    from redis.exceptions import TimeoutError as RedisTimeoutError

    deaf = asyncio.Event()
    held: list[asyncio.StreamWriter] = []

    async def stops_reading(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        while not deaf.is_set():  # the handshake's commands, then the PING: +OK to each
            chunk = await reader.read(4096)
            if not chunk:
                return
            writer.write(b"+OK\r\n" * chunk.count(b"*"))  # (no argument here holds a "*")
            await writer.drain()

    server = await asyncio.start_server(stops_reading, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = CheckedConnection(host="127.0.0.1", port=port, socket_timeout=0.5,
                             health_check_interval=0)
    try:
        await conn.connect()
        await conn.send_command("PING")
        await conn.read_response()
        deaf.set()
        big = conn.pack_command("SET", "k", b"x" * (64 << 20))
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(RedisTimeoutError):  # (an unbounded write: wait_for's own error)
            await asyncio.wait_for(conn.send_packed_command(big), 10)
        assert 0.4 < loop.time() - t0 < 5.0
        assert not conn.is_connected
    finally:
        await conn.disconnect()
        for w in held:
            w.close()
        server.close()
        await server.wait_closed()
