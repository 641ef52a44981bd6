"""Configurations that must never go live are refused at start (shared/runtime/startup.py):
placeholder, development or short token keys and Valkey passwords, and plaintext to Valkey
unless allowed for development. Messages name the setting, never the secret."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shared.runtime import tokens
from shared.runtime.settings import DEV_TOKEN_PRIVATE_KEY, Settings
from shared.runtime.startup import problems

pytestmark = pytest.mark.unit

GOOD = tokens.new_private_key()
GOOD_PUBLIC = tokens.public_key(GOOD)
DEV_PUBLIC = tokens.public_key(DEV_TOKEN_PRIVATE_KEY)
TLS_URL = f"rediss://lobby:{'ab' * 32}@valkey:6379/0"


def settings(**kw: object) -> Settings:
    base: dict[str, object] = {"redis_url": TLS_URL}
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


def test_a_sound_configuration_passes() -> None:
    assert problems(settings(token_private_key=GOOD), token_key=True, signs=True) == []
    assert problems(settings(token_public_keys=GOOD_PUBLIC), token_key=True) == []
    assert problems(settings(), token_key=False) == []  # not a token service


@pytest.mark.parametrize(("kw", "signs", "names"), [
    ({}, True, "EMPIRE_TOKEN_PRIVATE_KEY is not set"),
    ({}, False, "EMPIRE_TOKEN_PUBLIC_KEYS is not set"),
    ({"token_private_key": DEV_TOKEN_PRIVATE_KEY}, True, "development key"),
    ({"token_public_keys": f"{GOOD_PUBLIC},{DEV_PUBLIC}"}, False, "development key"),
    ({"token_public_keys": "change-me"}, False, "placeholder"),
    ({"token_public_keys": "ab" * 31}, False, "64 hex digits"),
    ({"token_private_key": "ab" * 31}, True, "64 hex digits"),
    # a verifier (the gateway) holding the private key could mint tokens: refused
    ({"token_private_key": GOOD, "token_public_keys": GOOD_PUBLIC}, False,
     "only the lobby holds it"),
])
def test_missing_weak_or_misplaced_token_keys_are_refused(kw: dict[str, str], signs: bool,
                                                          names: str) -> None:
    found = problems(settings(**kw), token_key=True, signs=signs)
    assert len(found) == 1 and names in found[0], found
    assert all(v not in found[0] for v in kw.values())
    assert problems(settings(**kw), token_key=False) == []  # not its key


def test_development_accepts_the_development_key() -> None:
    assert problems(settings(dev=True), token_key=True, signs=True) == []
    assert problems(settings(dev=True), token_key=True) == []
    assert settings(dev=True).signing_key == DEV_TOKEN_PRIVATE_KEY
    assert settings().signing_key == "" and settings().token_verify_keys == {}


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
    env.update({"EMPIRE_REDIS_URL": "redis://127.0.0.1:1/0",
                "EMPIRE_TOKEN_PRIVATE_KEY": "change-me", "EMPIRE_ENV_FILE": "/nonexistent"})
    run = subprocess.run([sys.executable, "-m", f"services.{service}"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 78
    assert "plaintext" in run.stderr
    assert ("EMPIRE_TOKEN_PRIVATE_KEY" in run.stderr) == (service == "lobby")
    assert "change-me" not in run.stderr


def test_make_run_gives_the_private_key_to_the_lobby_only() -> None:
    """The signing key reaches the lobby alone; the gateway gets the public keys, the others
    nothing (not even what the shell exported)."""
    from services.supervisor import SERVICES, Proc, Supervisor

    other = tokens.public_key(tokens.new_private_key())
    sup = Supervisor(redis_url="redis://127.0.0.1:6379/0", token_private_key=GOOD,
                     token_public_keys=other)
    os.environ["EMPIRE_TOKEN_PRIVATE_KEY"] = "leaked-from-the-shell"
    try:
        for svc in SERVICES:
            env = sup.env(Proc(svc, 0))
            assert bool(env["EMPIRE_TOKEN_PRIVATE_KEY"]) == (svc == "lobby"), svc
            assert ("EMPIRE_TOKEN_PUBLIC_KEYS" in env) == (svc in ("lobby", "gateway")), svc
            assert "EMPIRE_SECRET" not in env, svc
            if svc == "lobby":
                assert env["EMPIRE_TOKEN_PRIVATE_KEY"] == GOOD
            if svc == "gateway":
                assert env["EMPIRE_TOKEN_PUBLIC_KEYS"] == f"{GOOD_PUBLIC},{other}"
                assert GOOD not in " ".join(env.values())
    finally:
        del os.environ["EMPIRE_TOKEN_PRIVATE_KEY"]


def test_a_compose_env_file_gives_make_runs_gateway_no_private_key(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make run`` in a checkout that also holds compose's ./.env (make-env.sh): the settings
    read ./.env, but the gateway's explicit empty key outweighs the file's."""
    from pathlib import Path

    from services.supervisor import Proc, Supervisor

    leaked = tokens.new_private_key()
    Path(str(tmp_path), ".env").write_text(f"EMPIRE_TOKEN_PRIVATE_KEY={leaked}\n")
    monkeypatch.chdir(str(tmp_path))
    monkeypatch.delenv("EMPIRE_ENV_FILE", raising=False)
    sup = Supervisor(redis_url="redis://127.0.0.1:6379/0", token_private_key=GOOD)
    for svc, want in (("gateway", ""), ("escrow", ""), ("lobby", GOOD)):
        env = {k: v for k, v in sup.env(Proc(svc, 0)).items() if k.startswith("EMPIRE_")}
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert Settings().token_private_key == want, svc
        assert Settings(_env_file=None).token_private_key == want, svc
