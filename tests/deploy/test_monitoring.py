"""deploy/monitoring: the Grafana dashboard and the Prometheus alert rules refer only to
metrics the services register, and the rules parse (``promtool check rules``, when Debian's
``prometheus`` package provides promtool: `apt-get install prometheus`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

import services.gateway.edge.http_metrics
import services.gateway.edge.memory_guard
import services.gateway.edge.metrics  # noqa: F401  (registers its gauge)
from shared.runtime import bus
from shared.runtime.metrics import REGISTRY

pytestmark = pytest.mark.deploy
HERE = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"
DASHBOARD = HERE / "grafana-dashboard.json"
RULES = HERE / "alert-rules.yml"
_NAME = re.compile(r"\b(?:empire|faststream)_[a-z_]+\b")
_SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_sum", "_count"),
             "gauge": ("",), "summary": ("_sum", "_count")}


def exported() -> set[str]:
    """Every series name the process registry can export (faststream's metrics included:
    the middlewares every broker gets register them)."""
    bus.middlewares()
    names: set[str] = set()
    for family in REGISTRY.collect():
        for suffix in _SUFFIXES.get(family.type, ("",)):
            names.add(family.name + suffix)
    return names


def expressions() -> list[tuple[str, str]]:
    dash = json.loads(DASHBOARD.read_text())
    out = [(p["title"], t["expr"]) for p in dash["panels"] for t in p["targets"]]
    for group in yaml.safe_load(RULES.read_text())["groups"]:
        out += [(r["alert"], r["expr"]) for r in group["rules"]]
    return out


def test_the_dashboard_is_grafana_json_with_queries() -> None:
    dash: dict[str, Any] = json.loads(DASHBOARD.read_text())
    assert dash["uid"] and dash["title"] and dash["panels"]
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    for p in dash["panels"]:
        assert p["targets"] and all(t["expr"].strip() for t in p["targets"]), p["title"]


def test_every_query_names_real_metrics() -> None:
    known = exported()
    assert "empire_http_requests_total" in known
    assert "empire_stream_batch_seconds_bucket" in known
    for where, expr in expressions():
        names = _NAME.findall(expr)
        assert names, (where, expr)
        unknown = [n for n in names if n not in known]
        assert not unknown, (where, unknown)


def test_alert_rules_have_severity_and_summary() -> None:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    alerts = [r for g in groups for r in g["rules"]]
    assert alerts
    for r in alerts:
        assert r["labels"]["severity"] in {"critical", "warning", "info"}, r["alert"]
        assert r["annotations"]["summary"], r["alert"]


def test_promtool_accepts_the_rules() -> None:
    unpacked = Path(__file__).resolve().parents[2] / ".tools" / "promtool" / "promtool"
    promtool = shutil.which("promtool") or (str(unpacked) if unpacked.exists() else None)
    if promtool is None:
        pytest.skip("promtool is not installed (make tools-promtool: Debian's prometheus "
                    "package, or apt-get install prometheus)")
    res = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
