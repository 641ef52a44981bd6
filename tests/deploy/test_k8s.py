"""deploy/k8s: every manifest and both rendered overlays validated against the Kubernetes
schemas (kubernetes-validate, offline, strict, a pinned Kubernetes version), and the manifests
checked against the code: a Deployment per service with the supervisor's entry point, probes on
the ports the services serve, resource requests, HPAs for the stateless services, the gateway's
Service and Ingress, every config/secret reference resolvable, the Valkey copies in step."""

from __future__ import annotations

import copy
import shutil
import subprocess
from functools import cache
from pathlib import Path

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml  # type: ignore[import-untyped]

from services.supervisor import SERVICES
from tests.deploy.kustomize import containers, load_docs, pod_spec
from tests.deploy.kustomize import render as _render
from tests.deploy.stack import DEPLOY, K8S, Doc, by_kind, secret_data

pytestmark = pytest.mark.deploy

K8S_VERSION = "1.31.0"  # the oldest Kubernetes these manifests promise to run on
OVERLAYS = ["dev", "production"]
STATELESS = {"gateway", "lobby", "adjudicator", "escrow", "dealer"}
NOT_RESOURCES = {"kustomization.yaml"}


def manifest_files() -> list[Path]:
    """Every YAML file that holds whole resources (not kustomizations, not overlay patches)."""
    patch_files = {
        (K8S / "overlays" / o / p["path"]).resolve()
        for o in OVERLAYS
        for p in yaml.safe_load((K8S / "overlays" / o / "kustomization.yaml").read_text()).get(
            "patches", []
        )
    }
    return sorted(
        p
        for p in K8S.rglob("*.yaml")
        if p.name not in NOT_RESOURCES and p.resolve() not in patch_files
    )


@cache
def _rendered(directory: Path) -> str:
    text: str = yaml.safe_dump_all(_render(directory))
    return text


def render(directory: Path) -> list[Doc]:
    """A fresh copy of a directory's rendering (rendered once per session)."""
    return [d for d in yaml.safe_load_all(_rendered(directory)) if d]


def validate(doc: Doc) -> None:
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


