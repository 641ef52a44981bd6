"""deploy/k8s: every manifest and both rendered overlays validated against the Kubernetes
schemas (kubernetes-validate, offline, strict, a pinned Kubernetes version), and the manifests
checked against the code: a Deployment per service with the supervisor's entry point, probes on
the ports the services serve, resource requests, HPAs for the stateless services, the gateway's
Service and Ingress, every config/secret reference resolvable, the Valkey copies in step."""

from __future__ import annotations

import copy
import math
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml  # type: ignore[import-untyped]

from services.supervisor import SERVICES
from shared.runtime.settings import Settings
from shared.runtime.valkey_acl import template_rules
from tests.deploy.kustomize import containers, load_docs, pod_spec
from tests.deploy.kustomize import render as _render
from tests.deploy.stack import DEPLOY, K8S, Doc, by_kind, dev_secrets, dotenv, secret_data

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
        if p.name not in NOT_RESOURCES
        and p.resolve() not in patch_files
        and K8S / "monitoring" not in p.parents  # prometheus-adapter's rules, not a resource
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


def config_map(docs: list[Doc], name: str) -> Doc:
    """A generated ConfigMap by its name before kustomize's hash suffix."""
    hits = [
        d
        for d in docs
        if d["kind"] == "ConfigMap"
        and re.fullmatch(rf"{name}-[a-z0-9]{{10}}", d["metadata"]["name"])
    ]
    assert len(hits) == 1, (name, [d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"])
    return hits[0]


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
        assert c["image"] == "empire-hall:dev"
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        expected = {"http": 8000, "metrics": 9100} if svc == "gateway" else {"metrics": 9100}
        assert ports == expected, svc
        port_name = "http" if svc == "gateway" else "metrics"
        # liveness: the stream services' /livez fails when a consumer is wedged; the gateway
        # has no consumer group (its fan-out is part of readiness)
        live = "/healthz" if svc == "gateway" else "/livez"
        assert c["livenessProbe"]["httpGet"] == {"path": live, "port": port_name}
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
        # rediss:// checks Valkey against the CA bundle mounted where EMPIRE_REDIS_CA_FILE says
        mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in spec["volumes"]}
        ca = volumes[mounts["/tls"]]["configMap"]
        assert ca == {"name": "empire-redis-ca", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
        # spread over zones and nodes
        keys = [t["topologyKey"] for t in spec["topologySpreadConstraints"]]
        assert keys == ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]
        for t in spec["topologySpreadConstraints"]:
            assert t["labelSelector"]["matchLabels"] == d["spec"]["selector"]["matchLabels"]
            assert t["maxSkew"] == 1


def test_only_the_lobby_gets_the_token_private_key() -> None:
    for overlay in OVERLAYS:
        docs = render(K8S / "overlays" / overlay)
        for name, d in by_kind(docs, "Deployment").items():
            (c,) = d["spec"]["template"]["spec"]["containers"]
            env = {e["name"]: e for e in c.get("env", [])}
            holds = {"EMPIRE_TOKEN_PRIVATE_KEY", "EMPIRE_TOKEN_PUBLIC_KEYS", "EMPIRE_SECRET",
                     "EMPIRE_SECRET_PREVIOUS"} & set(env)
            want = {"empire-lobby": {"EMPIRE_TOKEN_PRIVATE_KEY", "EMPIRE_TOKEN_PUBLIC_KEYS"},
                    "empire-gateway": {"EMPIRE_TOKEN_PUBLIC_KEYS"}}.get(name, set())
            assert holds == want, name
            for key, ref in (("EMPIRE_TOKEN_PRIVATE_KEY", "token-private-key"),
                             ("EMPIRE_TOKEN_PUBLIC_KEYS", "token-public-keys")):
                if key in env:
                    assert env[key]["valueFrom"]["secretKeyRef"] == {
                        "name": "empire-secrets", "key": ref}, name
            assert "secretRef" not in str(c.get("envFrom")), name  # no whole-Secret import


def test_the_settings_the_services_are_told() -> None:
    docs = render(K8S / "base")
    config = config_map(docs, "empire-config")["data"]
    assert config["EMPIRE_METRICS_PORT"] == "9100"
    assert config["EMPIRE_PORT"] == "8000"
    assert config["EMPIRE_HOST"] == "0.0.0.0"
    assert config["EMPIRE_REDIS_CA_FILE"] == "/tls/ca.crt"
    assert "EMPIRE_REDIS_PLAINTEXT" not in config and "EMPIRE_DEV" not in config
    fields = {f"EMPIRE_{n.upper()}" for n in Settings.model_fields}
    assert set(config) <= fields
    # the same values as deploy/env/empire.env (compose), but for the in-cluster gateway URL
    compose_env = dotenv(DEPLOY / "env" / "empire.env")
    for key, value in config.items():
        if key in compose_env and key != "EMPIRE_PUBLIC_URL":
            assert compose_env[key] == value, key
    for c in containers(docs):
        assert {
            "configMapRef": {"name": config_map(docs, "empire-config")["metadata"]["name"]}
        } in c["envFrom"]


def test_a_config_change_rolls_every_pod(tmp_path: Path) -> None:
    """The ConfigMap is generated with a content hash in its name and every Deployment refers
    to that name: an edited setting changes every pod template, so every Deployment rolls."""
    copy_dir = tmp_path / "k8s"
    shutil.copytree(K8S, copy_dir)
    before = _render(copy_dir / "overlays" / "production")
    with (copy_dir / "base" / "config.env").open("a") as f:
        f.write("EMPIRE_LOG_LEVEL=DEBUG\n")
    after = _render(copy_dir / "overlays" / "production")
    old = config_map(before, "empire-config")["metadata"]["name"]
    new = config_map(after, "empire-config")["metadata"]["name"]
    assert old != new
    for name, d in by_kind(after, "Deployment").items():
        template_before = by_kind(before, "Deployment")[name]["spec"]["template"]
        assert d["spec"]["template"] != template_before, name
        (c,) = d["spec"]["template"]["spec"]["containers"]
        assert c["envFrom"] == [{"configMapRef": {"name": new}}], name


def test_hpas_pdbs_keep_a_majority_and_scale_the_stateless_services() -> None:
    docs = render(K8S / "base")
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    targets = {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()}
    assert targets == {f"empire-{svc}" for svc in STATELESS}
    deployments = by_kind(docs, "Deployment")
    pdbs = by_kind(docs, "PodDisruptionBudget")
    assert set(pdbs) == set(deployments)
    for svc in SERVICES:
        d = deployments[f"empire-{svc}"]
        if svc in STATELESS:
            # the autoscaler owns replicas: an apply must not reset them
            assert "replicas" not in d["spec"], svc
            h = hpas[f"empire-{svc}"]
            assert h["spec"]["minReplicas"] < h["spec"]["maxReplicas"]
            assert h["spec"]["metrics"][0]["resource"]["name"] == "cpu"
            floor = h["spec"]["minReplicas"]
        else:
            floor = d["spec"]["replicas"]
        pdb = pdbs[f"empire-{svc}"]["spec"]
        assert pdb["selector"]["matchLabels"] == d["spec"]["selector"]["matchLabels"]
        # Kubernetes rounds a percentage of minAvailable up: at every size from the floor to
        # 30 a majority stays and at least one pod may still be evicted (a drain proceeds)
        percent = int(pdb["minAvailable"].rstrip("%"))
        for n in range(floor, 31):
            keep = math.ceil(n * percent / 100)
            assert keep > n / 2, (svc, n)
            assert n - keep >= 1, (svc, n)


def test_the_gateway_drains_within_its_grace_period() -> None:
    docs = render(K8S / "base")
    spec = pod_spec(by_kind(docs, "Deployment")["empire-gateway"])
    assert spec is not None
    config = config_map(docs, "empire-config")["data"]
    (c,) = spec["containers"]
    pre_stop = c["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[:2] == ["python", "-c"]
    sleep = float(re.search(r"sleep\((\d+(?:\.\d+)?)\)", pre_stop[2]).group(1))  # type: ignore[union-attr]
    drain = float(config["EMPIRE_DRAIN_S"])
    assert drain == Settings.model_fields["drain_s"].default
    stop = float(config["EMPIRE_SHUTDOWN_DEADLINE_S"])
    assert spec["terminationGracePeriodSeconds"] > sleep + drain + stop


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
    for path in rule["http"]["paths"]:
        assert path["backend"]["service"] == {"name": "empire-gateway", "port": {"name": "http"}}
    assert ingress["spec"]["tls"][0]["hosts"] == [rule["host"]]
    # WebSockets stay open: the ingress must not cut them at its default 60 s
    assert (
        int(ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"])
        >= 3600
    )
    # the bot runner reaches the gateway through this Service
    config = config_map(docs, "empire-config")["data"]
    assert config["EMPIRE_PUBLIC_URL"] == f"http://{service['metadata']['name']}:8000"


def operator_objects() -> list[Doc]:
    """What the operator creates beside `kubectl apply -k` (dev: overlays/dev/secrets.sh)."""
    return dev_secrets()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_reference_resolves(overlay: str) -> None:
    """ConfigMaps, Secrets and claims named by the pods exist with those keys: generated ones
    in the rendering, the operator's (the dev script's objects; production must create the
    same names and keys) beside it."""
    docs = render(K8S / "overlays" / overlay)
    extra = operator_objects()
    configmaps = {**by_kind(docs, "ConfigMap"), **by_kind(extra, "ConfigMap")}
    secrets = {**by_kind(docs, "Secret"), **by_kind(extra, "Secret")}
    claims = set(by_kind(docs, "PersistentVolumeClaim"))
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
                if ref and not ref.get("optional"):
                    assert ref["key"] in secret_data(secrets[ref["name"]]), ref
        template_claims = {t["metadata"]["name"] for t in d["spec"].get("volumeClaimTemplates", [])}
        for vol in spec.get("volumes", []):
            if "configMap" in vol:
                data = configmaps[vol["configMap"]["name"]]["data"]
                items = vol["configMap"].get("items", [])
            elif "secret" in vol:
                data = secret_data(secrets[vol["secret"]["secretName"]])
                items = vol["secret"].get("items", [])
            elif "persistentVolumeClaim" in vol:
                assert vol["persistentVolumeClaim"]["claimName"] in claims
                continue
            else:
                continue
            assert {i["key"] for i in items} <= set(data), vol
        for c in spec["containers"]:
            for m in c.get("volumeMounts", []):
                assert m["name"] in {v["name"] for v in spec.get("volumes", [])} | template_claims


def test_the_dev_secrets_point_each_service_at_its_acl_user() -> None:
    objects = dev_secrets()
    secret = secret_data(by_kind(objects, "Secret")["empire-secrets"])
    passwords = secret_data(by_kind(objects, "Secret")["empire-valkey-passwords"])
    users = template_rules()
    for svc in SERVICES:
        url = secret[f"redis-url-{svc}"]
        user, password = url.removeprefix("rediss://").split("@")[0].split(":")
        assert user == svc and svc in users
        assert password == passwords[svc]
        assert url.endswith("@empire-valkey:6379/0")
    assert (
        by_kind(render(K8S / "valkey"), "Service")["empire-valkey"]["spec"]["ports"][0]["port"]
        == 6379
    )


VALKEY_FILES = {
    "valkey.conf": DEPLOY / "valkey" / "valkey.conf",
    "users.acl.template": DEPLOY / "valkey" / "users.acl.template",
    "entrypoint.sh": DEPLOY / "valkey" / "entrypoint.sh",
    "healthcheck.sh": DEPLOY / "valkey" / "healthcheck.sh",
    "valkey-backup.sh": DEPLOY / "backup" / "valkey-backup.sh",
}


@pytest.mark.parametrize("name", sorted(VALKEY_FILES))
def test_the_valkey_component_carries_the_deploy_files(name: str) -> None:
    """kustomize reads files under its root only: deploy/k8s/valkey/files holds copies (see its
    README for the cp command), and the generated ConfigMaps hold them verbatim."""
    original = VALKEY_FILES[name].read_text()
    source = VALKEY_FILES[name].relative_to(DEPLOY.parent)
    copy_path = K8S / "valkey" / "files" / name
    assert copy_path.read_text() == original, (
        f"{copy_path.relative_to(DEPLOY.parent)} differs from {source}: refresh the copies with\n"
        "  cp deploy/valkey/valkey.conf deploy/valkey/users.acl.template"
        " deploy/valkey/entrypoint.sh deploy/valkey/healthcheck.sh"
        " deploy/backup/valkey-backup.sh deploy/k8s/valkey/files/"
    )
    docs = render(K8S / "valkey")
    cm = "empire-valkey-backup" if name == "valkey-backup.sh" else "empire-valkey-config"
    assert config_map(docs, cm)["data"][name] == original


def test_the_valkey_statefulset_runs_the_entrypoint_as_999_with_tls_and_real_probes() -> None:
    docs = render(K8S / "valkey")
    assert by_kind(docs, "Secret") == {}, "no password is kept in the manifests"
    sts = by_kind(docs, "StatefulSet")["empire-valkey"]
    spec = pod_spec(sts)
    assert spec is not None
    assert spec["securityContext"]["runAsUser"] == 999 and spec["securityContext"]["fsGroup"] == 999
    (c,) = spec["containers"]
    assert c["command"] == ["sh", "/etc/valkey/entrypoint.sh"]
    assert c["args"] == ["/etc/valkey/valkey.conf"]
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["VALKEY_SECRETS_DIR"] == "/run/secrets/valkey"
    assert env["VALKEY_ACL_OUT"] == "/run/valkey/users.acl"
    assert env["VALKEY_TLS"] == "1" and env["VALKEY_CA_FILE"] == "/tls/ca.crt"
    for probe in ("startupProbe", "readinessProbe"):
        assert c[probe]["exec"]["command"] == ["sh", "/etc/valkey/healthcheck.sh"], probe
    # a large AOF may load for minutes before the first PONG
    assert c["startupProbe"]["periodSeconds"] * c["startupProbe"]["failureThreshold"] >= 300
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert (
        volumes[mounts["/etc/valkey"]["name"]]["configMap"]["name"]
        == "empire-valkey-config-"
        + (config_map(docs, "empire-valkey-config")["metadata"]["name"].rsplit("-", 1)[1])
    )
    assert volumes[mounts["/run/secrets/valkey"]["name"]]["secret"]["secretName"] == (
        "empire-valkey-passwords"
    )
    assert volumes[mounts["/tls"]["name"]]["secret"]["secretName"] == "empire-valkey-tls"
    assert volumes[mounts["/run/valkey"]["name"]]["emptyDir"]["medium"] == "Memory"
    assert all(mounts[p].get("readOnly") for p in ("/etc/valkey", "/run/secrets/valkey", "/tls"))
    assert sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == mounts["/data"]["name"]


def test_the_backup_cronjob_runs_the_backup_script_as_the_backup_user() -> None:
    docs = render(K8S / "valkey")
    cron = by_kind(docs, "CronJob")["empire-valkey-backup"]
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    spec = pod_spec(cron)
    assert spec is not None
    (c,) = spec["containers"]
    assert c["command"] == ["sh", "/opt/backup/valkey-backup.sh"]
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["VALKEY_HOST"] == "empire-valkey" and env["VALKEY_TLS"] == "1"
    assert int(env["BACKUP_KEEP"]) >= 1 and env["BACKUP_DIR"] == "/backups"
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    password = volumes[mounts["/run/secrets/valkey"]]["secret"]
    assert password["items"] == [{"key": "backup", "path": "backup"}]  # nobody else's
    claim = volumes[mounts["/backups"]]["persistentVolumeClaim"]["claimName"]
    assert claim in by_kind(docs, "PersistentVolumeClaim")
    assert spec["securityContext"]["runAsUser"] == 999


def test_production_runs_on_a_managed_cluster_pinned_by_digest() -> None:
    docs = render(K8S / "overlays" / "production")
    config = config_map(docs, "empire-config")["data"]
    assert config["EMPIRE_CLUSTER"] == "true"
    assert int(config["EMPIRE_PARTITIONS"]) > 1
    assert config["EMPIRE_REDIS_CA_FILE"] == "/tls/ca.crt"
    assert not by_kind(docs, "StatefulSet"), "no in-namespace Valkey in production"
    assert by_kind(docs, "Secret") == {}, "production secrets are not kept in git"
    images = {c["image"] for c in containers(docs)}
    (image,) = images
    assert re.fullmatch(r"registry\.example\.com/empire-hall@sha256:[0-9a-f]{64}", image), image
    hpa = by_kind(docs, "HorizontalPodAutoscaler")["empire-adjudicator"]["spec"]
    assert hpa["minReplicas"] >= 3 and hpa["scaleTargetRef"]["name"] == "empire-adjudicator"


def test_production_autoscales_on_stream_lag_and_sockets() -> None:
    """prometheus-adapter (docs/operations.md "Autoscaling"): the consumer services on their
    group's lag (external metric empire_stream_lag{group=...}), the gateway on open
    WebSockets per pod (empire_ws_connections); CPU stays as a second signal. The adapter's
    rules shipped beside the overlay name the same metrics."""
    docs = render(K8S / "overlays" / "production")
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    metric_names = set()
    for svc in ("adjudicator", "escrow", "dealer", "lobby"):
        metrics = hpas[f"empire-{svc}"]["spec"]["metrics"]
        (lag,) = [m for m in metrics if m["type"] == "External"]
        assert lag["external"]["metric"]["name"] == "empire_stream_lag"
        assert lag["external"]["metric"]["selector"]["matchLabels"] == {"group": svc}
        assert lag["external"]["target"]["type"] == "AverageValue"
        assert any(m["type"] == "Resource" for m in metrics)
        metric_names.add("empire_stream_lag")
    gw = hpas["empire-gateway"]["spec"]["metrics"]
    (sockets,) = [m for m in gw if m["type"] == "Pods"]
    assert sockets["pods"]["metric"]["name"] == "empire_ws_connections"
    metric_names.add("empire_ws_connections")
    rules = (K8S / "monitoring" / "prometheus-adapter-rules.yaml").read_text()
    for name in metric_names:
        assert name in rules
    # the metrics exist in the code under those names
    from shared.runtime import metrics

    exported = {m.describe()[0].name for m in (metrics.STREAM_LAG, metrics.WS_CONNECTIONS)}
    assert exported == metric_names


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
