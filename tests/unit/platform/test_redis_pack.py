"""The services' Redis connections pack commands in C (hiredis): byte for byte what redis-py's
own asyncio packer sends, and the same refusal for an argument it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio.connection import Connection
from redis.exceptions import DataError

from shared.runtime.redis import CheckedConnection, CheckedSSLConnection

pytestmark = pytest.mark.unit

COMMANDS: list[tuple[Any, ...]] = [
    ("GET", "k"),
    ("SET", b"k", b"\x00\xff\r\n"),
    ("XADD", "s:{g}", "MAXLEN", "~", 10_000, "*", "d", '{"choice":"héllo ✓"}'),
    ("ZADD", "z", 1.5, "a", 1e20, "b", 0.1, "c", -3, "d", 2**70, "e", float("inf"), "f"),
    ("EVALSHA", "f" * 40, 2, "k1", "k2", memoryview(b"view"), bytearray(b"array"), ""),
    ("CONFIG GET", "maxmemory"),  # a command name of two words goes as two arguments
    (b"CLIENT SETINFO", "lib-name", "x"),
    ("SET", "big", "x" * 100_000),  # past redis-py's chunking cutoff
]


@pytest.mark.parametrize("cls", [CheckedConnection, CheckedSSLConnection])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: str(a[0]))
def test_packed_as_redis_py_packs_it(cls: type[Connection], args: tuple[Any, ...]) -> None:
    ours = b"".join(cls().pack_command(*args))
    theirs = b"".join(bytes(p) for p in Connection().pack_command(*args))
    assert ours == theirs


def test_a_pipeline_packs_each_command_the_same() -> None:
    ours = b"".join(CheckedConnection().pack_commands(COMMANDS))
    theirs = b"".join(bytes(p) for p in Connection().pack_commands(COMMANDS))
    assert ours == theirs


@pytest.mark.parametrize("bad", [None, True, object(), {"a": 1}])
def test_an_argument_redis_py_refuses_is_refused_alike(bad: Any) -> None:
    with pytest.raises(DataError):
        Connection().pack_command("SET", "k", bad)
    with pytest.raises(DataError):
        CheckedConnection().pack_command("SET", "k", bad)


def test_the_packing_is_hiredis_one_buffer_a_command() -> None:
    """redis-py's Python packer splits a large value into chunks; hiredis makes one buffer
    (the C packer is the one in use)."""
    big = ("SET", "big", "x" * 100_000)
    assert len(Connection().pack_command(*big)) > 1
    assert len(CheckedConnection().pack_command(*big)) == 1
