"""deploy/valkey/healthcheck.sh, the Valkey check of compose and the StatefulSet's startup and
readiness probes, run for real against the shipped configuration (entrypoint, template, random
passwords): it passes only on PONG to the health user, and fails while Valkey loads a large
AOF, on a wrong password and when the ACL does not let the health user PING."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis

from shared.runtime.valkey import EmbeddedValkey
from shared.runtime.valkey_acl import DEPLOY
from tests.deploy.stack import base_env, valkey_cli

pytestmark = pytest.mark.deploy

HEALTHCHECK = DEPLOY / "healthcheck.sh"


def check(server: EmbeddedValkey, password: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **base_env(),
        "VALKEY_CLI": valkey_cli(),
        "VALKEY_PORT": str(server.port),
        "VALKEY_PASSWORD_HEALTH": server.passwords["health"] if password is None else password,
        "VALKEY_SECRETS_DIR": "/nonexistent",
    }
    return subprocess.run(
        ["sh", str(HEALTHCHECK)], env=env, capture_output=True, text=True, timeout=30
    )


@pytest.fixture
def server() -> Iterator[EmbeddedValkey]:
    s = EmbeddedValkey(shipped=True, aof=True)
    s.start()
    yield s
    s.stop()


def test_passes_on_pong_to_the_health_user(server: EmbeddedValkey) -> None:
    run = check(server)
    assert run.returncode == 0, run.stderr


def test_fails_on_a_wrong_password(server: EmbeddedValkey) -> None:
    run = check(server, password=os.urandom(32).hex())
    assert run.returncode == 1
    assert "WRONGPASS" in run.stderr or "invalid username-password" in run.stderr, run.stderr


def test_fails_when_the_acl_does_not_let_the_health_user_ping(server: EmbeddedValkey) -> None:
    with redis.Redis.from_url(server.url) as admin:
        admin.execute_command("ACL", "SETUSER", "health", "-ping")
    run = check(server)
    assert run.returncode == 1
    assert "NOPERM" in run.stderr, run.stderr


def test_fails_without_a_password_and_when_nothing_listens(server: EmbeddedValkey) -> None:
    assert check(server, password="").returncode == 1
    server.terminate()
    assert check(server).returncode == 1


def test_fails_while_valkey_loads_a_large_aof_then_passes(server: EmbeddedValkey) -> None:
    """A restart on a large AOF: every PING answers -LOADING until the data is in memory; the
    check must fail all that time (no service starts against it, no probe routes to it), then
    pass. key-load-delay (a Valkey test setting) stretches the load of 20 000 keys to seconds
    so the window is observable on any machine. valkey-cli itself exits 0 on -LOADING: only
    the script's exact PONG comparison fails it."""
    with redis.Redis.from_url(server.url) as admin:
        pipe = admin.pipeline(transaction=False)
        for i in range(20_000):
            pipe.set(f"bulk:{i}", "x" * 64)
        pipe.execute()
        admin.bgrewriteaof()  # the keys go into the AOF's RDB preamble
        deadline = time.monotonic() + 60
        while (
            admin.info("persistence")["aof_rewrite_in_progress"]
            or admin.info("persistence")["aof_rewrite_scheduled"]
        ):
            assert time.monotonic() < deadline
            time.sleep(0.1)
    server.terminate()
    loading = EmbeddedValkey(
        port=server.port,
        data_dir=server.dir,
        aof=True,
        shipped=True,
        passwords=server.passwords,
        # answer clients every KiB of the load (the default, 2 MB, is the whole file here)
        extra=["--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024"],
    )
    # started by hand: EmbeddedValkey.start() would wait for the load to finish
    argv, env = loading._argv()
    loading.proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    try:
        seen_loading = 0
        t0 = time.monotonic()
        while True:
            run = check(loading)
            if run.returncode == 0:
                break
            if seen_loading or "Connection refused" not in run.stderr:  # not up yet: fine
                assert "LOADING" in run.stderr, run.stderr
                seen_loading += 1
            assert time.monotonic() - t0 < 120, "still loading after 120 s"
            time.sleep(0.1)
        assert seen_loading >= 3, "the check never saw the server loading"
        with redis.Redis.from_url(loading.url) as admin:
            assert admin.dbsize() == 20_000
            assert admin.info("persistence")["loading"] == 0
    finally:
        loading.stop()
