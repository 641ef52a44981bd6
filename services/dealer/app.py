"""dealer composition root."""

from typing import Any

from services.dealer.service import Dealer
from shared.protocol import streams
from shared.protocol.internal import DealerInput, GameEnded
from shared.runtime.service import build, make_app

kit = build("dealer")
dealer = Dealer(kit.settings, kit.redis, kit.broker)
for stream in streams.all_shards(streams.DEALER_IN, kit.settings.partitions):
    kit.consume(stream, streams.GROUP_DEALER, dealer.dispatch,
                description="adjudicator -> dealer: seed commitment, labelled draws, reveal",
                payload=DealerInput)


async def _on_ended(body: dict[str, Any]) -> None:
    # also reveal on game over seen directly (belt and braces with RevealSeed)
    await dealer.dispatch({"type": "reveal_seed", "game_id": GameEnded.model_validate(
        body).game_id})


kit.consume(streams.GAME_ENDED, streams.GROUP_DEALER, _on_ended,
            description="game over -> dealer reveals the seed", payload=GameEnded)
app = make_app(kit)
