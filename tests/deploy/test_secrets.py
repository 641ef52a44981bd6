"""Credentials that cannot go live by accident, run for real: the example .env is refused by
Valkey's entrypoint and by the services (exit 78, EX_CONFIG), the documented generators make
values both accept, no Secret is part of any rendered overlay (the dev one comes from
overlays/dev/secrets.sh, production's from the operator), and a token signed with the previous
key still opens the gateway while the key rotates (EMPIRE_TOKEN_PUBLIC_KEYS wired as compose
wires it), a gateway that holds public keys only."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.supervisor import SERVICES
from shared.runtime import tokens
from shared.runtime.valkey import EmbeddedValkey, free_port
from shared.runtime.valkey_acl import ENTRYPOINT, TEMPLATE, password_users
from tests.deploy.kustomize import render
from tests.deploy.stack import (
    ENV_EXAMPLE,
    K8S,
    MAKE_ENV,
    ROOT,
    base_env,
    by_kind,
    dev_secrets,
    dotenv,
    generated_env,
    interpolate,
    load_compose,
    secret_data,
    wait_for,
)

pytestmark = pytest.mark.deploy


def run_entrypoint(values: dict[str, str], tmp: Path) -> subprocess.CompletedProcess[str]:
    """deploy/valkey/entrypoint.sh with the environment compose gives the valkey service for
    these .env values; the server is `true` (the test is the rendering and its refusals)."""
    env = load_compose()["services"]["valkey"]["environment"]
    run_env = {
        **base_env(),
        **{k: interpolate(str(v), values) for k, v in env.items()},
        "VALKEY_ACL_TEMPLATE": str(TEMPLATE),
        "VALKEY_ACL_OUT": str(tmp / "users.acl"),
        "VALKEY_SECRETS_DIR": str(tmp / "no-secrets"),
        "VALKEY_SERVER": "true",
    }
    return subprocess.run(
        ["sh", str(ENTRYPOINT), "/etc/valkey/valkey.conf"],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_valkey_refuses_the_example_env(tmp_path: Path) -> None:
    """`cp deploy/env/.env.example .env && docker compose up` stops at Valkey: exit 78."""
    run = run_entrypoint(dotenv(ENV_EXAMPLE), tmp_path)
    assert run.returncode == 78, run
    assert "placeholder" in run.stderr
    assert not (tmp_path / "users.acl").exists()


@pytest.mark.parametrize("user", ["admin", "health", "backup", *SERVICES])
def test_valkey_refuses_each_placeholder_and_short_password(user: str, tmp_path: Path) -> None:
    good = generated_env(tmp_path / "tls")
    key = f"VALKEY_PASSWORD_{user.upper()}"
    # the example's value, a long placeholder, one character short of the minimum
    for bad in (dotenv(ENV_EXAMPLE)[key], "change-me-" + "0" * 40, "f" * 31):
        run = run_entrypoint({**good, key: bad}, tmp_path)
        assert run.returncode == 78, (user, bad, run)
        assert user in run.stderr, run.stderr
    # compose itself refuses an unset or empty one (${VAR:?...})
    with pytest.raises(KeyError):
        interpolate(str(load_compose()["services"]["valkey"]["environment"][key]), {})


def test_the_generated_env_starts_valkey_with_hashes_only(tmp_path: Path) -> None:
    values = generated_env(tmp_path / "tls")
    run = run_entrypoint(values, tmp_path)
    assert run.returncode == 0, run.stderr
    acl = (tmp_path / "users.acl").read_text()
    assert (tmp_path / "users.acl").stat().st_mode & 0o077 == 0  # owner only
    for user in password_users():
        password = values[f"VALKEY_PASSWORD_{user.upper()}"]
        assert re.fullmatch(r"[0-9a-f]{64}", password)
        assert password not in acl
    assert len(re.findall(r" #[0-9a-f]{64} ", acl)) == len(password_users())
    assert acl.splitlines()[0].startswith("user default off ")
    # every change-me of the example was replaced, nothing else changed
    example = dotenv(ENV_EXAMPLE)
    for key, value in example.items():
        if value.startswith("change-me"):
            assert re.fullmatch(r"[0-9a-f]{64}", values[key]), key
        elif key != "VALKEY_TLS_DIR":
            assert values[key] == value, key
    out = subprocess.run(["sh", str(MAKE_ENV)], capture_output=True, text=True, check=True)
    settings = [line for line in out.stdout.splitlines() if "=" in line and line[0] != "#"]
    assert settings and not [line for line in settings if "change-me" in line]


@pytest.mark.parametrize("service", ["lobby", "adjudicator"])
def test_a_service_refuses_the_example_env(service: str, tmp_path: Path) -> None:
    """The services refuse the example's placeholder password (and the lobby its placeholder
    token key) before they connect: exit 78."""
    svc = load_compose()["services"][service]
    values = dotenv(ENV_EXAMPLE)
    env = {**base_env(), **dotenv(ROOT / svc["env_file"][0])}
    env.update({k: interpolate(str(v), values) for k, v in svc["environment"].items()})
    ca = generated_env(tmp_path / "tls")  # a real CA file: the placeholder must be the reason
    env["EMPIRE_REDIS_CA_FILE"] = str(tmp_path / "tls" / "ca.crt")
    assert ca
    run = subprocess.run(
        [sys.executable, "-m", f"services.{service}"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 78, run.stderr[-2000:]
    assert "placeholder" in run.stderr
    if service == "lobby":
        assert "EMPIRE_TOKEN_PRIVATE_KEY" in run.stderr


def test_no_rendered_overlay_holds_a_secret_and_the_dev_script_makes_them() -> None:
    for overlay in ("dev", "production"):
        docs = render(K8S / "overlays" / overlay)
        assert by_kind(docs, "Secret") == {}, overlay
        assert not [d for d in docs if d["kind"] == "ConfigMap" and "ca.crt" in d.get("data", {})]
    objects = dev_secrets()
    secrets = by_kind(objects, "Secret")
    assert set(secrets) == {"empire-valkey-passwords", "empire-secrets", "empire-valkey-tls"}
    passwords = secret_data(secrets["empire-valkey-passwords"])
    assert set(passwords) == set(password_users())
    assert all(re.fullmatch(r"[0-9a-f]{64}", p) for p in passwords.values())
    assert len(set(passwords.values())) == len(passwords)
    urls = secret_data(secrets["empire-secrets"])
    assert re.fullmatch(r"[0-9a-f]{64}", urls["token-private-key"])
    assert urls["token-public-keys"] == tokens.public_key(urls["token-private-key"])
    for svc in SERVICES:
        assert urls[f"redis-url-{svc}"] == f"rediss://{svc}:{passwords[svc]}@empire-valkey:6379/0"
    # a second run makes other values (nothing is fixed in the script)
    again = secret_data(by_kind(dev_secrets(), "Secret")["empire-valkey-passwords"])
    assert again["admin"] != passwords["admin"]


def test_the_dev_certificate_verifies_for_every_name_the_clients_use(tmp_path: Path) -> None:
    objects = dev_secrets()
    tls = secret_data(by_kind(objects, "Secret")["empire-valkey-tls"])
    ca = by_kind(objects, "ConfigMap")["empire-redis-ca"]["data"]["ca.crt"]
    assert tls["ca.crt"] == ca
    (tmp_path / "ca.crt").write_text(ca)
    (tmp_path / "tls.crt").write_text(tls["tls.crt"])
    for name in ("empire-valkey", "valkey", "127.0.0.1"):
        flag = "-verify_ip" if name[0].isdigit() else "-verify_hostname"
        run = subprocess.run(
            ["openssl", "verify", "-CAfile", "ca.crt", flag, name, "tls.crt"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, (name, run.stdout, run.stderr)
    run = subprocess.run(
        ["openssl", "verify", "-CAfile", "ca.crt", "-verify_hostname", "evil.example", "tls.crt"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0


# --- rotating the token key: EMPIRE_TOKEN_PUBLIC_KEYS, wired as compose wires it -----------


def start(service: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", f"services.{service}"],
        env=env,
        cwd=ROOT,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def call(port: int, method: str, path: str, token: str | None = None, body: object = None):  # type: ignore[no-untyped-def]
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Bearer {token}"} if token else {}),
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")
    except OSError as e:  # not listening yet
        return 0, {"error": str(e)}


@pytest.fixture
def valkey() -> Iterator[EmbeddedValkey]:
    server = EmbeddedValkey(shipped=True)
    server.start()
    yield server
    server.stop()


def service_env(service: str, server: EmbeddedValkey, values: dict[str, str]) -> dict[str, str]:
    """The compose environment of a service (empire.env + its environment, interpolated with
    ``values``) pointed at the loopback Valkey (plaintext there: it has no TLS)."""
    svc = load_compose()["services"][service]
    env = {**base_env(), **dotenv(ROOT / svc["env_file"][0])}
    env.update({k: interpolate(str(v), values) for k, v in svc["environment"].items()})
    env.update(
        {
            "EMPIRE_REDIS_URL": server.url_for(service),
            "EMPIRE_REDIS_PLAINTEXT": "1",
            "EMPIRE_HOST": "127.0.0.1",
            "EMPIRE_METRICS_PORT": str(free_port()),
        }
    )
    return env


def test_a_token_signed_with_the_previous_key_verifies_while_the_key_rotates(
    valkey: EmbeddedValkey, tmp_path: Path
) -> None:
    """Rotation (docs/operations.md): the gateway accepts the new public key and the old one,
    the lobby still signs with the old private key. The lobby's token opens the gateway; one
    signed with a key nobody configured does not; once the old public key is removed, the old
    token is refused. The gateway is never given a private key."""
    old, new = tokens.new_private_key(), tokens.new_private_key()
    old_pub, new_pub = tokens.public_key(old), tokens.public_key(new)
    values = {**dotenv(ENV_EXAMPLE), "EMPIRE_TOKEN_PRIVATE_KEY": old,
              "EMPIRE_TOKEN_PUBLIC_KEYS": old_pub}
    lobby = start("lobby", service_env("lobby", valkey, values), tmp_path / "lobby.log")
    port = free_port()
    rotating = {**values, "EMPIRE_TOKEN_PRIVATE_KEY": new,
                "EMPIRE_TOKEN_PUBLIC_KEYS": f"{new_pub},{old_pub}"}
    gw_env = service_env("gateway", valkey, rotating) | {"EMPIRE_PORT": str(port)}
    assert gw_env["EMPIRE_TOKEN_PUBLIC_KEYS"] == f"{new_pub},{old_pub}"
    assert "EMPIRE_TOKEN_PRIVATE_KEY" not in gw_env and old not in gw_env.values()
    gateway = start("gateway", gw_env, tmp_path / "gateway.log")
    procs = [lobby, gateway]
    try:
        wait_for(lambda: call(port, "GET", "/readyz")[0] == 200, 90, "the gateway")
        status, player = 0, {}
        deadline = time.monotonic() + 60
        while status != 200 and time.monotonic() < deadline:  # until the lobby answers
            status, player = call(port, "POST", "/api/players", body={"name": "rotator"})
            time.sleep(0.3)
        assert status == 200, player
        token = player["token"]
        ident = tokens.verify(tokens.parse_public_keys(old_pub), token, int(time.time() * 1000))
        assert ident.player_id == player["player_id"]
        status, body = call(port, "GET", "/api/tables", token)
        assert status == 200, body
        forged = tokens.issue(tokens.new_private_key(), player["player_id"], "rotator", 2**41,
                              player["session_id"])
        status, body = call(port, "GET", "/api/tables", forged)
        assert (status, body.get("code")) == (401, "auth/invalid_token")
        # the old public key removed: the old token no longer opens the gateway
        gateway.terminate()
        gateway.wait(30)
        done = {**values, "EMPIRE_TOKEN_PRIVATE_KEY": new, "EMPIRE_TOKEN_PUBLIC_KEYS": new_pub}
        gateway = start(
            "gateway",
            service_env("gateway", valkey, done) | {"EMPIRE_PORT": str(port)},
            tmp_path / "gateway2.log",
        )
        procs.append(gateway)
        wait_for(lambda: call(port, "GET", "/readyz")[0] == 200, 90, "the gateway, restarted")
        status, body = call(port, "GET", "/api/tables", token)
        assert (status, body.get("code")) == (401, "auth/invalid_token")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
