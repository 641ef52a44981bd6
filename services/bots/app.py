"""bot runner composition root: bots:in read with back-pressure (BotRunner.read_loop), lapsed
seats adopted (resume_loop), entries of a dead runner reclaimed (reclaim_loop)."""

from faststream.redis import RedisBroker, StreamSub

from services.bots.service import BotRunner
from shared.protocol import streams
from shared.protocol.internal import SeatBot
from shared.runtime.service import build, make_app

kit = build("bots")
runner = BotRunner(kit.settings, kit.redis)
kit.groups.append((streams.BOTS_IN, streams.GROUP_BOTS))
kit.readers.append(runner.read_loop)
kit.loops += [runner.reclaim_loop, runner.resume_loop]
kit.shutdown.append(runner.close)

# The contract of bots:in for the AsyncAPI document: the runner reads it itself (only while
# it has room for more seats), so this broker only describes it and is never started.
spec = RedisBroker(kit.settings.redis_url)


@spec.subscriber(stream=StreamSub(streams.BOTS_IN, group=streams.GROUP_BOTS,
                                  consumer=f"{kit.settings.instance}-reclaim",
                                  max_records=kit.settings.max_records,
                                  min_idle_time=streams.RECLAIM_IDLE_MS),
                 title=f"{streams.BOTS_IN}:{streams.GROUP_BOTS}",
                 description="lobby -> bot runner: play this seat")  # type: ignore[untyped-decorator]
async def on_seat(body: SeatBot) -> None:  # its payload: the real message
    await runner.on_seat(body.model_dump(mode="json"))


app = make_app(kit, spec_brokers=[spec])
