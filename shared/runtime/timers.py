"""Durable timers shared by the adjudicator and the escrow: sorted sets (score = due time in
ms, member ``<game>|...``), one per stream partition, polled by every replica.

Keys: ``<base>:{<name>/<partition>}`` (``timers:adj:{adj/3}``): the partition of a member is
its game's stream partition (shared/protocol/streams.py ``shard_of``), and each key has its
own hash tag, so on a cluster the timers spread over as many slots as there are partitions
instead of one hot slot. The single per-service key of an older release (``timers:adj``,
``timers:esc``) is still drained (``legacy``), so timers it armed fire after an upgrade.

A poll is one Lua step per key (CLAIM_LUA): it takes up to ``batch`` due members and moves
their score to ``now + lease_ms`` in the same step, so the claiming replica owns them for the
lease; a replica that dies mid-way leaves them due again when the lease ends. Once the
claim's handlers ran, the members whose handler finished are dropped by one DONE_LUA step,
each only if its score is still the claim's (a handler that re-armed its own member, e.g. the
archive waiting for the reveal, keeps the new due time). Handlers must be idempotent: a
lease that runs out while one still works lets another replica fire the same timer again (as
before, with the per-timer lease keys). A poll that finds every round full polls again at
once: a backlog (many deadlines due together) drains at the claims' pace.

Per due timer this costs its share of one claim and one drop, where the loops it replaces
read the range, took a lease key (SET NX) and removed the member: three round trips each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from shared.protocol import streams
from shared.runtime.jsonutil import text
from shared.runtime.redis import Client

log = structlog.get_logger("timers")

# KEYS[1] the timer set; ARGV[1] now (ms), ARGV[2] lease (ms), ARGV[3] how many at most.
# Returns {the lease score, member...}: the due members, each now due at the lease score.
CLAIM_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local lease = tostring(tonumber(ARGV[1]) + tonumber(ARGV[2]))
local out = {lease}
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', lease, m)
  out[#out + 1] = m
end
return out
"""

# KEYS[1] the timer set; ARGV[1] the claim's lease score, ARGV[2..] members. Removes those
# still at that score (not re-armed meanwhile); returns how many.
DONE_LUA = """
local still = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
  still[m] = true
end
local n = 0
for i = 2, #ARGV do
  if still[ARGV[i]] then n = n + redis.call('ZREM', KEYS[1], ARGV[i]) end
end
return n
"""

Handler = Callable[[str], Awaitable[bool]]  # True: done (drop it); False: keep (re-armed)


def game_of(member: str) -> str:
    """The game id a timer member belongs to (its first ``|`` field)."""
    return member.split("|", 1)[0]


def partition_key(base: str, partition: int) -> str:
    """``timers:adj`` -> ``timers:adj:{adj/3}``: one key, one hash tag per partition."""
    name = base.split(":", 1)[-1]
    return f"{base}:{{{name}/{partition}}}"


def key_for(base: str, game_id: str, partitions: int) -> str:
    return partition_key(base, streams.shard_of(game_id, partitions))


@dataclass(frozen=True)
class Claim:
    key: str
    lease: str  # the score the claimed members hold until done
    members: list[str]


def parse_claim(key: str, raw: Sequence[Any]) -> Claim:
    """The reply of CLAIM_LUA as a Claim."""
    return Claim(key, text(raw[0]), [text(m) for m in raw[1:]])


