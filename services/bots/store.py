"""The bot runner's Redis adapter: the only module of the runner that talks to Redis.

Keys (ACL user ``bots``): ``bots:in`` the seats to take (a stream, group ``bots``), read only
while the runner has room; ``bots:active`` a hash ``<game>:<seat>`` -> the seat (durable while
it plays); ``bots:lease:<game>:<seat>`` the runner holding a seat (renewed while it plays);
``bots:parked`` a hash ``<game>:<seat>`` -> the note of a seat parked for a waiting one
(services/bots/parking.py).
"""

from __future__ import annotations

from typing import Any, cast

from faststream.redis.parser.binary import BinaryMessageFormatV1

from shared.protocol import keys, streams
from shared.runtime.bus import dead_letter
from shared.runtime.jsonutil import loads
from shared.runtime.redis import Client, read_group

ACTIVE = keys.BOTS_ACTIVE
PARKED = "bots:parked"
LEASE_MS = 10_000


def lease_key(seat_key: str) -> str:
    return keys.bots_lease(seat_key)


def decode(fields: dict[bytes, bytes]) -> Any:
    """A stream entry's JSON body (faststream's wire format, or a plain ``d`` field)."""
    raw = fields.get(b"__data__")
    if raw is None:
        return loads(fields.get(b"d", b"{}"))
    data, _ = BinaryMessageFormatV1.parse(raw)
    return loads(data) if data else {}


class BotsStore:
    def __init__(self, redis: Client, instance: str) -> None:
        self.redis = redis
        self.instance = instance

    # -- seats --------------------------------------------------------------------------

    async def keep(self, seat_key: str, seat: str) -> None:
        await self.redis.hset(ACTIVE, seat_key, seat)

    async def forget(self, seat_key: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hdel(ACTIVE, seat_key)
            pipe.hdel(PARKED, seat_key)
            await pipe.execute()

    async def park(self, seat_key: str, note: str) -> None:
        await self.redis.hset(PARKED, seat_key, note)

    async def unpark(self, seat_key: str) -> None:
        await self.redis.hdel(PARKED, seat_key)

    async def parked(self) -> dict[str, str]:
        """Every parked seat's note (seat key -> note)."""
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(PARKED))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def active_page(self, cursor: int, count: int = 200) -> tuple[int, list[Any]]:
        """One page of ``bots:active`` (HSCAN): (next cursor, 0 at the end; seat documents)."""
        cursor, page = cast(tuple[int, dict[bytes, Any]],
                            await self.redis.hscan(ACTIVE, cursor, count=count))
        return int(cursor), list(page.values())

    async def lease(self, seat_key: str) -> bool:
        """Take the seat's lease if nobody holds it."""
        return bool(await self.redis.set(lease_key(seat_key), self.instance, nx=True,
                                         px=LEASE_MS))

    async def renew(self, seat_key: str) -> None:
        await self.redis.set(lease_key(seat_key), self.instance, px=LEASE_MS)

    async def release(self, seat_key: str) -> None:
        await self.redis.delete(lease_key(seat_key))

    # -- the input stream -----------------------------------------------------------------

    async def read(self, count: int, retry_s: float) -> list[Any]:
        """New entries of ``bots:in`` for this runner (at most ``count``); none when the read
        failed (logged, retried after ``retry_s``, a lost group created again)."""
        return await read_group(self.redis, streams.BOTS_IN, streams.GROUP_BOTS,
                                self.instance, count, retry_s) or []

    async def reclaim(self, count: int) -> list[Any]:
        """Entries a dead runner read but did not store (idle past the reclaim time)."""
        _, claimed, *_ = await self.redis.xautoclaim(
            streams.BOTS_IN, streams.GROUP_BOTS, self.instance,
            min_idle_time=streams.RECLAIM_IDLE_MS, start_id="0-0", count=count)
        return [e for e in claimed if e[1] is not None]

    async def done(self, ids: list[bytes]) -> None:
        """XACK and XDEL in one round trip: a taken entry leaves no bytes behind."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xack(streams.BOTS_IN, streams.GROUP_BOTS, *ids)
            pipe.xdel(streams.BOTS_IN, *ids)
            await pipe.execute()

    async def dead_letter(self, body: Any, exc: Exception) -> None:
        await dead_letter(self.redis, streams.BOTS_IN, body, exc)
