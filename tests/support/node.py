"""Node for the JavaScript client's tests: the binary, and the flag that gives Node 20 and 21
the platform WebSocket the client uses (stable, unflagged, from Node 22)."""

from __future__ import annotations

import shutil
import subprocess

NODE = shutil.which("node")


def node_major() -> int:
    if NODE is None:
        return 0
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().lstrip("v").split(".")[0])


# node --experimental-websocket on Node 20/21; nothing from Node 22 on (global WebSocket)
WS_FLAGS: list[str] = ["--experimental-websocket"] if 0 < node_major() < 22 else []
