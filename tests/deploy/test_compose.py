"""docker-compose.yml against the Compose Specification JSON Schema (vendored, see
schemas/README.md), and its configuration against the code: every service with replicas and a
health check, Valkey through its entrypoint (ACL template, passwords from .env, TLS, uid 999,
AOF), every service on rediss:// with the CA bundle, the gateway published, the environment
documented and in step with the settings, the passwords and token keys where they belong, the
backup profile."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from functools import cache
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from services.supervisor import SERVICES
from shared.runtime.settings import Settings
from shared.runtime.valkey_acl import password_users, template_rules
from tests.deploy.stack import (
    DEPLOY,
    ENV_EXAMPLE,
    compose_variables,
    dotenv,
    interpolate,
    load_compose,
)

pytestmark = pytest.mark.deploy

SCHEMAS = DEPLOY.parent / "tests" / "deploy" / "schemas"
COMPOSE_SPEC_SHA256 = "d549057ebc2925f39f62799eab0db7b9e2c18b35b6c00595199116da3ed10e64"
SERVICE_ENV = DEPLOY / "env" / "empire.env"
ACL_TEMPLATE = DEPLOY / "valkey" / "users.acl.template"
VALKEY_CONF = DEPLOY / "valkey" / "valkey.conf"


@cache
def compose_validator() -> Any:
    raw = (SCHEMAS / "compose-spec.json").read_bytes()
    schema = json.loads(raw)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return validator


def errors(doc: Any) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in compose_validator().iter_errors(doc)]


def test_vendored_schema_is_the_published_one() -> None:
    digest = hashlib.sha256((SCHEMAS / "compose-spec.json").read_bytes()).hexdigest()
    assert digest == COMPOSE_SPEC_SHA256
    assert (
        json.loads((SCHEMAS / "compose-spec.json").read_text())["title"] == "Compose Specification"
    )


def test_compose_file_is_valid_against_the_compose_specification() -> None:
    assert errors(load_compose()) == []


@pytest.mark.parametrize("mistake", ["replicas_list", "unknown_key", "interval_list", "port_typo"])
def test_the_schema_rejects_mistakes(mistake: str) -> None:
    doc = copy.deepcopy(load_compose())
    gw = doc["services"]["gateway"]
    if mistake == "replicas_list":
        gw["deploy"]["replicas"] = [2]
    elif mistake == "unknown_key":
        gw["healthchek"] = gw.pop("healthcheck")
    elif mistake == "interval_list":
        gw["healthcheck"]["interval"] = ["10s"]
    else:
        gw["ports"] = [{"tagret": 8000, "published": "8000"}]
    assert errors(doc) != []


def test_every_service_runs_with_replicas_a_health_check_and_restarts() -> None:
    services = load_compose()["services"]
    assert set(services) == {"valkey", "backup", "proxy", *SERVICES}
    for name, svc in services.items():
        assert svc["read_only"] is True and svc["cap_drop"] == ["ALL"], name
        assert svc["security_opt"] == ["no-new-privileges:true"], name
        if name == "backup":
            continue  # a one-shot job (profile backup), checked below
        assert isinstance(svc["deploy"]["replicas"], int) and svc["deploy"]["replicas"] >= 1
        check = svc["healthcheck"]
        assert check["test"][0] == "CMD" and len(check["test"]) > 1, name
        assert svc["restart"] == "unless-stopped", name
        if name == "proxy":
            assert svc["image"].startswith("nginx:1.") and "latest" not in svc["image"]
        elif name != "valkey":
            assert svc["depends_on"]["valkey"]["condition"] == "service_healthy"
            assert svc["image"] == "${EMPIRE_IMAGE:-empire-hall:latest}"
            assert svc["build"]["dockerfile"] == "deploy/docker/Dockerfile"
    # the stateless hot path runs more than one replica
    for name in ("adjudicator", "escrow", "dealer", "lobby"):
        assert services[name]["deploy"]["replicas"] >= 2, name
    # stream services: healthy means ready (Redis, subscribers) and live (no wedged consumer)
    for name in set(SERVICES) - {"gateway"}:
        assert services[name]["healthcheck"]["test"][1:] == [
            "python",
            "/app/healthcheck.py",
            "/readyz,/livez",
        ]
    assert services["gateway"]["healthcheck"]["test"][1:] == [
        "python",
        "/app/healthcheck.py",
        "/readyz",
        "8000",
    ]


def test_the_gateway_drains_within_its_stop_grace_period() -> None:
    """SIGTERM: the gateway spreads its WebSocket closes over EMPIRE_DRAIN_S, then has at most
    EMPIRE_SHUTDOWN_DEADLINE_S to stop; compose must wait for both before it kills."""
    env = dotenv(SERVICE_ENV)
    grace = load_compose()["services"]["gateway"]["stop_grace_period"]
    assert grace.endswith("s")
    assert int(grace[:-1]) > float(env["EMPIRE_DRAIN_S"]) + float(env["EMPIRE_SHUTDOWN_DEADLINE_S"])
    assert float(env["EMPIRE_DRAIN_S"]) == Settings.model_fields["drain_s"].default


def test_only_the_proxy_is_published() -> None:
    services = load_compose()["services"]
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published == {"proxy"}
    assert services["proxy"]["ports"] == ["${EMPIRE_GATEWAY_PORT:-8000}:8080"]
    assert services["proxy"]["volumes"] == ["./deploy/proxy/nginx.conf:/etc/nginx/empire.conf:ro"]
    assert services["proxy"]["depends_on"] == {"gateway": {"condition": "service_healthy"}}
    assert services["gateway"]["expose"] == ["8000"]
    assert services["valkey"]["expose"] == ["6379"]


def conf() -> dict[str, str]:
    return dict(
        line.split(None, 1)
        for line in VALKEY_CONF.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )


def mounts_of(svc: dict[str, Any]) -> dict[str, str]:
    """container path -> source of a service's volumes (with the default .env values)."""
    out = {}
    for volume in svc.get("volumes", []):
        source, target = interpolate(volume, {}).split(":")[:2]
        out[target] = source
    return out


