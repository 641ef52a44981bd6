"""bot runner composition root: bots:in read with back-pressure (BotRunner.read_loop), lapsed
seats adopted (resume_loop), entries of a dead runner reclaimed (reclaim_loop).
``create_app(settings)`` wires it (nothing runs at import; ``python -m services.bots``)."""

from __future__ import annotations

from faststream import FastStream
from faststream.redis import RedisBroker, StreamSub

from services.bots.service import BotRunner
from services.bots.store import BotsStore
from shared.protocol import streams
from shared.protocol.internal import SeatBot
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings


def wire(kit: ServiceKit) -> BotRunner:
    runner = BotRunner(kit.settings, BotsStore(kit.redis, kit.settings.instance))
    kit.groups.append((streams.BOTS_IN, streams.GROUP_BOTS))
    kit.readers.append(runner.read_loop)
    kit.loops += [runner.reclaim_loop, runner.resume_loop, runner.observe_loop]
    kit.shutdown.append(runner.close)
    return runner


def spec_broker(settings: Settings, runner: BotRunner) -> RedisBroker:
    """The contract of bots:in for the AsyncAPI document: the runner reads it itself (only
    while it has room for more seats), so this broker only describes it, never started."""
    spec = RedisBroker(settings.redis_url)

    @spec.subscriber(stream=StreamSub(streams.BOTS_IN, group=streams.GROUP_BOTS,
                                      consumer=f"{settings.instance}-reclaim",
                                      max_records=settings.max_records,
                                      min_idle_time=streams.RECLAIM_IDLE_MS),
                     title=f"{streams.BOTS_IN}:{streams.GROUP_BOTS}",
                     description="lobby -> bot runner: play this seat")  # type: ignore[untyped-decorator]
    async def on_seat(body: SeatBot) -> None:  # its payload: the real message
        await runner.on_seat(body.model_dump(mode="json"))

    return spec


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("bots", wire, settings, spec_broker)
