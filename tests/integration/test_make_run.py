"""`make run` behaves like a deployment: its private Valkey runs the shipped valkey.conf's
persistence as is (AOF, appendfsync always; no ``--appendonly no`` appended) with the
shipped ACL model, keeps its data in
.run/valkey across runs, and so keeps a scripted write (replayed as the default user) across a
SIGKILL. ``--no-aof`` is the explicit throwaway server; the library default (the tests') too."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from services.supervisor import from_args
from shared.runtime.valkey import EmbeddedValkey

pytestmark = pytest.mark.integration

SCRIPT = "redis.call('SET', KEYS[1], 'a'); redis.call('XADD', KEYS[2], '*', 'm', 'x')"


def _persistence(server: EmbeddedValkey) -> dict[str, str]:
    with redis.Redis.from_url(server.url, decode_responses=True) as admin:
        return {k: str(admin.config_get(k)[k]) for k in ("appendonly", "appendfsync")}


def test_make_run_keeps_the_shipped_persistence_and_its_data(tmp_path: Path) -> None:
    data = tmp_path / "valkey"
    sup = from_args(["--data-dir", str(data)])
    assert sup.aof is None and sup.redis_url is None  # the private Valkey, config as shipped
    server = sup.make_valkey()
    try:
        server.start()
        assert server.shipped and Path(server.dir) == data.resolve()
        assert _persistence(server) == {"appendonly": "yes", "appendfsync": "always"}
        with redis.Redis.from_url(server.url_for("adjudicator")) as adj:
            adj.evalsha(adj.script_load(SCRIPT), 2, "g:{run}:state", "g:{run}:log")
        with redis.Redis.from_url(server.url) as admin:
            assert admin.acl_getuser("default")["enabled"] is False  # as in production
        server.kill()  # SIGKILL: only what the AOF holds survives
    finally:
        server.stop()
    again = from_args(["--data-dir", str(data)]).make_valkey()  # the next `make run`
    try:
        again.start()
        with redis.Redis.from_url(again.url) as admin:
            assert admin.get("g:{run}:state") == b"a"
            assert admin.xlen("g:{run}:log") == 1
        log = again.log_path.read_text(errors="replace")
        assert "NOPERM" not in log and "CRITICAL" not in log
    finally:
        again.stop()


def test_no_aof_and_the_library_default_are_throwaway_servers() -> None:
    sup = from_args(["--no-aof"])
    assert sup.aof is False and sup.data_dir is None
    for server in (sup.make_valkey(), EmbeddedValkey(shipped=True)):
        try:
            server.start()
            assert _persistence(server)["appendonly"] == "no"
        finally:
            server.stop()
        assert not Path(server.dir).exists()  # a temporary directory, removed
