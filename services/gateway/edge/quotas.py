"""Rate limits and quotas that hold across every gateway replica: one Redis key per limited
subject, under the prefix ``rl:``, each changed by one Lua script (atomic, one key, so it
works on a cluster too).

* Rates are GCRA (a token bucket kept as one "theoretical arrival time"): ``rl:signup:<ip>``,
  ``rl:http:<ip>``, ``rl:player:<player id>``. A refusal says when the next request fits.
* Open WebSockets are counted in sorted sets of slots (member: replica + connection, score:
  its expiry): ``rl:ws:player:<player id>``, ``rl:ws:ip:<ip>``. Each replica refreshes its
  slots every third of EMPIRE_WS_SLOT_TTL_S and removes them on close; a dead replica's
  slots lapse after the TTL.

Each replica keeps its own view of the rates (services/gateway/edge/local_rates.py): a request
the cluster's last known state already refuses is refused without a Valkey call (pre-check),
and when the Valkey call fails (Valkey down or slow, a missing ACL permission) the request is
decided by that view, at the same rate and burst per subject, instead of passing unlimited.
Such failures are logged (``rate_limit_unavailable``, at most once a minute) and counted
(``empire_rate_limit_errors_total``): the limits protect the service, they must not become
its single point of failure. Socket slots still fail open (a socket is long-lived and is
counted again when its replica's slots are refreshed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import math
import time
from dataclasses import dataclass
from typing import Any

import structlog
from redis.exceptions import NoScriptError, RedisError

from services.gateway.edge import metrics as edge_metrics
from services.gateway.edge.client_ip import within
from services.gateway.edge.limits import GatewayLimits
from services.gateway.edge.local_rates import LocalRates
from services.gateway.ports import RedisClient
from shared.protocol import keys

log = structlog.get_logger("gateway")
PREFIX = keys.RATE_PREFIX

# KEYS[1] the subject's key; ARGV: now (µs), emission interval (µs), burst.
# Returns the µs until a request fits (> 0: refused), or, allowed, minus the µs from now to
# the new theoretical arrival time (< 0). Either way the caller learns the subject's TAT.
GCRA = """
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local allow_at = tat + interval - burst * interval
if allow_at > now then return math.ceil(allow_at - now) end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX',
           math.ceil((new_tat - now) / 1000) + 1)
