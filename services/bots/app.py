"""bot runner composition root."""

from services.bots.service import BotRunner
from shared.protocol import streams
from shared.runtime.service import build, make_app

kit = build("bots")
runner = BotRunner(kit.settings, kit.redis)
kit.consume(streams.BOTS_IN, streams.GROUP_BOTS, runner.on_seat,
            description="lobby -> bot runner: play this seat")
kit.loops.append(runner.resume_loop)
app = make_app(kit)
