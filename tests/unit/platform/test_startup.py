"""Configurations that must never go live are refused at start (shared/runtime/startup.py):
placeholder, development or short token keys and Valkey passwords, and plaintext to Valkey
unless allowed for development. Messages name the setting, never the secret."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shared.runtime.settings import DEV_SECRET, Settings
from shared.runtime.startup import problems

pytestmark = pytest.mark.unit

GOOD = "9f" * 32
TLS_URL = f"rediss://lobby:{'ab' * 32}@valkey:6379/0"


def settings(**kw: object) -> Settings:
    base: dict[str, object] = {"redis_url": TLS_URL, "secret": GOOD}
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


def test_a_sound_configuration_passes() -> None:
    assert problems(settings(), token_key=True) == []


@pytest.mark.parametrize("secret", [DEV_SECRET, "change-me-to-64-random-hex-chars", "tiny1",
                                    "x" * 31, "CHANGEME" + "a" * 40])
def test_weak_token_keys_are_refused(secret: str) -> None:
    found = problems(settings(secret=secret), token_key=True)
    assert len(found) == 1 and found[0].startswith("EMPIRE_SECRET ")
    assert secret not in found[0]
    assert problems(settings(secret=secret, dev=True), token_key=True) == []
    assert problems(settings(secret=secret), token_key=False) == []  # not its key


def test_a_weak_previous_key_is_refused_too() -> None:
    found = problems(settings(secret_previous="change-me"), token_key=True)
    assert [f.split(" ")[0] for f in found] == ["EMPIRE_SECRET_PREVIOUS"]


@pytest.mark.parametrize("password", ["change-me-lobby", "hunter2", "x" * 31])
def test_weak_valkey_passwords_are_refused(password: str) -> None:
    found = problems(settings(redis_url=f"rediss://lobby:{password}@valkey:6379/0"), False)
    assert len(found) == 1 and "Valkey password" in found[0] and password not in found[0]


def test_plaintext_is_refused_unless_allowed() -> None:
    url = f"redis://lobby:{'ab' * 32}@valkey:6379/0"
    assert "plaintext" in problems(settings(redis_url=url), False)[0]
    assert problems(settings(redis_url=url, redis_plaintext=True), False) == []


def test_an_unreadable_ca_bundle_is_refused(tmp_path: object) -> None:
    found = problems(settings(redis_ca_file="/nonexistent/ca.pem"), False)
    assert found and "EMPIRE_REDIS_CA_FILE" in found[0]


@pytest.mark.parametrize("service", ["escrow", "lobby"])
def test_a_service_process_exits_78_before_connecting(service: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMPIRE_", "REDIS_"))}
    env.update({"EMPIRE_REDIS_URL": "redis://127.0.0.1:1/0", "EMPIRE_SECRET": "change-me",
                "EMPIRE_ENV_FILE": "/nonexistent"})
    run = subprocess.run([sys.executable, "-m", f"services.{service}"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 78
    assert "plaintext" in run.stderr
    assert ("EMPIRE_SECRET" in run.stderr) == (service == "lobby")
    assert "change-me" not in run.stderr.replace("EMPIRE_SECRET", "")


def test_make_run_gives_the_token_key_to_the_lobby_and_gateway_only() -> None:
    """The token-signing key reached all seven processes, the bot runner included."""
    from services.supervisor import SERVICES, Proc, Supervisor

    sup = Supervisor(redis_url="redis://127.0.0.1:6379/0", secret=GOOD, secret_previous="7e" * 32)
    os.environ["EMPIRE_SECRET"] = "leaked-from-the-shell"
    try:
        for svc in SERVICES:
            env = sup.env(Proc(svc, 0))
            holder = svc in ("lobby", "gateway")
            assert ("EMPIRE_SECRET" in env) == holder, svc
            assert ("EMPIRE_SECRET_PREVIOUS" in env) == holder, svc
            if holder:
                assert env["EMPIRE_SECRET"] == GOOD
    finally:
        del os.environ["EMPIRE_SECRET"]
