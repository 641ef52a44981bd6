"""The dealer (FAIRNESS.md §Dealer): commits to a 32-byte seed at game creation, answers
labelled draws from HMAC streams of the game key, reveals everything at the end.

The shell: messages in, the store (services/dealer/store.py: the dealer's keys, readable only
by its Redis user) and the core (services/dealer/core.py: entries and draws), messages out.
"""

from __future__ import annotations

import secrets
from typing import Any

import structlog
from pydantic import ValidationError

from services.dealer import core
from services.dealer.ports import DealerStorePort
from shared.fairness import draws
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.runtime import metrics
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.ports import Publisher
from shared.runtime.settings import Settings

log = structlog.get_logger("dealer")


class Dealer:
    def __init__(self, settings: Settings, store: DealerStorePort, broker: Publisher) -> None:
        self.settings = settings
        self.store = store
        self.broker = broker

    async def _to_adjudicator(self, msg: Wire, game_id: str) -> None:
        stream = streams.sharded(streams.ADJ_DRAWS, game_id, self.settings.partitions)
        await self.broker.publish(msg.model_dump(mode="json"), stream=stream,
                                  maxlen=streams.maxlen(stream))

    async def on_commit_seed(self, msg: im.CommitSeed) -> None:
        seed = secrets.token_bytes(32)  # never reused: a fresh seed per game
        commitment = draws.seed_commitment(msg.game_id, seed)
        created = await self.store.commit_seed(msg.game_id, seed.hex(), msg.rules_version,
                                               commitment,
                                               dumps(core.seed_committed_entry(commitment)))
        if not created:  # redelivered: answer with the stored commitment
            commitment = await self.store.commitment(msg.game_id)
        else:
            log.info("seed_committed", game_id=msg.game_id, commitment=commitment)
        await self._to_adjudicator(im.SeedCommitted(game_id=msg.game_id,
                                                    commitment=commitment), msg.game_id)

    async def on_draw(self, msg: im.DrawRequest) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, label=msg.label):
            fields = await self.store.fields(msg.game_id)
            if "seed" not in fields:
                log.error("draw_without_seed")
                return
            # the game key is fixed by the first draw; later requests must agree
            if not await self.store.fix_client_seeds(msg.game_id, dumps(msg.client_seeds)):
                log.error("client_seeds_mismatch")
                return
            request = core.draw_request(msg)
            values = core.deal(fields, msg)
            record = dumps({"label": msg.label, **request, "values": values})
            # no re-requests with other inputs: the first request of a label stands; the
            # draw and its place in the order are stored at once (a crash between them would
            # leave a dealt draw out of the reveal)
            stored = await self.store.store_draw(msg.game_id, msg.label, record)
            if stored is not None:
                prior = loads(stored)
                if not core.same_request(prior, request):
                    log.error("label_reused_with_other_inputs")
                    return
                values = prior["values"]
            metrics.DRAWS.inc()
            await self._to_adjudicator(im.DrawMade(game_id=msg.game_id, label=msg.label,
                                                   values=values), msg.game_id)

    async def on_reveal(self, msg: im.RevealSeed) -> None:
        fields = await self.store.fields(msg.game_id)
        if "seed" not in fields:
            return
        labels = await self.store.order(msg.game_id)
        entry = core.seed_revealed_entry(fields, labels)
        ttl_ms = int((self.settings.archive_after_s + self.settings.archive_live_ttl_s) * 1000)
        if await self.store.reveal(msg.game_id, dumps(entry), ttl_ms):
            log.info("seed_revealed", game_id=msg.game_id, draws=len(labels))
            n = self.settings.gw_shards  # the game's fan-out shard
            await self.broker.publish(im.Notify(game_id=msg.game_id).model_dump(mode="json"),
                                      stream=streams.updates_for(msg.game_id, n),
                                      maxlen=streams.updates_maxlen(n))

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = im.DEALER_INPUT.validate_python(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        if isinstance(msg, im.CommitSeed):
            await self.on_commit_seed(msg)
        elif isinstance(msg, im.DrawRequest):
            await self.on_draw(msg)
        else:
            await self.on_reveal(msg)