def test_valkey_starts_through_the_entrypoint_as_uid_999_with_tls_and_aof() -> None:
    valkey = load_compose()["services"]["valkey"]
    c = conf()
    assert valkey["user"] == "999:999"
    assert valkey["entrypoint"] == ["sh", "/etc/valkey/entrypoint.sh"]
    assert valkey["command"] == ["/etc/valkey/valkey.conf"]
    assert c["appendonly"] == "yes"
    assert c["appendfsync"] in {"always", "everysec"}
    assert c["maxmemory-policy"] == "noeviction"  # streams must never be evicted
    assert (c["port"], c["tls-port"]) == ("0", "6379")  # TLS only
    mounts = mounts_of(valkey)
    assert mounts["/etc/valkey/valkey.conf"] == "./deploy/valkey/valkey.conf"
    assert mounts["/etc/valkey/users.acl.template"] == "./deploy/valkey/users.acl.template"
    assert mounts["/etc/valkey/entrypoint.sh"] == "./deploy/valkey/entrypoint.sh"
    assert mounts["/etc/valkey/healthcheck.sh"] == "./deploy/valkey/healthcheck.sh"
    assert all(v.endswith(":ro") for v in valkey["volumes"] if not v.startswith("valkey-data"))
    # the certificate, key and CA where valkey.conf looks for them
    assert mounts["/tls"] == "./deploy/env/tls"
    for key in ("tls-cert-file", "tls-key-file", "tls-ca-cert-file"):
        assert c[key].startswith("/tls/"), key
    assert mounts[c["dir"]] == "valkey-data" and "valkey-data" in load_compose()["volumes"]
    # the rendered ACL (password hashes) lives in a tmpfs writable by uid 999 only
    env = valkey["environment"]
    assert c["aclfile"] == env["VALKEY_ACL_OUT"] == "/run/valkey/users.acl"
    assert "/run/valkey:uid=999,gid=999,mode=0700" in valkey["tmpfs"]
    assert env["VALKEY_ACL_TEMPLATE"] == "/etc/valkey/users.acl.template"
    # the health check signs in as the health user over TLS
    assert valkey["healthcheck"]["test"] == ["CMD", "sh", "/etc/valkey/healthcheck.sh"]
    assert env["VALKEY_TLS"] == "1" and env["VALKEY_CA_FILE"] == "/tls/ca.crt"
    assert seconds_of(valkey["healthcheck"]["start_period"]) >= 60  # a large AOF loads first


def seconds_of(duration: str) -> float:
    assert duration.endswith("s"), duration
    return float(duration[:-1])


def test_valkey_gets_a_password_for_every_user_of_the_acl_template() -> None:
    env = load_compose()["services"]["valkey"]["environment"]
    users = password_users(ACL_TEMPLATE.read_text())
    assert {"admin", "health", "backup", *SERVICES} <= set(users)
    for user in users:
        assert env[f"VALKEY_PASSWORD_{user.upper()}"] == (
            f"${{VALKEY_PASSWORD_{user.upper()}:?see deploy/env/.env.example}}"
        )


