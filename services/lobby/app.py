"""lobby composition root: request/reply on a stream (replicas share one consumer group)."""

from typing import Any

from faststream.redis import StreamSub

from services.lobby.service import Lobby
from shared.protocol import streams
from shared.runtime.service import build, make_app

kit = build("lobby")
lobby = Lobby(kit.settings, kit.redis, kit.broker)
kit.groups.append((streams.LOBBY_RPC, streams.GROUP_LOBBY))


@kit.broker.subscriber(stream=StreamSub(streams.LOBBY_RPC, group=streams.GROUP_LOBBY,
                                        consumer=kit.settings.instance,
                                        max_records=kit.settings.max_records),
                       title="lobby:rpc", description="gateway -> lobby requests (reply)")  # type: ignore[untyped-decorator]
async def on_request(body: dict[str, Any]) -> dict[str, Any]:
    return await lobby.handle(body)


app = make_app(kit)
