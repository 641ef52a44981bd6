"""The connection budget (docs/operations.md "Connection budget") agrees with what is deployed:
the pool cap the settings give every process (EMPIRE_REDIS_MAX_CONNECTIONS in compose's
empire.env, the ConfigMap and the code's default), the replicas each Deployment may reach
(its HPA's ceiling or its fixed replicas, plus the rollout's surge) in the base and in
production, and valkey.conf's maxclients, which must leave 2x headroom over the total."""

from __future__ import annotations

import re

import pytest

from shared.runtime.settings import Settings
from tests.deploy.kustomize import parse_env_file, render
from tests.deploy.stack import K8S, ROOT, Doc, by_kind

pytestmark = pytest.mark.deploy

DOCS = ROOT / "docs" / "operations.md"
OPERATORS = "admin, health, backup, operators"


def tables() -> list[list[list[str]]]:
    """The section's Markdown tables (rows of cells, header and rule left out)."""
    text = DOCS.read_text()
    section = text[text.index("### Connection budget") :]
    section = section[: section.index("\n### ", 5)]
    out: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([c.strip().strip("*") for c in line.strip().strip("|").split("|")])
        elif rows:
            out.append(rows[2:])
            rows = []
    return out


def ceilings(overlay_dir: str) -> dict[str, tuple[int, int]]:
    """service -> (replicas at most, surge) from a rendered kustomization."""
    docs = render(K8S / overlay_dir)
    hpas = {
        h["spec"]["scaleTargetRef"]["name"]: h
        for h in by_kind(docs, "HorizontalPodAutoscaler").values()
    }
    out: dict[str, tuple[int, int]] = {}
    for name, d in by_kind(docs, "Deployment").items():
        spec: Doc = d["spec"]
        most = hpas[name]["spec"]["maxReplicas"] if name in hpas else spec["replicas"]
        surge = spec["strategy"]["rollingUpdate"]["maxSurge"]
        assert isinstance(surge, int), (name, surge)  # a percentage would need rounding up
        out[name.removeprefix("empire-")] = (most, surge)
    return out


def replicas_cell(cell: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+) \(\+(\d+)(?: surge)?\)", cell)
    assert m, cell
    return int(m[1]), int(m[2])


def pool_cap() -> int:
    compose = parse_env_file((ROOT / "deploy" / "env" / "empire.env").read_text())
    k8s = parse_env_file((K8S / "base" / "config.env").read_text())
    default = Settings.model_fields["redis_max_connections"].default
    assert compose["EMPIRE_REDIS_MAX_CONNECTIONS"] == k8s["EMPIRE_REDIS_MAX_CONNECTIONS"]
    assert int(k8s["EMPIRE_REDIS_MAX_CONNECTIONS"]) == default
    return int(default)


def maxclients() -> int:
    for line in (ROOT / "deploy" / "valkey" / "valkey.conf").read_text().splitlines():
        if line.startswith("maxclients "):
            return int(line.split()[1])
    raise AssertionError("valkey.conf sets no maxclients")


def test_the_one_valkey_budget_matches_the_manifests_settings_and_maxclients() -> None:
    one, _production = tables()
    cap = pool_cap()
    base = ceilings("base")
    total = 0
    for row in one:
        name, idle, _peak, per_replica, most, budget = row
        if name == "total":
            assert int(budget) == total, (budget, total)
            continue
        if name == OPERATORS:
            total += int(budget)
            continue
        assert int(per_replica) == cap + int(idle), row  # the pool plus the stream readers
        assert replicas_cell(most) == base[name], (row, base[name])
        assert int(budget) == int(per_replica) * sum(base[name]), row
        total += int(budget)
    assert {r[0] for r in one} - {OPERATORS, "total"} == set(base)
    assert 2 * total <= maxclients(), (total, maxclients())  # the 2x headroom the docs promise


def test_the_production_budget_matches_its_hpa_ceilings() -> None:
    _one, production = tables()
    cap = pool_cap()
    ceiling = ceilings("overlays/production")
    total = 0
    for name, most, pool in production:
        if name == "total":
            assert int(pool) == total
            continue
        assert replicas_cell(most) == ceiling[name], (name, most, ceiling[name])
        assert int(pool) == cap * sum(ceiling[name]), (name, pool)
        total += int(pool)
    assert {r[0] for r in production} - {"total"} == set(ceiling)
    assert ceiling["adjudicator"][0] == 24  # the figure the docs give in prose
