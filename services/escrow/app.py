"""escrow composition root."""

from services.escrow.service import Escrow
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime.outbox import Outbox
from shared.runtime.service import build, make_app

kit = build("escrow")
redis = kit.redis
escrow = Escrow(kit.settings, redis, Outbox(redis))
for stream in streams.all_shards(streams.ESC_OPEN, kit.settings.partitions):
    kit.consume(stream, streams.GROUP_ESCROW, escrow.dispatch_open,
                description="adjudicator -> escrow: open a sealed round", payload=im.OpenRound)
for stream in streams.all_shards(streams.ESC_COMMITS, kit.settings.partitions):
    kit.consume(stream, streams.GROUP_ESCROW, escrow.dispatch_commit,
                description="gateway -> escrow: a seat's commitment with its opening",
                payload=im.CommitChoice)
kit.loops.append(escrow.timer_loop)
app = make_app(kit)
