"""The dealer (FAIRNESS.md §Dealer): commits to a 32-byte seed at game creation, answers
labelled draws from HMAC streams of the game key, reveals everything at the end.

Dealer keys (``dealer:{game}:seed``) are readable only by the dealer's Redis user.
"""

from __future__ import annotations

import secrets
from typing import Any

import structlog
from pydantic import ValidationError

from shared.fairness import draws
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.protocol.streams import Keys
from shared.runtime import metrics
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.settings import Settings

log = structlog.get_logger("dealer")

COMMIT_LUA = """
if redis.call('HSETNX', KEYS[1], 'seed', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'rules_version', ARGV[2], 'commitment', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'd', ARGV[4])
return 1
"""

DRAW_LUA = """
local prior = redis.call('HGET', KEYS[1], ARGV[1])
if prior then return prior end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
return false
"""

# the seed and the draws are public once revealed: the dealer's keys then expire with the
# game's live keys (ARGV[2] ms; the record carries the reveal, the archive keeps it)
REVEAL_LUA = """
if redis.call('HSETNX', KEYS[1], 'revealed', '1') == 0 then return 0 end
redis.call('XADD', KEYS[2], '*', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1
"""


class Dealer:
    def __init__(self, settings: Settings, redis: Any, broker: Any) -> None:
        self.settings = settings
        self.redis = redis
        self.broker = broker
        self._commit = redis.register_script(COMMIT_LUA)
        self._reveal = redis.register_script(REVEAL_LUA)
        self._draw = redis.register_script(DRAW_LUA)

    async def _to_adjudicator(self, msg: Wire, game_id: str) -> None:
        stream = streams.sharded(streams.ADJ_DRAWS, game_id, self.settings.partitions)
        await self.broker.publish(msg.model_dump(mode="json"), stream=stream,
                                  maxlen=streams.maxlen(stream))

    async def on_commit_seed(self, msg: im.CommitSeed) -> None:
        k = Keys(msg.game_id)
        seed = secrets.token_bytes(32)  # never reused: a fresh seed per game
        commitment = draws.seed_commitment(msg.game_id, seed)
        entry = {"type": "seed_committed", "commitment": commitment,
                 "scheme": "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)"}
        created = await self._commit(keys=[k.dealer, k.record],
                                     args=[seed.hex(), msg.rules_version, commitment,
                                           dumps(entry)])
        if not created:  # redelivered: answer with the stored commitment
            commitment = text(await self.redis.hget(k.dealer, "commitment"))
        else:
            log.info("seed_committed", game_id=msg.game_id, commitment=commitment)
        await self._to_adjudicator(im.SeedCommitted(game_id=msg.game_id,
                                                    commitment=commitment), msg.game_id)

    async def on_draw(self, msg: im.DrawRequest) -> None:
        k = Keys(msg.game_id)
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, label=msg.label):
            data = {text(a): text(b) for a, b in (await self.redis.hgetall(k.dealer)).items()}
            if "seed" not in data:
                log.error("draw_without_seed")
                return
            seeds = dumps(msg.client_seeds)
            # the game key is fixed by the first draw; later requests must agree
            if await self.redis.hsetnx(k.dealer, "client_seeds", seeds) == 0 and \
                    text(await self.redis.hget(k.dealer, "client_seeds")) != seeds:
                log.error("client_seeds_mismatch")
                return
            key = draws.game_key(bytes.fromhex(data["seed"]), msg.game_id,
                                 data["rules_version"],
                                 [bytes.fromhex(s) for s in msg.client_seeds])
            request = {"draw": msg.draw, "n": msg.n, "count": msg.count}
            values = draws.draw(key, msg.label, msg.draw, msg.n, msg.count)
            record = dumps({"label": msg.label, **request, "values": values})
            # no re-requests with other inputs: the first request of a label stands; the
            # draw and its place in the order are stored at once (a crash between them would
            # leave a dealt draw out of the reveal)
            stored = await self._draw(keys=[k.dealer, k.dealer + ":order"],
                                      args=["draw:" + msg.label, record, msg.label])
            if stored:
                prior = loads(stored)
                if {x: prior[x] for x in request} != request:
                    log.error("label_reused_with_other_inputs")
                    return
                values = prior["values"]
            metrics.DRAWS.inc()
            await self._to_adjudicator(im.DrawMade(game_id=msg.game_id, label=msg.label,
                                                   values=values), msg.game_id)

    async def on_reveal(self, msg: im.RevealSeed) -> None:
        k = Keys(msg.game_id)
        data = {text(a): text(b) for a, b in (await self.redis.hgetall(k.dealer)).items()}
        if "seed" not in data:
            return
        labels = [text(x) for x in await self.redis.lrange(k.dealer + ":order", 0, -1)]
        entry = {"type": "seed_revealed", "server_seed": data["seed"],
                 "rules_version": data["rules_version"],
                 "client_seeds": loads(data.get("client_seeds", "[]")),
                 "draws": [loads(data["draw:" + lb]) for lb in labels]}
        ttl_ms = int((self.settings.archive_after_s + self.settings.archive_live_ttl_s) * 1000)
        if await self._reveal(keys=[k.dealer, k.record, k.dealer + ":order"],
                              args=[dumps(entry), ttl_ms]):
            log.info("seed_revealed", game_id=msg.game_id, draws=len(labels))
            await self.broker.publish(im.Notify(game_id=msg.game_id).model_dump(mode="json"),
                                      stream=streams.GW_UPDATES,
                                      maxlen=streams.MAXLEN_UPDATES)

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
