"""Redis/Valkey clients and stream helpers shared by the services."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeAlias

import hiredis
import redis.asyncio as aioredis
import structlog
from redis.asyncio.connection import SSLConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from shared.runtime.settings import Settings

Client: TypeAlias = aioredis.Redis | aioredis.RedisCluster
"""What ``client`` makes: a redis-py asyncio client, or a cluster client on a cluster."""


class _PingOnce:
    """Mixed into a redis-py connection: PINGed before use once idle for over
    ``health_check_interval`` seconds and, when the server dropped it meanwhile (a Valkey
    restart, a failover, an idle timeout), replaced once before the command goes out: after a
    restart, pooled connections do not each fail one command. Only that PING is retried;
    commands never are (redis-py's own ``retry`` applies to commands too), so nothing runs
    twice on the server."""

    _ping_retry = Retry(NoBackoff(), 1)
    health_check_interval: float
    next_health_check: float

    async def check_health(self) -> None:
        if (self.health_check_interval
                and asyncio.get_running_loop().time() > self.next_health_check):
            await self._ping_retry.call_with_retry(
                self._send_ping, self._ping_failed, with_failure_count=True  # type: ignore[attr-defined]
            )

    def pack_command(self, *args: Any) -> list[bytes]:
        """A command in the Redis protocol, packed by hiredis in C as redis-py's own sync
        client packs it (``HiredisRespSerializer``): the same bytes as redis-py's asyncio
        packer, which runs in Python at 7-9x the cost and took 3-7% of each service's CPU at
        100 matches (py-spy). A multi-word command name is split as there; an argument
        redis-py would refuse (None, a bool, another type) is refused with its DataError."""
        first = args[0]
        if isinstance(first, str):
            args = (*first.encode().split(), *args[1:])
        elif b" " in first:
            args = (*first.split(), *args[1:])
        # (hiredis' stub types the argument as a one-element tuple)
        flat: Any = tuple(bytes(a) if isinstance(a, (bytearray, memoryview)) else a for a in args)
        try:
            return [hiredis.pack_command(flat)]
        except TypeError as exc:
            raise DataError(str(exc)) from None

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        """redis-py's (redis<9) with the write bounded only when it can wait. redis-py runs
        every command's write under ``asyncio.wait_for`` (on Python 3.11 a task of its own per
        command); but the transport takes the bytes at once unless the kernel's buffer is
        full, and only then can ``drain`` wait, so only then is a timer armed (a timer per
        command costs 6-7% of the gateway's CPU at 100 matches, py-spy). Same errors: a write
        past ``socket_timeout`` drops the connection and raises redis' TimeoutError; a socket
        error its ConnectionError."""
        me: Any = self
        if not me.is_connected:
            await me.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()
        try:
            if isinstance(command, str):
                command = command.encode()
            if isinstance(command, bytes):
                command = [command]
            writer = me._writer
            writer.writelines(command)
            if me.socket_timeout and writer.transport.get_write_buffer_size():
                async with asyncio.timeout(me.socket_timeout):
                    await writer.drain()
            else:
                await writer.drain()
        except TimeoutError:
            await me.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as e:
            await me.disconnect(nowait=True)
            err_no, errmsg = ("UNKNOWN", e.args[0]) if len(e.args) == 1 else e.args[:2]
            raise RedisConnectionError(
                f"Error {err_no} while writing to socket. {errmsg}.") from e
        except BaseException:  # a send cut short: the connection cannot be trusted
            await me.disconnect(nowait=True)
            raise


class CheckedConnection(_PingOnce, aioredis.Connection):
    """redis:// connections with the check above."""


class CheckedSSLConnection(_PingOnce, SSLConnection):
    """rediss:// connections with the check above."""


class FreeFirstPool(aioredis.BlockingConnectionPool):
    """redis-py's blocking pool enters a lock, a condition wait and an ``asyncio.timeout`` for
    every command, even when a connection sits free (in the gateway's profile 7-10% of its
    CPU). Here a free connection is taken at once; only when none is free does a caller wait
    the blocking way (bounded by ``max_connections`` and ``timeout`` as before)."""

    async def get_connection(self, *args: Any, **options: Any) -> Any:
        if self._available_connections and not self._in_maintenance:
            connection = self._available_connections.pop()
            self._in_use_connections.add(connection)
            try:
                await self.ensure_connection(connection)
            except BaseException:
                await self.release(connection)
                raise
            return connection
        return await super().get_connection(*args, **options)  # type: ignore[no-untyped-call]


def tls(url: str, ca_file: str = "") -> dict[str, Any]:
    """TLS options for a rediss:// URL: the server's certificate is always verified, against
    ``ca_file`` (EMPIRE_REDIS_CA_FILE) when given, else the system's trust store."""
    if not url.startswith("rediss://"):
        return {}
    opts: dict[str, Any] = {"ssl_cert_reqs": "required"}
    if ca_file:
        opts["ssl_ca_certs"] = ca_file
    return opts


def healthy(url: str, ca_file: str = "") -> dict[str, Any]:
    """Connection options that add the check to a redis:// or rediss:// URL (a unix socket
    keeps redis-py's own connection class), with the TLS options of ``tls``."""
    if url.startswith("redis://"):
        return {"connection_class": CheckedConnection, "health_check_interval": 1}
    if url.startswith("rediss://"):
        return {"connection_class": CheckedSSLConnection, "health_check_interval": 1,
                **tls(url, ca_file)}
    return {}


class CheckedCluster(aioredis.RedisCluster):
    """RedisCluster whose node connections carry the same PING-before-use check: redis-py
    fixes the cluster's connection class (Connection or SSLConnection), so it is swapped in
    the nodes manager's connection options before any node connects (redis<9, pyproject)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("health_check_interval", 1)
        super().__init__(*args, **kwargs)
        opts = self.nodes_manager.connection_kwargs
        ssl = opts.get("connection_class") is SSLConnection
        opts["connection_class"] = CheckedSSLConnection if ssl else CheckedConnection
        for node in self.nodes_manager.startup_nodes.values():
            node.connection_class = opts["connection_class"]


def client(settings: Settings) -> Client:
    """A redis-py asyncio client (RedisCluster when configured for a cluster)."""
    if settings.cluster:  # max_connections: per master node
        return CheckedCluster.from_url(settings.redis_url, decode_responses=False,
                                       max_connections=settings.redis_max_connections,
                                       **tls(settings.redis_url, settings.redis_ca_file))
    # a blocking pool: under a burst, callers wait for a connection instead of failing;
    # EMPIRE_REDIS_MAX_CONNECTIONS is the per-replica budget (docs/operations.md)
    pool = FreeFirstPool.from_url(settings.redis_url,
                                  max_connections=settings.redis_max_connections, timeout=10,
                                  **healthy(settings.redis_url, settings.redis_ca_file))
    if settings.redis_autopipeline:  # one turn's commands in one pipeline (autopipeline.py)
        from shared.runtime.autopipeline import AutoPipelineRedis

        return AutoPipelineRedis(connection_pool=pool)
    return aioredis.Redis(connection_pool=pool)


async def ensure_group(r: Client, stream: str, group: str) -> None:
    """Create the consumer group at 0 (not $: nothing published before start is lost)."""
    try:
        await r.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise



async def read_group(r: Client, stream: str, group: str, consumer: str, count: int,
                     retry_s: float, block_ms: int = 1000) -> list[tuple[bytes, Any]] | None:
    """New entries of ``stream`` for ``consumer`` of ``group`` (XREADGROUP ``>``), at most
    ``count``, waiting up to ``block_ms`` for one. None when the read failed (Valkey
    restarting): the error is logged, ``retry_s`` waited, and a group the server lost (NOGROUP:
    it came back without its data) created again, so the caller just reads again."""
    res: Any
    try:
        res = await r.xreadgroup(group, consumer, {stream: ">"}, count=count, block=block_ms)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        structlog.get_logger("redis").warning("stream_read_failed", stream=stream,
                                              error=repr(exc)[:200])
        await asyncio.sleep(retry_s)
        if "NOGROUP" in str(exc):
            with contextlib.suppress(Exception):
                await ensure_group(r, stream, group)
        return None
    return [e for _, entries in res or () for e in entries]
