"""Debian's Chromium for the browser tier: found at /usr/bin/chromium or installed with apt.

Never ``playwright install``: it downloads a browser build from a CDN that CI cannot reach.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure_chromium(timeout_s: float = 900.0) -> Path:
    """The Chromium executable; installs Debian's package (as root) when it is missing."""
    if CHROMIUM.exists():
        return CHROMIUM
    if shutil.which("apt-get") is None:
        raise RuntimeError("chromium is missing and there is no apt-get to install it")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = ["-o", "DPkg::Lock::Timeout=600"]  # another apt run may hold the lock
    for cmd in (["apt-get", *lock, "update"], ["apt-get", *lock, "install", "-y", "chromium"]):
        subprocess.run(
            [*sudo, *cmd], check=True, env=env, timeout=timeout_s, stdout=subprocess.DEVNULL
        )
    if not CHROMIUM.exists():
        raise RuntimeError(f"apt-get installed chromium but {CHROMIUM} is missing")
    return CHROMIUM
