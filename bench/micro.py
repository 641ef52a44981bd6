"""Unit costs behind the profile (CPU microseconds in this process, uvloop, a private Valkey):
what one Redis round trip, one faststream publish, one consumed message (through a faststream
subscriber and through the services' own live reader), one thread hop, the
adjudicator's per-action model work and a commit's cryptography (FAIRNESS.md: the client seals
its opening to the escrow and signs the command, the escrow opens and verifies it) cost.
Multiplied by the counts per round they say what each optimisation can save, and what no
optimisation can (docs/performance.md, "Why ours costs more than the peer").

    python -m bench --only micro
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import redis.asyncio as aioredis

from shared.runtime.valkey import EmbeddedValkey

QUIET = logging.getLogger("bench.micro")
QUIET.setLevel(logging.WARNING)


async def _cpu_us(n: int, fn: Callable[[], Awaitable[Any]]) -> float:
    """CPU µs per call of ``fn`` over ``n`` calls, after up to 200 warm-up calls."""
    for _ in range(min(200, n)):
        await fn()
    t = time.process_time()
    for _ in range(n):
        await fn()
    return _per_call_us(t, n)


def _cpu_us_sync(n: int, fn: Callable[[], Any]) -> float:
    """``_cpu_us`` for a plain function."""
    for _ in range(min(200, n)):
        fn()
    t = time.process_time()
    for _ in range(n):
        fn()
    return _per_call_us(t, n)


def _per_call_us(since: float, n: int) -> float:
    return round(1e6 * (time.process_time() - since) / n, 1)


async def redis_costs(url: str, n: int) -> dict[str, float]:
    r = aioredis.Redis.from_url(url)
    await r.hset("h", "f", "x" * 200)

    async def one() -> None:
        await r.hget("h", "f")

    async def four_sequential() -> None:
        for _ in range(4):
            await r.hget("h", "f")

    async def four_pipelined() -> None:
        async with r.pipeline(transaction=False) as p:
            for _ in range(4):
                p.hget("h", "f")
            await p.execute()

    async def xadd() -> None:
        await r.xadd("s", {"d": "x" * 300}, maxlen=1000, approximate=True)

    out = {
        "redis_round_trip_us": await _cpu_us(n, one),
        "redis_4_sequential_us": await _cpu_us(n // 4, four_sequential),
        "redis_4_pipelined_us": await _cpu_us(n // 4, four_pipelined),
        "redis_xadd_us": await _cpu_us(n, xadd),
    }
    await r.aclose()
    return out


async def faststream_costs(url: str, n: int) -> dict[str, float]:
    from faststream.redis import RedisBroker

    body = {"type": "notify", "game_id": "g-0123456789abcdef", "v": 1}
    pub = RedisBroker(url, logger=QUIET)
    await pub.start()

    async def publish() -> None:
        await pub.publish(body, stream="bench:pub", maxlen=1000)

    out = {"faststream_publish_us": await _cpu_us(n, publish)}
    for i, with_msg in enumerate((False, True)):
        stream = f"bench:sub{i}"
        for _ in range(n):
            await pub.publish(body, stream=stream)
        label = "with_msg_param" if with_msg else "body_only"
        out[f"faststream_consume_{label}_us"] = await _consume(url, stream, n, with_msg)
    for records in (1, 64):
        for side, measure in (("faststream_batch", _batch_subscriber), ("reader", _read)):
            stream = f"bench:{side}{records}"
            for _ in range(n):
                await pub.publish(body, stream=stream)
            out[f"{side}_consume_batch{records}_us"] = await measure(url, stream, n, records)
    await pub.stop()
    return out


def _counting(n: int) -> tuple[Callable[[dict[str, Any]], Awaitable[None]], asyncio.Event]:
    """A handler that counts the messages it is given, and the event it sets at the ``n``th."""
    got = 0
    done = asyncio.Event()

    async def count(body: dict[str, Any]) -> None:
        nonlocal got
        got += 1
        if got >= n:
            done.set()

    return count, done


async def _batch_subscriber(url: str, stream: str, n: int, records: int) -> float:
    """CPU per message of faststream's batch subscriber set up as a service's live reader
    would be without ``bus.StreamReader`` (the broker's middlewares, ``batch=True``, manual
    XACK + XDEL of each batch), over ``n`` entries read ``records`` at a time."""
    from faststream import AckPolicy
    from faststream.redis import RedisBroker, StreamSub

    from shared.runtime import bus
    from shared.runtime.redis import ensure_group

    broker = RedisBroker(url, logger=QUIET, middlewares=bus.middlewares())
    r = aioredis.Redis.from_url(url)
    await ensure_group(r, stream, "g")
    count, done = _counting(n)

    @broker.subscriber(stream=StreamSub(stream, group="g", consumer="c", batch=True,
                                        max_records=records),
                       ack_policy=AckPolicy.MANUAL)  # type: ignore[misc,untyped-decorator]
    async def handle(bodies: list[dict[str, Any]]) -> None:  # as the reader handles a batch
        msg = broker.context.get_local("message")
        ids = list(msg.raw_message.get("message_ids", ()))
        await bus.handle_batch(count, bodies, stream, getattr(msg, "batch_headers", None) or (),
                               [bus.Delivery(stream, "g", m, True) for m in ids])
        await bus.acknowledge(r, stream, "g", ids, True)

    t = time.process_time()
    await broker.start()
    await asyncio.wait_for(done.wait(), 300)
    cpu = time.process_time() - t
    await broker.stop()
    await r.aclose()
    return round(1e6 * cpu / n, 1)


async def _read(url: str, stream: str, n: int, records: int) -> float:
    """CPU per message of the services' live reader (``shared.runtime.bus.consume``: read,
    handle, XACK + XDEL) over ``n`` entries read ``records`` at a time (1: as when messages
    come one at a time)."""
    from faststream.redis import RedisBroker

    from shared.runtime import bus
    from shared.runtime.redis import client, ensure_group
    from shared.runtime.settings import Settings

    settings = Settings(redis_url=url, instance="bench", max_records=records)
    redis = client(settings)
    await ensure_group(redis, stream, "g")
    handle, done = _counting(n)
    reader = bus.consume(RedisBroker(url, logger=QUIET), stream, "g", settings, handle)
    t = time.process_time()
    task = asyncio.create_task(reader.run(redis))
    await asyncio.wait_for(done.wait(), 300)
    cpu = time.process_time() - t
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await redis.aclose()
    return round(1e6 * cpu / n, 1)


async def _consume(url: str, stream: str, n: int, with_msg: bool) -> float:
    """CPU per message of a group consumer (like shared.runtime.bus) over ``n`` entries."""
    from faststream.redis import RedisBroker, StreamSub
    from faststream.redis.annotations import RedisStreamMessage

    r = aioredis.Redis.from_url(url)
    await r.xgroup_create(stream, "g", id="0", mkstream=True)
    await r.aclose()
    broker = RedisBroker(url, logger=QUIET)
    got = 0
    done = asyncio.Event()
    sub = StreamSub(stream, group="g", consumer="c", max_records=64)

    def count() -> None:
        nonlocal got
        got += 1
        if got >= n:
            done.set()

    if with_msg:

        @broker.subscriber(stream=sub)  # type: ignore[misc,untyped-decorator]
        async def handle_msg(b: dict[str, Any], msg: RedisStreamMessage) -> None:
            count()
    else:

        @broker.subscriber(stream=sub)  # type: ignore[misc,untyped-decorator]
        async def handle(b: dict[str, Any]) -> None:
            count()

    t = time.process_time()
    await broker.start()
    await asyncio.wait_for(done.wait(), 300)
    cpu = time.process_time() - t
    await broker.stop()
    return round(1e6 * cpu / n, 1)


async def thread_hop(n: int) -> dict[str, float]:
    def nothing() -> None:
        return None

    async def hop() -> None:
        await anyio.to_thread.run_sync(nothing)

    return {"anyio_thread_hop_us": await _cpu_us(n, hop)}


def model_costs(n: int) -> dict[str, float]:
    """The adjudicator's pure work for one revealed round of the workload."""
    from bench.driver import OPTIONS
    from services.adjudicator import core
    from services.adjudicator.core import GameDoc
    from shared.protocol import internal as im
    from shared.rules import registry
    from shared.runtime.jsonutil import dumps, loads

    game = registry.get("duel")
    players = [im.PlayerRef(player_id=f"p{i}", name=f"p{i}") for i in range(2)]
    doc = GameDoc(
        game_id="g-0123456789abcdef",
        game="duel",
        options=OPTIONS,
        players=players,
        engine=game.encode(game.setup(OPTIONS, 2)),
        turn_timeout_ms=1000,
        round_timeout_ms=1000,
        stage="playing",
    )
    eff = core.on_draw(doc, im.DrawMade(game_id=doc.game_id, label="setup:first", values=[0]), 0)
    assert eff.doc is not None
    doc = eff.doc
    raw = doc.model_dump_json()
    msg = im.RoundRevealed(game_id=doc.game_id, round_id="pick:1", choices={"s0": 3, "s1": 7})

    def step() -> None:
        d = GameDoc.model_validate(loads(raw))
        e = core.on_revealed(d, msg, 0)
        assert e.doc is not None
        views = core.render_views(e.doc, e.events)
        e.doc.model_dump_json()
        for v in views.values():
            dumps(v)
        for _, m in e.outbound:
            m.model_dump(mode="json")

    return {"adjudicator_model_work_us": _cpu_us_sync(n, step)}