return -math.ceil(new_tat - now)
"""

# KEYS[1] the subject's slots; ARGV: now (ms), expiry (ms), limit, member, ttl (ms).
# Returns 1 (slot held) or 0 (full).
SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    retry_after_s: int = 0
    limit: str = ""


ALLOW = Verdict(True)


@dataclass
class Slots:
    """The WebSocket slots one connection holds."""

    member: str
    keys: list[str]


class Quotas:
    def __init__(self, redis: RedisClient, limits: GatewayLimits, instance: str) -> None:
        self.redis = redis
        self.limits = limits
        self.instance = instance
        self._shas = {s: hashlib.sha1(s.encode()).hexdigest() for s in (GCRA, SLOT)}
        self._held: dict[str, Slots] = {}
        self._ids = itertools.count()
        self._warned = 0.0
        self.local = LocalRates()  # this replica's view of the rates: pre-check, fallback

    # -- helpers ---------------------------------------------------------------------------

    def exempt(self, ip: str) -> bool:
        return within(ip, self.limits.exempt)

    async def _script(self, script: str, key: str, *args: Any) -> int:
        sha = self._shas[script]
        try:
            return int(await self.redis.evalsha(sha, 1, key, *args))
        except NoScriptError:  # a fresh (or restarted) server: load it once
            await self.redis.script_load(script)
            return int(await self.redis.evalsha(sha, 1, key, *args))

    def _unavailable(self, what: str, exc: Exception) -> None:
        edge_metrics.RATE_LIMIT_ERRORS.inc()
        now = time.monotonic()
        if now - self._warned > 60:
            self._warned = now
            log.warning("rate_limit_unavailable", limit=what, error=repr(exc)[:200])

    async def take(self, limit: str, subject: str, per_s: float, burst: int) -> Verdict:
        """One request of ``subject`` against the ``limit`` rate."""
        if not self.limits.rate_limits:
            return ALLOW
        key, now, interval_us, wait_us = self._known_wait(limit, subject, per_s, burst)
        if wait_us <= 0:  # (else refused here already)
            edge_metrics.RATE_LIMIT_CHECKS.labels(limit).inc()
            try:
                answer = await self._script(GCRA, key, now, interval_us, burst)
            except RedisError as exc:  # decided by this replica's view (local_rates.py)
                self._unavailable(limit, exc)
                wait_us = self.local.take(key, int(time.time() * 1_000_000), interval_us,
                                          burst)
            else:
                # the subject's TAT in the cluster: refused, the next request fits at
                # tat + interval - burst * interval = now + answer
                self.local.learn(key, now + answer + (burst - 1) * interval_us
                                 if answer > 0 else now - answer)
                wait_us = max(0, answer)
        if wait_us <= 0:
            return ALLOW
        edge_metrics.RATE_LIMITED.labels(limit).inc()
        return Verdict(False, max(1, math.ceil(wait_us / 1_000_000)), limit)

    # -- the limits ------------------------------------------------------------------------

    def http_refused_now(self, ip: str) -> int:
        """Seconds until an HTTP request (or handshake) of ``ip`` fits, by this replica's last
        known view of the cluster's rate (0: decide as usual, by Valkey). No Valkey call and
        no parsing: the server asks it when a connection is accepted (services/gateway/
        server.py), so a flood past the limit is answered before h11, uvicorn and the
        middleware spend ~0.3-0.5 ms on each request (the siege's socket churn)."""
        if not self.limits.rate_limits or self.exempt(ip):
            return 0
        wait_us = self._known_wait("http", ip, self.limits.http_per_s, self.limits.http_burst)[3]
        return max(1, math.ceil(wait_us / 1_000_000)) if wait_us > 0 else 0

    def _known_wait(self, limit: str, subject: str, per_s: float,
                    burst: int) -> tuple[str, int, int, int]:
        """The rate's key, now (µs), its interval (µs) and the wait (µs, <= 0: none) this
        replica already knows of, without a Valkey call (local_rates.py)."""
        interval_us = max(1, round(1_000_000 / per_s))
        key = f"{PREFIX}{limit}:{subject}"
        now = int(time.time() * 1_000_000)
        return key, now, interval_us, self.local.wait_us(key, now, interval_us, burst)

    async def signup(self, ip: str) -> Verdict:
        if self.exempt(ip):
            return ALLOW
        return await self.take("signup", ip, self.limits.signup_per_min / 60.0,
                               self.limits.signup_burst)

    async def http(self, ip: str) -> Verdict:
        if self.exempt(ip):
            return ALLOW
        return await self.take("http", ip, self.limits.http_per_s, self.limits.http_burst)

    async def player(self, player_id: str) -> Verdict:
        return await self.take("player", player_id, self.limits.token_per_s,
                               self.limits.token_burst)

    async def open_socket(self, player_id: str, ip: str, per_ip: bool) -> Slots | Verdict:
        """Hold a WebSocket slot of the player (and of its IP unless exempt); a Verdict
        when one of them is full (nothing is held then)."""
        member = f"{self.instance}:{next(self._ids)}"
        slots = Slots(member, [])
        if not self.limits.rate_limits:
            return slots
        wanted = [(f"{PREFIX}ws:player:{player_id}", self.limits.ws_per_player, "ws_player")]
        if per_ip and not self.exempt(ip):
            wanted.append((f"{PREFIX}ws:ip:{ip}", self.limits.ws_per_ip, "ws_ip"))
        ttl_ms = int(self.limits.ws_slot_ttl_s * 1000)
        for key, limit, name in wanted:
            now = int(time.time() * 1000)
            edge_metrics.RATE_LIMIT_CHECKS.labels(name).inc()
            try:
                held = await self._script(SLOT, key, now, now + ttl_ms, limit, member, ttl_ms)
            except RedisError as exc:
                self._unavailable(name, exc)
                continue
            if not held:
                await self.close_socket(slots)
                edge_metrics.RATE_LIMITED.labels(name).inc()
                return Verdict(False, 1, name)
            slots.keys.append(key)
        self._held[member] = slots
        return slots

    async def close_socket(self, slots: Slots) -> None:
        self._held.pop(slots.member, None)
        for key in slots.keys:
            try:
                await self.redis.zrem(key, slots.member)
            except RedisError as exc:  # it lapses after the TTL
                self._unavailable("ws_release", exc)
        slots.keys.clear()

    async def refresh_loop(self) -> None:
        """Keep this replica's slots alive (a dead replica's lapse after the TTL)."""
        ttl_ms = int(self.limits.ws_slot_ttl_s * 1000)
        while True:
            await asyncio.sleep(self.limits.ws_slot_ttl_s / 3)
            held = list(self._held.values())
            if not held:
                continue
            expiry = int(time.time() * 1000) + ttl_ms
            with contextlib.suppress(Exception):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for s in held:
                        for key in s.keys:
                            pipe.zadd(key, {s.member: expiry}, xx=True)
                            pipe.pexpire(key, ttl_ms)
                    await pipe.execute()
