"""The dealer's Redis adapter: the only module of the dealer that talks to Redis.

Keys (readable only by the dealer's Redis user, deploy/valkey/users.acl.template):
``dealer:{game}:seed`` a hash (the seed, its rules version and commitment, the client seeds,
every draw ``draw:<label>``, ``revealed``) and ``dealer:{game}:seed:order`` the labels in the
order they were dealt; the game's record ``g:{game}:rec`` gets the public entries. One hash tag
per game: every script touches one slot.
"""

from __future__ import annotations

from shared.protocol.streams import Keys
from shared.runtime.jsonutil import text
from shared.runtime.redis import Client

COMMIT_LUA = """
if redis.call('HSETNX', KEYS[1], 'seed', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'rules_version', ARGV[2], 'commitment', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'd', ARGV[4])
return 1
"""

DRAW_LUA = """
local prior = redis.call('HGET', KEYS[1], ARGV[1])
if prior then return prior end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
return false
"""

# the seed and the draws are public once revealed: the dealer's keys then expire with the
# game's live keys (ARGV[2] ms; the record carries the reveal, the archive keeps it)
REVEAL_LUA = """
if redis.call('HSETNX', KEYS[1], 'revealed', '1') == 0 then return 0 end
redis.call('XADD', KEYS[2], '*', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1
"""


def order_key(game_id: str) -> str:
    return Keys(game_id).dealer + ":order"


class DealerStore:
    def __init__(self, redis: Client) -> None:
        self.redis = redis
        self._commit = redis.register_script(COMMIT_LUA)
        self._reveal = redis.register_script(REVEAL_LUA)
        self._draw = redis.register_script(DRAW_LUA)

    async def commit_seed(self, game_id: str, seed_hex: str, rules_version: str,
                          commitment: str, entry: str) -> bool:
        """Store the game's seed and append the public commitment entry to the record,
        once; False when the game has its seed already (a redelivery)."""
        k = Keys(game_id)
        return bool(await self._commit(keys=[k.dealer, k.record],
                                       args=[seed_hex, rules_version, commitment, entry]))

    async def commitment(self, game_id: str) -> str:
        return text(await self.redis.hget(Keys(game_id).dealer, "commitment"))

    async def fields(self, game_id: str) -> dict[str, str]:
        """The dealer's hash of the game (empty: no seed)."""
        raw = await self.redis.hgetall(Keys(game_id).dealer)
        return {text(a): text(b) for a, b in raw.items()}

    async def fix_client_seeds(self, game_id: str, seeds: str) -> bool:
        """The client seeds of the game key, fixed by the first draw: whether ``seeds`` are
        (now) the stored ones."""
        k = Keys(game_id).dealer
        if await self.redis.hsetnx(k, "client_seeds", seeds):
            return True
        return text(await self.redis.hget(k, "client_seeds")) == seeds

    async def store_draw(self, game_id: str, label: str, record: str) -> str | None:
        """Store a draw and its place in the order at once; the first one of a label
        stands: returns that prior record (None when this one was stored)."""
        prior = await self._draw(keys=[Keys(game_id).dealer, order_key(game_id)],
                                 args=["draw:" + label, record, label])
        return text(prior) if prior else None

    async def order(self, game_id: str) -> list[str]:
        return [text(x) for x in await self.redis.lrange(order_key(game_id), 0, -1)]

    async def reveal(self, game_id: str, entry: str, ttl_ms: int) -> bool:
        """Append the reveal to the record once and let the dealer's keys expire."""
        k = Keys(game_id)
        return bool(await self._reveal(keys=[k.dealer, k.record, order_key(game_id)],
                                       args=[entry, ttl_ms]))
