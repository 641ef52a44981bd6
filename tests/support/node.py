"""Node for the JavaScript client's tests: the binary, and the flags it needs for the platform
WebSocket the client uses (stable, unflagged, from Node 22, the version the SDK supports).

The tests run on a real Node 22: the official binary npm publishes as ``node-<os>-<arch>@22``,
installed once into ``.tools/node22`` (``make install`` keeps ``.tools``; ``make clean`` drops
it) and found there afterwards without the network. Where it cannot be fetched (no npm, no
registry) they fall back to the system's Node, and on Node 20 or 21 pass
``--experimental-websocket``. ``EMPIRE_TEST_NODE=system`` skips the download. ``DESCRIPTION``
says which ran; the test session prints it at its end (tests/conftest.py).
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE22_DIR = ROOT / ".tools" / "node22"
_OS = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
    platform.machine().lower())
NODE22_PACKAGE = f"node-{_OS}-{_ARCH}" if _OS and _ARCH else None
RETRY_AFTER_S = 24 * 3600


def major(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30,
                             check=True)
        return int(out.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, subprocess.SubprocessError, ValueError):
        return 0


@functools.cache
def node22() -> tuple[str | None, str]:
    """The cached Node 22 binary, fetched with npm the first time; or None and why not. A
    failed fetch is not tried again for a day (``.tools/node22/unavailable`` says why)."""
    if NODE22_PACKAGE is None:
        return None, f"no Node 22 package for {platform.system()} {platform.machine()}"
    binary = NODE22_DIR / "node_modules" / NODE22_PACKAGE / "bin" / "node"
    if binary.exists() and major(str(binary)) == 22:
        return str(binary), f"npm {NODE22_PACKAGE}@22, cached in .tools/node22"
    failed = NODE22_DIR / "unavailable"
    if failed.exists() and time.time() - failed.stat().st_mtime < RETRY_AFTER_S:
        return None, failed.read_text().strip() + " (not tried again before a day has passed)"
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not installed"
    why = ""
    try:
        done = subprocess.run(
            [npm, "install", "--prefix", str(NODE22_DIR), "--no-save", "--no-audit", "--no-fund",
             "--loglevel=error", "--fetch-retries=0", "--fetch-timeout=20000",
             f"{NODE22_PACKAGE}@22"],
            capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            why = " ".join(done.stderr.strip().splitlines()[:2])
    except (OSError, subprocess.SubprocessError) as exc:
        why = str(exc)
    if why or not binary.exists() or major(str(binary)) != 22:
        why = f"npm install {NODE22_PACKAGE}@22 failed: {why or 'no Node 22 binary after it'}"
        NODE22_DIR.mkdir(parents=True, exist_ok=True)
        failed.write_text(why + "\n")
        return None, why
    failed.unlink(missing_ok=True)
    return str(binary), f"npm {NODE22_PACKAGE}@22, fetched into .tools/node22"


def _choose() -> tuple[str | None, list[str], str]:
    why = "EMPIRE_TEST_NODE=system"
    if os.environ.get("EMPIRE_TEST_NODE") != "system":
        found, why = node22()
        if found is not None:
            return found, [], f"Node v{major(found)} ({why})"
    system = shutil.which("node")
    if system is None:
        return None, [], f"no Node ({why}; none on PATH): the JavaScript client tests skip"
    version = major(system)
    # node --experimental-websocket on Node 20/21; nothing from Node 22 on (global WebSocket)
    flags = ["--experimental-websocket"] if 0 < version < 22 else []
    return system, flags, f"system Node v{version} {' '.join(flags)} (Node 22 not used: {why})"


NODE, WS_FLAGS, DESCRIPTION = _choose()
