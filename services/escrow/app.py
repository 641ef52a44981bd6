"""escrow composition root: ``create_app(settings)`` wires the service on its store
(services/escrow/store.py, built on the Redis client here) and the outbox (nothing runs at
import; ``python -m services.escrow`` calls it)."""

from __future__ import annotations

from faststream import FastStream

from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime import session_keys
from shared.runtime.outbox import Outbox
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings


def wire(kit: ServiceKit) -> Escrow:
    store = EscrowStore.for_settings(kit.redis, kit.settings)
    escrow = Escrow(kit.settings, store, Outbox(kit.redis),
                    session_keys.Registered(kit.redis))  # the lobby's session keys
    for stream in streams.all_shards(streams.ESC_OPEN, kit.settings.partitions):
        kit.consume(stream, streams.GROUP_ESCROW, escrow.dispatch_open,
                    description="adjudicator -> escrow: open a sealed round",
                    payload=im.OpenRound)
    for stream in streams.all_shards(streams.ESC_COMMITS, kit.settings.partitions):
        kit.consume(stream, streams.GROUP_ESCROW, escrow.dispatch_commit,
                    description="gateway -> escrow: a seat's commitment with its opening",
                    payload=im.CommitChoice)
    kit.loops.append(escrow.timer_loop)
    return escrow


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("escrow", wire, settings)
