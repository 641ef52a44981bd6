"""lobby composition root: requests on the lobby:rpc stream (replicas share one consumer
group), served concurrently by services/lobby/rpc.py; the idle-table sweep.
``create_app(settings)`` wires it (nothing runs at import; ``python -m services.lobby``)."""

from __future__ import annotations

from typing import Any

from faststream import FastStream
from faststream.redis import RedisBroker, StreamSub

from services.lobby.accounts.service import Accounts
from services.lobby.accounts.store import AccountsStore
from services.lobby.mygames_service import MyGames
from services.lobby.mygames_store import MyGamesStore
from services.lobby.rpc import RpcServer
from services.lobby.service import Lobby
from services.lobby.store import LobbyStore
from shared.protocol import streams
from shared.protocol.lobby import LobbyRequest
from shared.protocol.turns import GROUP_MY_GAMES, TURNS, TurnsEntry
from shared.runtime.outbox import Outbox
from shared.runtime.ports import Publisher
from shared.runtime.redis import Client
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings


def lobby_on(settings: Settings, redis: Client, broker: Publisher) -> Lobby:
    """The lobby on one Redis client: its store and accounts there, ``broker`` its
    publisher."""
    # My games publishes through an outbox: the pushes of a consumed batch of turns entries
    # go out in one pipelined round trip (faststream's publish is one round trip each)
    return Lobby(settings, LobbyStore(redis), Accounts(settings, AccountsStore(redis)), broker,
                 MyGames(settings, MyGamesStore(redis), Outbox(redis)))


def wire(kit: ServiceKit) -> Lobby:
    lobby = lobby_on(kit.settings, kit.redis, kit.broker)
    if lobby.my_games is not None:  # "My games" from the turns stream
        kit.consume(TURNS, GROUP_MY_GAMES, lobby.my_games.on_turns, payload=TurnsEntry,
                    description="adjudicator -> lobby: who each game waits for (My games)")
    server = RpcServer(kit.settings, kit.redis, lobby.handle)
    kit.groups.append((streams.LOBBY_RPC, streams.GROUP_LOBBY))
    kit.readers.append(server.run)
    kit.loops += [server.reclaim_loop, lobby.sweep_loop]
    return lobby


def spec_broker(settings: Settings, lobby: Lobby) -> RedisBroker:
    """The contract of lobby:rpc for the AsyncAPI document: requests are read by RpcServer
    (not by a faststream subscriber), so this broker only describes them, never started."""
    spec = RedisBroker(settings.redis_url)

    @spec.subscriber(stream=StreamSub(streams.LOBBY_RPC, group=streams.GROUP_LOBBY,
                                      consumer=settings.instance,
                                      max_records=settings.max_records),
                     title="lobby:rpc", description="gateway -> lobby requests (reply)")  # type: ignore[untyped-decorator]
    async def on_request(body: LobbyRequest) -> dict[str, Any]:  # its payload: the real union
        return await lobby.handle(body.model_dump(mode="json"))

    return spec


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("lobby", wire, settings, spec_broker)
