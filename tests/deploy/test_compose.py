"""docker-compose.yml against the Compose Specification JSON Schema (vendored, see
schemas/README.md), and its configuration against the code: every service with replicas and a
health check, Valkey with AOF, the gateway published, the environment documented and in step
with the settings, the ACL file and the passwords."""

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
ACL = DEPLOY / "valkey" / "users.acl"
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
    assert set(services) == {"valkey", *SERVICES}
    for name, svc in services.items():
        assert isinstance(svc["deploy"]["replicas"], int) and svc["deploy"]["replicas"] >= 1
        check = svc["healthcheck"]
        assert check["test"][0] == "CMD" and len(check["test"]) > 1, name
        assert svc["restart"] == "unless-stopped", name
        if name != "valkey":
            assert svc["depends_on"]["valkey"]["condition"] == "service_healthy"
            assert svc["image"] == "${EMPIRE_IMAGE:-empire-hall:latest}"
            assert svc["build"]["dockerfile"] == "deploy/docker/Dockerfile"
            assert svc["read_only"] is True and svc["cap_drop"] == ["ALL"]
    # the stateless hot path runs more than one replica
    for name in ("adjudicator", "escrow", "dealer", "lobby"):
        assert services[name]["deploy"]["replicas"] >= 2, name


def test_only_the_gateway_is_published() -> None:
    services = load_compose()["services"]
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published == {"gateway"}
    assert services["gateway"]["ports"] == ["${EMPIRE_GATEWAY_PORT:-8000}:8000"]
    assert services["valkey"]["expose"] == ["6379"]


def test_valkey_persists_with_aof_and_loads_the_acl_file() -> None:
    valkey = load_compose()["services"]["valkey"]
    assert valkey["command"] == ["valkey-server", "/etc/valkey/valkey.conf"]
    conf = dict(
        line.split(None, 1)
        for line in VALKEY_CONF.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    assert conf["appendonly"] == "yes"
    assert conf["appendfsync"] in {"always", "everysec"}
    assert conf["maxmemory-policy"] == "noeviction"  # streams must never be evicted
    mounts = {
        v.split(":")[1]: v.split(":")[0] for v in (interpolate(v, {}) for v in valkey["volumes"])
    }
    assert mounts[conf["aclfile"]] == "./deploy/valkey/users.acl"
    assert mounts["/etc/valkey/valkey.conf"] == "./deploy/valkey/valkey.conf"
    assert mounts[conf["dir"]] == "valkey-data"
    assert "valkey-data" in load_compose()["volumes"]


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
        k for svc in load_compose()["services"].values() for k in (svc.get("environment") or {})
    }
    assert compose_env <= fields
    assert {k for k in dotenv(ENV_EXAMPLE) if k.startswith("EMPIRE_")} <= fields | {
        "EMPIRE_IMAGE",
        "EMPIRE_GATEWAY_PORT",
    }


def acl_users() -> dict[str, str]:
    """user -> its first '>password' (the ACL file has no comments: Valkey refuses them)."""
    users = {}
    for line in ACL.read_text().splitlines():
        assert line.startswith("user "), f"not an ACL rule: {line!r}"
        name = line.split()[1]
        pw = re.search(r"\s>(\S+)", line)
        users[name] = pw.group(1) if pw else ""
    return users


def test_each_service_connects_as_its_own_acl_user_with_the_example_password() -> None:
    users, example = acl_users(), dotenv(ENV_EXAMPLE)
    assert set(SERVICES) <= set(users)
    services = load_compose()["services"]
    for svc in SERVICES:
        url = interpolate(services[svc]["environment"]["EMPIRE_REDIS_URL"], example)
        assert url == f"redis://{svc}:{users[svc]}@valkey:6379/0"
    assert "default on nopass resetkeys resetchannels -@all +ping" in ACL.read_text()


def test_only_the_lobby_and_the_gateway_hold_the_token_signing_key() -> None:
    services = load_compose()["services"]
    holders = {
        name for name, svc in services.items() if "EMPIRE_SECRET" in (svc.get("environment") or {})
    }
    assert holders == {"lobby", "gateway"}
    assert "EMPIRE_SECRET" not in dotenv(SERVICE_ENV)
