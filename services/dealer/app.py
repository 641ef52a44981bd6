"""dealer composition root: ``create_app(settings)`` wires the service (nothing runs at
import; ``python -m services.dealer`` calls it)."""

from __future__ import annotations

from typing import Any

from faststream import FastStream

from services.dealer.service import Dealer
from services.dealer.store import DealerStore
from shared.protocol import streams
from shared.protocol.internal import DealerInput, GameEnded
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings


def wire(kit: ServiceKit) -> Dealer:
    """The dealer on ``kit``'s Redis and broker, its streams subscribed."""
    dealer = Dealer(kit.settings, DealerStore(kit.redis), kit.broker)
    for stream in streams.all_shards(streams.DEALER_IN, kit.settings.partitions):
        kit.consume(stream, streams.GROUP_DEALER, dealer.dispatch,
                    description="adjudicator -> dealer: seed commitment, labelled draws, reveal",
                    payload=DealerInput)

    async def on_ended(body: dict[str, Any]) -> None:
        # also reveal on game over seen directly (belt and braces with RevealSeed)
        await dealer.dispatch({"type": "reveal_seed", "game_id": GameEnded.model_validate(
            body).game_id})

    kit.consume(streams.GAME_ENDED, streams.GROUP_DEALER, on_ended,
                description="game over -> dealer reveals the seed", payload=GameEnded)
    return dealer


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("dealer", wire, settings)