def test_every_service_reaches_valkey_over_tls_with_the_ca_bundle() -> None:
    services = load_compose()["services"]
    shared_env = dotenv(SERVICE_ENV)
    assert shared_env["EMPIRE_REDIS_CA_FILE"] == "/tls/ca.crt"
    assert "EMPIRE_REDIS_PLAINTEXT" not in shared_env  # plaintext is never allowed here
    for svc in SERVICES:
        spec = services[svc]
        assert spec["env_file"] == ["deploy/env/empire.env"]
        assert spec["environment"]["EMPIRE_REDIS_URL"].startswith("rediss://"), svc
        assert mounts_of(spec)["/tls/ca.crt"] == "./deploy/env/tls/ca.crt", svc
        assert "EMPIRE_REDIS_PLAINTEXT" not in spec["environment"]


def test_the_backup_profile_takes_an_rdb_as_the_backup_user() -> None:
    backup = load_compose()["services"]["backup"]
    assert backup["profiles"] == ["backup"]
    assert backup["user"] == "999:999"
    assert backup["entrypoint"] == ["sh", "/usr/local/bin/valkey-backup.sh"]
    mounts = mounts_of(backup)
    assert mounts["/usr/local/bin/valkey-backup.sh"] == "./deploy/backup/valkey-backup.sh"
    env = backup["environment"]
    # the image's /data is owned by uid 999: a fresh named volume mounted there is writable
    assert mounts[env["BACKUP_DIR"]] == "valkey-backups" and env["BACKUP_DIR"] == "/data"
    assert "valkey-backups" in load_compose()["volumes"]
    assert env["VALKEY_TLS"] == "1"
    assert env["VALKEY_HOST"] == "valkey"
    # only the backup user's password: it can stream a snapshot and read no key
    assert {k for k in env if k.startswith("VALKEY_PASSWORD_")} == {"VALKEY_PASSWORD_BACKUP"}
    assert backup["depends_on"]["valkey"]["condition"] == "service_healthy"


def test_every_interpolated_variable_is_in_the_env_example() -> None:
    example = dotenv(ENV_EXAMPLE)
    missing = compose_variables(load_compose()) - set(example)
    assert missing == set()
    # and every required one (${VAR:?...}) resolves with the example's values
    text = json.dumps(load_compose())
    interpolate(text, example)


def test_env_files_name_only_real_settings_and_document_all_of_them() -> None:
    fields = {f"EMPIRE_{name.upper()}" for name in Settings.model_fields}
    documented = set(re.findall(r"^#?\s*(EMPIRE_[A-Z_]+)=", SERVICE_ENV.read_text(), re.M))
    assert documented - fields == set(), "unknown settings in empire.env"
    assert fields - documented == set(), "settings missing from deploy/env/empire.env"
    for key in dotenv(SERVICE_ENV):
        assert key in fields, key
    compose_env = {
        k
        for name, svc in load_compose()["services"].items()
        if name in SERVICES
        for k in (svc.get("environment") or {})
    }
    assert compose_env <= fields
    assert {k for k in dotenv(ENV_EXAMPLE) if k.startswith("EMPIRE_")} <= fields | {
        "EMPIRE_IMAGE",
        "EMPIRE_GATEWAY_PORT",
    }


def test_each_service_connects_as_its_own_acl_user() -> None:
    users, example = template_rules(ACL_TEMPLATE.read_text()), dotenv(ENV_EXAMPLE)
    assert set(SERVICES) <= set(users)
    services = load_compose()["services"]
    for svc in SERVICES:
        url = interpolate(services[svc]["environment"]["EMPIRE_REDIS_URL"], example)
        assert url == f"rediss://{svc}:{example[f'VALKEY_PASSWORD_{svc.upper()}']}@valkey:6379/0"
    # the default user is off (its permissions only serve the AOF replay, valkey-io/valkey#3983)
    assert ACL_TEMPLATE.read_text().splitlines()[0].startswith("user default off ")


def test_only_the_lobby_holds_the_token_private_key() -> None:
    """The lobby signs player tokens; the gateway (and the lobby) verify them with public keys
    only: no other service is given either, and nothing of it is in the shared empire.env."""
    services = load_compose()["services"]
    for key, want in (("EMPIRE_TOKEN_PRIVATE_KEY", {"lobby"}),
                      ("EMPIRE_TOKEN_PUBLIC_KEYS", {"lobby", "gateway"}),
                      ("EMPIRE_SECRET", set()), ("EMPIRE_SECRET_PREVIOUS", set())):
        holders = {name for name, svc in services.items() if key in (svc.get("environment") or {})}
        assert holders == want, key
        assert key not in dotenv(SERVICE_ENV)