@pytest.mark.parametrize("path", manifest_files(), ids=lambda p: str(p.relative_to(K8S)))
def test_every_manifest_file_is_valid(path: Path) -> None:
    docs = load_docs(path)
    assert docs, path
    for doc in docs:
        validate(doc)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_overlay_is_valid(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    assert len(docs) >= 20
    for doc in docs:
        validate(doc)


@pytest.mark.parametrize("mistake", ["typo", "wrong_type", "missing_required"])
def test_the_validator_rejects_mistakes(mistake: str) -> None:
    deployment = copy.deepcopy(by_kind(render(K8S / "base"), "Deployment")["empire-gateway"])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    if mistake == "typo":
        container["readinesProbe"] = container.pop("readinessProbe")
    elif mistake == "wrong_type":
        container["ports"][0]["containerPort"] = "eight thousand"
    else:
        del deployment["spec"]["selector"]
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(deployment)


def test_a_deployment_per_service_with_its_entry_point_probes_and_requests() -> None:
    docs = render(K8S / "base")
    deployments = by_kind(docs, "Deployment")
    assert set(deployments) == {f"empire-{svc}" for svc in SERVICES}
    for svc in SERVICES:
        d = deployments[f"empire-{svc}"]
        spec = pod_spec(d)
        assert spec is not None
        pod_labels = d["spec"]["template"]["metadata"]["labels"]
        assert d["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
        (c,) = spec["containers"]
        assert c["command"] == ["python", "-m", f"services.{svc}"]
        assert c["image"] == "empire-hall:latest"
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        expected = {"http": 8000} if svc == "gateway" else {"metrics": 9100}
        assert ports == expected, svc
        (port_name,) = expected
        assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": port_name}
        assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": port_name}
        assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": port_name}
        assert {"cpu", "memory"} <= set(c["resources"]["requests"])
        assert "memory" in c["resources"]["limits"]
        # prometheus scrapes a port the container declares
        ann = d["spec"]["template"]["metadata"]["annotations"]
        assert int(ann["prometheus.io/port"]) in ports.values()
        assert ann["prometheus.io/path"] == "/metrics"
        # non-root, read-only, no token
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert spec["automountServiceAccountToken"] is False
        # SIGTERM grace covers the reclaim idle time (5 s) with room to finish a batch
        assert spec["terminationGracePeriodSeconds"] >= 15


def test_the_metrics_port_is_the_one_the_services_are_told_to_serve() -> None:
    docs = render(K8S / "base")
    config = by_kind(docs, "ConfigMap")["empire-config"]["data"]
    assert config["EMPIRE_METRICS_PORT"] == "9100"
    assert config["EMPIRE_PORT"] == "8000"
    assert config["EMPIRE_HOST"] == "0.0.0.0"
    for c in containers(docs):
        assert {"configMapRef": {"name": "empire-config"}} in c["envFrom"]


def test_hpas_scale_exactly_the_stateless_services() -> None:
    docs = render(K8S / "base")
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    targets = {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()}
    assert targets == {f"empire-{svc}" for svc in STATELESS}
    deployments = by_kind(docs, "Deployment")
    for svc in SERVICES:
        d = deployments[f"empire-{svc}"]
        if svc in STATELESS:
            # the autoscaler owns replicas: an apply must not reset them
            assert "replicas" not in d["spec"], svc
            h = hpas[f"empire-{svc}"]
            assert 2 <= h["spec"]["minReplicas"] < h["spec"]["maxReplicas"]
            assert h["spec"]["metrics"][0]["resource"]["name"] == "cpu"
        else:
            assert d["spec"]["replicas"] >= 1
    pdbs = by_kind(docs, "PodDisruptionBudget")
    assert set(pdbs) == set(deployments)


def test_the_gateway_service_and_ingress_reach_the_gateway_pods() -> None:
    docs = render(K8S / "base")
    pod_labels = by_kind(docs, "Deployment")["empire-gateway"]["spec"]["template"]["metadata"][
        "labels"
    ]
    service = by_kind(docs, "Service")["empire-gateway"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    (port,) = service["spec"]["ports"]
    assert port == {"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}
    ingress = by_kind(docs, "Ingress")["empire-gateway"]
    (rule,) = ingress["spec"]["rules"]
    backend = rule["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "empire-gateway", "port": {"name": "http"}}
    assert ingress["spec"]["tls"][0]["hosts"] == [rule["host"]]
    # WebSockets stay open: the ingress must not cut them at its default 60 s
    assert (
        int(ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"])
        >= 3600
    )
    # the bot runner reaches the gateway through this Service
    config = by_kind(docs, "ConfigMap")["empire-config"]["data"]
    assert config["EMPIRE_PUBLIC_URL"] == f"http://{service['metadata']['name']}:8000"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_reference_resolves(overlay: str) -> None:
    """ConfigMaps and Secrets named by the pods exist with those keys (in production the
    Secret comes from the operator: its keys must be the dev Secret's)."""
    docs = render(K8S / "overlays" / overlay)
    dev_secrets = by_kind(render(K8S / "overlays" / "dev"), "Secret")
    configmaps, secrets = by_kind(docs, "ConfigMap"), by_kind(docs, "Secret")
    if overlay == "production":
        assert "empire-secrets" not in secrets, "production secrets are not kept in git"
        secrets = {**secrets, "empire-secrets": dev_secrets["empire-secrets"]}
    accounts = by_kind(docs, "ServiceAccount")
    (namespace,) = by_kind(docs, "Namespace")
    for d in docs:
        if d["kind"] != "Namespace":
            assert d["metadata"]["namespace"] == namespace
        spec = pod_spec(d)
        if spec is None:
            continue
        if "serviceAccountName" in spec:
            assert spec["serviceAccountName"] in accounts
        for c in spec["containers"]:
            for src in c.get("envFrom", []):
                assert src["configMapRef"]["name"] in configmaps
            for item in c.get("env", []):
                ref = item.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["key"] in secret_data(secrets[ref["name"]]), ref
        for vol in spec.get("volumes", []):
            for source in vol.get("projected", {}).get("sources", []):
                if "configMap" in source:
                    data = configmaps[source["configMap"]["name"]]["data"]
                else:
                    data = secret_data(secrets[source["secret"]["name"]])
                assert {i["key"] for i in source[next(iter(source))]["items"]} <= set(data)


def test_the_dev_secret_points_each_service_at_its_acl_user() -> None:
    secret = secret_data(by_kind(render(K8S / "overlays" / "dev"), "Secret")["empire-secrets"])
    acl = (DEPLOY / "valkey" / "users.acl").read_text()
    for svc in SERVICES:
        url = secret[f"redis-url-{svc}"]
        user, password = url.removeprefix("redis://").split("@")[0].split(":")
        assert user == svc
        assert f"user {svc} on >{password} " in acl
        assert url.endswith("@empire-valkey:6379/0")
    assert (
        by_kind(render(K8S / "valkey"), "Service")["empire-valkey"]["spec"]["ports"][0]["port"]
        == 6379
    )


def test_the_valkey_manifests_carry_the_deploy_valkey_files() -> None:
    docs = render(K8S / "valkey")
    conf = by_kind(docs, "ConfigMap")["empire-valkey-config"]["data"]["valkey.conf"]
    assert conf == (DEPLOY / "valkey" / "valkey.conf").read_text()
    acl = secret_data(by_kind(docs, "Secret")["empire-valkey-acl"])["users.acl"]
    assert acl == (DEPLOY / "valkey" / "users.acl").read_text()
    sts = by_kind(docs, "StatefulSet")["empire-valkey"]
    mounts = {
        m["mountPath"]: m["name"]
        for m in sts["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    }
    assert mounts == {"/etc/valkey": "config", "/data": "data"}
    assert sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"


def test_production_runs_on_a_managed_cluster() -> None:
    docs = render(K8S / "overlays" / "production")
    config = by_kind(docs, "ConfigMap")["empire-config"]["data"]
    assert config["EMPIRE_CLUSTER"] == "true"
    assert int(config["EMPIRE_PARTITIONS"]) > 1
    assert not by_kind(docs, "StatefulSet"), "no in-namespace Valkey in production"
    images = {c["image"] for c in containers(docs)}
    assert images == {"registry.example.com/empire-hall:0.1.0"}
    hpa = by_kind(docs, "HorizontalPodAutoscaler")["empire-adjudicator"]["spec"]
    assert hpa["minReplicas"] == 3 and hpa["scaleTargetRef"]["name"] == "empire-adjudicator"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not on PATH (optional)")
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_renderer_agrees_with_kubectl_kustomize(overlay: str) -> None:
    out = subprocess.run(
        ["kubectl", "kustomize", str(K8S / "overlays" / overlay)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    theirs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(out) if d}
    ours = {(d["kind"], d["metadata"]["name"]): d for d in render(K8S / "overlays" / overlay)}
    assert ours == theirs
