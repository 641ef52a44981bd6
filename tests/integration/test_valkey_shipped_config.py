"""The shipped Valkey configuration keeps scripted and transactional writes across a restart.

Valkey replays MULTI/EXEC and script effects from the AOF as the default user and re-checks
the ACL (valkey-io/valkey#3983). With the default user limited to PING (the ACL shipped before)
every such write vanished on restart: 20 two-write scripts + 20 plain writes gave 60 keys
before a restart and 20 after, with "== CRITICAL == ... -NOPERM" in the log. The template now
turns the default user off (nobody signs in as it) with every permission, which only AOF replay
uses. The control below runs the old rule and must lose the writes: the check can fail."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import redis

from shared.runtime.valkey import EmbeddedValkey
from shared.runtime.valkey_acl import TEMPLATE

pytestmark = pytest.mark.integration

TWO_WRITES = "redis.call('SET', KEYS[1], 'a'); redis.call('XADD', KEYS[2], '*', 'm', 'x')"


def _write(server: EmbeddedValkey) -> int:
    """As the services do it: scripts (adjudicator), MULTI/EXEC (scoring), plain writes."""
    with redis.Redis.from_url(server.url_for("adjudicator")) as adj:
        sha = adj.script_load(TWO_WRITES)
        for i in range(20):
            adj.evalsha(sha, 2, f"g:{{t{i}}}:state", f"g:{{t{i}}}:log")
            adj.set(f"g:{{p{i}}}:state", "1")
    with redis.Redis.from_url(server.url_for("scoring")) as sc:
        for i in range(10):
            pipe = sc.pipeline(transaction=True)
            pipe.hset(f"rating:{i}", "mu", "25")
            pipe.zadd(f"lb:{i}", {"p": 1.0})
            pipe.execute()
    with redis.Redis.from_url(server.url) as admin:
        return int(admin.dbsize())


def _count(server: EmbeddedValkey) -> int:
    with redis.Redis.from_url(server.url) as admin:
        return int(admin.dbsize())


@pytest.mark.parametrize("stop", ["kill", "terminate"])
def test_scripted_and_transactional_writes_survive_a_restart(stop: str) -> None:
    server = EmbeddedValkey(shipped=True, aof=True)
    try:
        server.start()
        before = _write(server)
        assert before == 80
        getattr(server, stop)()
        server.restart()
        assert _count(server) == before
        log = server.log_path.read_text(errors="replace")
        assert "NOPERM" not in log and "CRITICAL" not in log
    finally:
        server.stop()


def test_control_a_ping_only_default_user_loses_them() -> None:
    """The ACL shipped before: the same writes, a SIGKILL, and only the plain writes are back."""
    old = Path(tempfile.mkdtemp(prefix="empire-acl-old-")) / "users.acl.template"
    old.write_text("".join(
        "user default on nopass resetkeys resetchannels -@all +ping\n"
        if line.startswith("user default ") else line + "\n"
        for line in TEMPLATE.read_text().splitlines()))
    server = EmbeddedValkey(shipped=True, aof=True, template=old)
    try:
        server.start()
        assert _write(server) == 80
        server.kill()
        server.restart()
        assert _count(server) == 20  # the 20 plain SETs; every scripted/MULTI write is gone
        assert "NOPERM" in server.log_path.read_text(errors="replace")
    finally:
        server.stop()