class Timers:
    """One service's timers. ``base``: its legacy global key (``streams.TIMERS_ADJ``)."""

    def __init__(self, redis: Client, base: str, partitions: int = 1, lease_ms: int = 10_000,
                 batch: int = 32, rounds: int = 4) -> None:
        self.redis = redis
        self.base = base
        self.partitions = partitions
        self.lease_ms = lease_ms
        self.batch = batch
        self.rounds = rounds
        self._claim = redis.register_script(CLAIM_LUA)
        self._done = redis.register_script(DONE_LUA)
        self.behind = False  # the last poll left due members for the next one

    def key(self, game_id: str) -> str:
        return key_for(self.base, game_id, self.partitions)

    def keys(self) -> list[str]:
        """Every key a poll reads: the partitions, then the legacy key (drained)."""
        return [*(partition_key(self.base, p) for p in range(self.partitions)), self.base]

    async def arm(self, member: str, due_ms: int, keep: bool = False) -> None:
        """Arm (or move) a timer. ``keep``: an armed timer keeps its due time."""
        await self.redis.zadd(self.key(game_of(member)), {member: due_ms}, nx=keep)

    async def arm_many(self, game_id: str, due: dict[str, int], keep: bool = False) -> None:
        """Several timers of one game (one key) in one command."""
        await self.redis.zadd(self.key(game_id), due, nx=keep)

    async def drop(self, member: str) -> None:
        await self.redis.zrem(self.key(game_of(member)), member)

    async def due(self, member: str) -> float | None:
        """The member's due time (or its claim's lease end), None when not armed."""
        score = await self.redis.zscore(self.key(game_of(member)), member)
        return None if score is None else float(score)

    async def claim(self, key: str, now_ms: int) -> Claim:
        return parse_claim(key, await self._claim(keys=[key],
                                                  args=[now_ms, self.lease_ms, self.batch]))

    async def done(self, claim: Claim, member: str) -> bool:
        return bool(await self._done(keys=[claim.key], args=[claim.lease, member]))

    async def done_many(self, claim: Claim, members: list[str]) -> int:
        """Drop the claim's members whose handlers finished, in one step."""
        if not members:
            return 0
        return int(await self._done(keys=[claim.key], args=[claim.lease, *members]))

    async def poll_once(self, handle: Handler, now_ms: int) -> int:
        """Claim what is due in every key and run ``handle`` on each member in turn; returns
        how many handlers ran. A handler that raises leaves its member claimed: it is due
        again when the lease ends."""
        ran = 0
        self.behind = False
        for key in self.keys():
            for _ in range(self.rounds):  # a full batch: claim again, a few times at most
                claim = await self.claim(key, now_ms)
                finished: list[str] = []
                try:
                    for member in claim.members:
                        ran += 1
                        try:
                            if await handle(member):
                                finished.append(member)
                        except Exception as exc:  # the others still run; this one later
                            _raise_if_cancelling(exc)
                            log.error("timer_failed", timer=member, key=key,
                                      error=repr(exc)[:300])
                finally:  # the claim's finished members dropped in one step (even if cut)
                    await self.done_many(claim, finished)
                if len(claim.members) < self.batch:
                    break
            else:  # every round full: more may be due already
                self.behind = True
        return ran

    async def run(self, handle: Handler, poll_s: float, now: Callable[[], int]) -> None:
        """Poll forever, every ``poll_s``, at once again while a poll left due members behind
        (a backlog drains at the claims' pace, not one poll's share per ``poll_s``); an error
        (Redis away) is logged and retried."""
        while True:
            try:
                await self.poll_once(handle, now())
            except Exception as exc:  # keep the loop alive; the timers stay due
                _raise_if_cancelling(exc)
                log.error("timer_loop_error", error=repr(exc)[:300])
                self.behind = False
            _raise_if_cancelling(None)  # a cancel swallowed whole under the poll
            await asyncio.sleep(0 if self.behind else poll_s)


def _raise_if_cancelling(exc: BaseException | None) -> None:
    """A cancel that a library turned into another error (a timeout racing it), or swallowed
    whole: the loop still ends, else awaiting its cancel would never return. Callers that
    stop loops use shared/runtime/tasks.py ``cancel_and_wait``, which cancels again."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        log.warning("timer_loop_cancelled", cancelling=task.cancelling(),
                    error=repr(exc)[:200] if exc is not None else None)
        raise asyncio.CancelledError from exc
