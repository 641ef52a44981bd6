"""The gateway's ports: what its logic takes from the outside, as Protocols, and the Redis
client type its adapters take. The adapters (services/gateway/store.py, the lobby's
services/gateway/lobby/rpc.py, shared.runtime's Outbox and archives) satisfy them; tests wire
in-memory fakes (tests/support/fakes.py). Nothing here imports an adapter."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeAlias, cast

from redis.asyncio import Redis, RedisCluster

from shared.runtime.archive import Archive
from shared.runtime.ports import Publisher

# the client shared.runtime.redis.client builds: one server, or a cluster when configured
RedisClient: TypeAlias = Redis | RedisCluster
# a stream entry as the adapters read it (bytes: the clients never decode responses)
Entry: TypeAlias = tuple[bytes, dict[bytes, bytes]]


def stream_entries(found: object) -> list[Entry]:
    """A stream read's entries (XRANGE, XREVRANGE), typed as they arrive: redis-py types
    them for every client setting at once (ids and fields as bytes, str or None)."""
    return cast(list[Entry], found)

__all__ = ["Archive", "Entry", "GameReads", "LobbyRequests", "Publisher", "RedisClient", "Want",
           "stream_entries"]


class Want(Protocol):
    """The fan-out reads the game's shard from now on (fanout/shards.py ``Shards.want``);
    ``pin``: even while no socket here watches the game (a command's answer)."""

    async def __call__(self, game_id: str, pin: bool = False) -> None: ...


class LobbyRequests(Protocol):
    """The round trip to the lobby (lobby/rpc.py ``LobbyRpc``); ``stream``: another request
    server's stream answered the same way (the notifier's ``notify:rpc``)."""

    async def request(self, body: dict[str, Any], timeout: float,
                      stream: str = ...) -> dict[str, Any]: ...


class GameReads(Protocol):
    """What the HTTP routes read of games, ratings and players (store.py ``GatewayStore``)."""

    async def close(self) -> None: ...

    async def ping(self) -> None: ...

    async def entries(self, key: str) -> list[dict[str, Any]]: ...

    async def stage(self, game_id: str) -> str | None: ...

    async def result(self, game_id: str) -> dict[str, Any] | None: ...

    async def leaderboard(self, game: str, limit: int) -> list[dict[str, Any]]: ...

    async def history(self, player_id: str, count: int | None = None) -> list[str]: ...

    async def rating(self, game: str, player_id: str) -> dict[str, Any] | None: ...

    async def erased(self, ids: Iterable[Any]) -> set[str]: ...
