"""A Docker engine and one compose project, driven the way an operator drives them
(docs/operations.md "Run it for a club"): ``sh deploy/env/make-env.sh > .env``, ``make certs``
(deploy/env/dev-certs.sh), ``docker compose up``; here in a temporary copy of the shipped files
with deploy/images/compose.offline.yml added (the locally built Valkey and proxy images) and a
free port published. Commands run with DOCKER_HOST set for them alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from shared.runtime.valkey import free_port

ROOT = Path(__file__).resolve().parents[3]
ENGINE_SH = ROOT / "deploy" / "images" / "engine.sh"
COMPOSE_BIN = ROOT / ".tools" / "bin" / "docker-compose"
RUN_ROOT = os.environ.get("EMPIRE_DOCKER_ROOT", "/run/empire-docker")


class Engine:
    """Our dockerd: started unless one answers on its socket; stopped only if we started it."""

    def __init__(self) -> None:
        self.host = os.environ.get("EMPIRE_DOCKER_HOST", f"unix://{RUN_ROOT}/docker.sock")
        self.started = False

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DOCKER_HOST": self.host}

    def start(self) -> None:
        out = subprocess.run(["sh", str(ENGINE_SH), "start"], capture_output=True, text=True,
                             timeout=120, check=True)
        self.started = out.stdout.strip() == "started"

    def stop(self) -> None:
        if self.started:
            subprocess.run(["sh", str(ENGINE_SH), "stop"], timeout=120, check=False)

    def docker(self, *args: str, check: bool = True, timeout: float = 300) -> str:
        out = subprocess.run(["docker", *args], env=self.env, capture_output=True, text=True,
                             timeout=timeout)
        if check and out.returncode != 0:
            raise RuntimeError(f"docker {' '.join(args)}: {out.returncode}\n{out.stderr[-3000:]}")
        return out.stdout


class ComposeStack:
    PROJECT = "empire-deploy-test"

    def __init__(self, engine: Engine, workdir: Path) -> None:
        self.engine = engine
        self.dir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.up_seconds = 0.0  # the first up -d --wait: created to every container healthy

    def prepare(self) -> None:
        """The operator's steps: the files, .env from make-env.sh, the development TLS."""
        shutil.copy(ROOT / "docker-compose.yml", self.dir / "docker-compose.yml")
        shutil.copytree(ROOT / "deploy", self.dir / "deploy",
                        ignore=shutil.ignore_patterns("tls", "__pycache__", "k8s"))
        env = subprocess.run(["sh", "deploy/env/make-env.sh"], cwd=self.dir, check=True,
                             capture_output=True, text=True, timeout=60).stdout
        env += f"EMPIRE_GATEWAY_PORT={self.port}\n"
        env += "COMPOSE_FILE=docker-compose.yml:deploy/images/compose.offline.yml\n"
        (self.dir / ".env").write_text(env)
        (self.dir / ".env").chmod(0o600)
        subprocess.run(["sh", "deploy/env/dev-certs.sh", "deploy/env/tls"], cwd=self.dir,
                       check=True, capture_output=True, timeout=60)

    def compose(self, *args: str, check: bool = True, timeout: float = 600) -> str:
        out = subprocess.run([str(COMPOSE_BIN), "-p", self.PROJECT, *args], cwd=self.dir,
                             env=self.engine.env, capture_output=True, text=True,
                             timeout=timeout)
        if check and out.returncode != 0:
            raise RuntimeError(f"compose {' '.join(args)}: {out.returncode}\n"
                               f"{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        return out.stdout + out.stderr

    def up(self, *extra: str) -> float:
        """``up -d --wait``: returns the seconds until every container is healthy."""
        t = time.monotonic()
        self.compose("up", "-d", "--wait", "--wait-timeout", "420", *extra, timeout=480)
        return time.monotonic() - t

    def down(self, volumes: bool = False) -> None:
        self.compose("down", *(["-v"] if volumes else []), check=False, timeout=300)

    def containers(self, service: str | None = None) -> list[dict[str, Any]]:
        out = self.compose("ps", "-a", "--format", "json", *([service] if service else []))
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        return rows

    def health(self, container: str) -> str:
        return self.engine.docker("inspect", "-f",
                                  "{{if .State.Health}}{{.State.Health.Status}}{{end}}",
                                  container).strip()

    def wait_health(self, service: str, want: str, timeout: float = 240) -> float:
        """Seconds until every container of ``service`` reports ``want``."""
        t = time.monotonic()
        deadline = t + timeout
        while time.monotonic() < deadline:
            names = [c["Name"] for c in self.containers(service)]
            if names and all(self.health(n) == want for n in names):
                return time.monotonic() - t
            time.sleep(1)
        states = {c["Name"]: self.health(c["Name"]) for c in self.containers(service)}
        raise AssertionError(f"{service} not {want} within {timeout} s: {states}\n"
                             f"{self.compose('logs', '--tail', '30', service, check=False)}")

    def logs(self, service: str, tail: int = 40) -> str:
        return self.compose("logs", "--tail", str(tail), service, check=False)
