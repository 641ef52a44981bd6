"""adjudicator composition root."""

from __future__ import annotations

from typing import Any

from services.adjudicator.service import Adjudicator
from services.adjudicator.store import Store
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.runtime import bus
from shared.runtime.outbox import Outbox
from shared.runtime.service import build, make_app

kit = build("adjudicator")
redis = kit.redis
adjudicator = Adjudicator(kit.settings, Store(redis), Outbox(redis))

# Which messages each stream may carry: the stream is part of a message's trust (only the
# escrow writes reveals, only the dealer writes draws; Redis ACLs enforce the writers).
ACCEPTS: dict[str, tuple[type[Wire], ...]] = {
    streams.ADJ_ACTIONS: (im.SubmitAction,),
    streams.ADJ_REVEALS: (im.RoundRevealed,),
    streams.ADJ_DRAWS: (im.SeedCommitted, im.DrawMade),
    streams.ADJ_CONTROL: (im.CreateGame, im.TurnTimeout, im.EndGame),
}


def _handler(base: str) -> Any:
    allowed = ACCEPTS[base]

    async def handle(body: dict[str, Any]) -> None:
        if body.get("type") not in {t.model_fields["type"].default for t in allowed}:
            kit.logger.error("message_on_wrong_stream", stream=base, type=body.get("type"))
            return
        await adjudicator.dispatch(body)

    return handle


for base in ACCEPTS:
    for stream in streams.all_shards(base, kit.settings.partitions):
        kit.consume(stream, streams.GROUP_ADJUDICATOR, _handler(base),
                    payload=bus.one_of(*ACCEPTS[base]))
kit.loops.append(adjudicator.timer_loop)
app = make_app(kit)
