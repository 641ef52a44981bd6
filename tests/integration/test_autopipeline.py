"""Automatic pipelining (shared/runtime/autopipeline.py) against a real server: the
commands of one event-loop turn go out as one pipeline, each caller gets its own reply or its
own error, blocking commands never hold the others back, a command cancelled before the flush
is never sent, scripts load themselves again after a SCRIPT FLUSH, and a dead server fails
every command of the flush with the same ConnectionError as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from shared.runtime.autopipeline import AutoPipelineRedis, _blocking
from shared.runtime.redis import client
from shared.runtime.settings import Settings
from tests.e2e.conftest import with_db

pytestmark = pytest.mark.integration

DB = 11  # a logical database of its own


@pytest.fixture
async def ap(redis_url: str) -> AsyncIterator[Any]:
    r = client(Settings(redis_url=with_db(redis_url, DB)))
    assert isinstance(r, AutoPipelineRedis)
    await r.flushdb()
    yield r
    await r.flushdb()
    await r.aclose()


async def test_the_commands_of_one_turn_share_one_pipeline_and_get_their_own_replies(
        ap: Any) -> None:
    await ap.flushdb()
    before = ap.flushes
    await asyncio.gather(*[ap.hset(f"ap:h{i % 7}", f"f{i}", i) for i in range(200)])
    got = await asyncio.gather(*[ap.hget(f"ap:h{i % 7}", f"f{i}") for i in range(200)])
    assert got == [str(i).encode() for i in range(200)]
    # 400 commands in 2 turns: 2 pipelines (at most MAX_BATCH each), not 400 round trips
    assert ap.flushes - before == 2, ap.flushes - before
    # the callbacks still parse: a hash, a stream entry, a sorted set
    await ap.hset("ap:x", mapping={"a": 1, "b": 2})
    h, sid, z = await asyncio.gather(ap.hgetall("ap:x"), ap.xadd("ap:s", {"k": "v"}),
                                     ap.zadd("ap:z", {"m": 1.5}))
    assert h == {b"a": b"1", b"b": b"2"} and sid.count(b"-") == 1 and z == 1
    assert await ap.zscore("ap:z", "m") == 1.5


async def test_one_command_s_error_is_its_own(ap: Any) -> None:
    await ap.set("ap:str", "not a number")
    res = await asyncio.gather(ap.incr("ap:n"), ap.incr("ap:str"), ap.get("ap:str"),
                               return_exceptions=True)
    assert res[0] == 1 and isinstance(res[1], ResponseError) and res[2] == b"not a number"


async def test_a_blocking_read_never_holds_the_turn_s_other_commands_back(ap: Any) -> None:
    assert _blocking(("XREAD", "BLOCK", 1000, "STREAMS", "s", "$"))
    assert _blocking(("XREADGROUP", "GROUP", "g", "c", b"BLOCK", 10, "STREAMS", "s", ">"))
    assert not _blocking(("XREAD", "COUNT", 10, "STREAMS", "s", "0-0"))
    assert _blocking(("BLPOP", "k", 1)) and not _blocking(("LPOP", "k"))
    done: list[str] = []

    async def blocked() -> None:
        await ap.xread({"ap:never": "$"}, block=1500)
        done.append("xread")

    async def quick(i: int) -> None:
        await ap.set(f"ap:q{i}", i)
        done.append("set")

    await asyncio.gather(blocked(), *[quick(i) for i in range(5)])
    assert done == ["set"] * 5 + ["xread"], done  # by order, not by time


async def test_a_command_cancelled_before_the_flush_is_never_sent(ap: Any) -> None:
    task = asyncio.ensure_future(ap.set("ap:cancelled", 1))
    await asyncio.sleep(0)  # the command is queued, the flush not yet run
    task.cancel()
    sent = asyncio.ensure_future(ap.set("ap:kept", 1))
    await asyncio.gather(task, sent, return_exceptions=True)
    assert await ap.exists("ap:cancelled") == 0 and await ap.exists("ap:kept") == 1


async def test_scripts_load_again_after_a_script_flush(ap: Any) -> None:
    script = ap.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
    await script(keys=["ap:c"], args=[1])
    await ap.script_flush()
    got = await asyncio.gather(*[script(keys=["ap:c"], args=[1]) for _ in range(10)])
    assert sorted(got) == list(range(2, 12))


async def test_a_dead_server_fails_every_command_of_the_flush() -> None:
    r = client(Settings(redis_url="redis://127.0.0.1:1/0"))
    assert isinstance(r, AutoPipelineRedis)
    res = await asyncio.gather(*[r.get(f"k{i}") for i in range(5)], return_exceptions=True)
    assert all(isinstance(x, RedisConnectionError) for x in res), res
    await r.aclose()


def test_off_by_setting(redis_url: str) -> None:
    assert not isinstance(client(Settings(redis_url=redis_url, redis_autopipeline=False)),
                          AutoPipelineRedis)
