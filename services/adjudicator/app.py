"""adjudicator composition root: ``create_app(settings)`` wires the service (nothing runs at
import; ``python -m services.adjudicator`` calls it)."""

from __future__ import annotations

from typing import Any

from faststream import FastStream

from services.adjudicator.service import Adjudicator
from services.adjudicator.store import Store
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.runtime import bus, session_keys
from shared.runtime.archive import ValkeyArchive
from shared.runtime.outbox import Outbox
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings

# Which messages each stream may carry: the stream is part of a message's trust (only the
# escrow writes reveals, only the dealer writes draws; Redis ACLs enforce the writers).
ACCEPTS: dict[str, tuple[type[Wire], ...]] = {
    streams.ADJ_ACTIONS: (im.SubmitAction,),
    streams.ADJ_REVEALS: (im.RoundRevealed,),
    streams.ADJ_DRAWS: (im.SeedCommitted, im.DrawMade),
    streams.ADJ_CONTROL: (im.CreateGame, im.TurnTimeout, im.EndGame, im.HandOver),
}


def _handler(kit: ServiceKit, adjudicator: Adjudicator, base: str) -> Any:
    allowed = ACCEPTS[base]

    async def handle(body: dict[str, Any]) -> None:
        if body.get("type") not in {t.model_fields["type"].default for t in allowed}:
            kit.logger.error("message_on_wrong_stream", stream=base, type=body.get("type"))
            return
        await adjudicator.dispatch(body)

    return handle


def wire(kit: ServiceKit) -> Adjudicator:
    s = kit.settings
    store = Store(kit.redis, refusals_kept=s.refusals_kept,
                  refusals_ttl_ms=int(s.refusals_ttl_s * 1000), partitions=s.partitions)
    adjudicator = Adjudicator(s, store, Outbox(kit.redis),
                              ValkeyArchive(kit.redis, s.archive_ttl_s),
                              session_keys.Registered(kit.redis))  # the lobby's session keys
    for base in ACCEPTS:
        for stream in streams.all_shards(base, kit.settings.partitions):
            kit.consume(stream, streams.GROUP_ADJUDICATOR, _handler(kit, adjudicator, base),
                        payload=bus.one_of(*ACCEPTS[base]))
    kit.loops.append(adjudicator.timer_loop)
    return adjudicator


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("adjudicator", wire, settings)