def crypto_costs(n: int) -> dict[str, float]:
    """One commit's cryptography as the workload does it (a pick in a duel round): the
    client seals its opening (HPKE to the escrow's X25519 key) and signs the commit (Ed25519),
    the escrow opens the seal and verifies the signature over the rebuilt message."""
    import os

    from shared.fairness import seal, signing
    from shared.runtime.session_keys import SessionKey, verify

    private = seal.new_private_key()
    public = seal.public_key(private)
    nonce = os.urandom(32).hex()
    args = ("g-0123456789abcdef", "pick:1", "s0", 0)
    sealed = seal.seal_opening(public, *args, 7, nonce)
    key = SessionKey()
    commitment = "ab" * 32

    def message() -> bytes:
        return signing.message("g-0123456789abcdef", 0, "c-1", "commit", signing.commit_body(
            "pick:1", "s0", commitment, signing.sealed_digest(sealed), None))

    sig = key.sign(message())

    return {"client_seal_us": _cpu_us_sync(n, lambda: seal.seal_opening(public, *args, 7, nonce)),
            "client_sign_us": _cpu_us_sync(n, lambda: key.sign(message())),
            "escrow_open_us": _cpu_us_sync(n, lambda: seal.open_sealed(private, *args, sealed)),
            "escrow_verify_us": _cpu_us_sync(n, lambda: verify(key.public, sig, message()))}


async def run(n: int = 3000) -> dict[str, float]:
    server = EmbeddedValkey()
    url = server.start()
    try:
        out: dict[str, float] = {}
        out.update(await redis_costs(url, n))
        out.update(await faststream_costs(url, n))
        out.update(await thread_hop(n))
        out.update(model_costs(n // 3))
        out.update(crypto_costs(n))
        await asyncio.sleep(0.5)  # let the brokers' last reads return before the server goes
        return out
    finally:
        server.stop()
