"""Profiles of the services under load.

With ``py-spy`` (found on PATH, next to this Python, or at $PY_SPY) each hot process is
sampled from outside (no overhead inside the service; idle threads are not sampled, so the
samples are where the CPU goes). The raw folded stacks are summarised here: self time per
function, total time per project function, and self time per library ("where the CPU goes").

Without py-spy the hot services run under ``bench.profiled`` (pyinstrument, wall clock).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

CATEGORIES: tuple[tuple[str, str], ...] = (
    ("redis/", "redis-py client"),
    ("hiredis", "redis-py client"),
    ("faststream/", "faststream (subscriber, publish, middlewares)"),
    ("fast_depends/", "faststream (fast_depends DI)"),
    ("anyio/", "anyio"),
    ("pydantic", "pydantic validation/serialisation"),
    ("structlog/", "logging (structlog)"),
    ("logging/", "logging (stdlib)"),
    ("json/", "json (stdlib)"),
    ("uvicorn/", "uvicorn/websockets (HTTP+WS server)"),
    ("websockets/", "uvicorn/websockets (HTTP+WS server)"),
    ("starlette/", "starlette/fastapi"),
    ("fastapi/", "starlette/fastapi"),
    ("asyncio/", "asyncio (tasks, streams, locks)"),
    ("shared/rules/", "game engine (shared/rules)"),
    ("shared/fairness/", "fairness (commitments, hashing)"),
    ("shared/protocol/", "protocol models"),
    ("shared/runtime/", "runtime (bus, json, settings)"),
    ("services/", "service code"),
)


def py_spy() -> str | None:
    """The py-spy executable, if any."""
    env = os.environ.get("PY_SPY")
    if env and Path(env).exists():
        return env
    local = Path(sys.executable).parent / "py-spy"
    if local.exists():
        return str(local)
    return shutil.which("py-spy")


def record(
    exe: str, pid: int, seconds: float, out: Path, rate: int = 250
) -> subprocess.Popen[bytes]:
    """Start sampling one process for ``seconds`` (raw folded stacks into ``out``)."""
    return subprocess.Popen(
        [
            exe,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(max(1, round(seconds))),
            "--rate",
            str(rate),
            "--format",
            "raw",
            "--nonblocking",
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _frames(stack: str) -> list[tuple[str, str]]:
    """'fn (file:line);fn2 (file:line)' -> [(fn, file), ...] outermost first."""
    out = []
    for part in stack.split(";"):
        fn, _, where = part.rpartition(" (")
        file = where.rstrip(")").rpartition(":")[0]
        out.append((fn or part, file))
    return out


def category(file: str) -> str:
    f = file.replace("\\", "/")
    for needle, name in CATEGORIES:
        if needle in f:
            return name
    return "other (" + f.rsplit("/", 1)[-1] + ")"


def summarise(raw: Path, top: int = 25) -> dict[str, Any]:
    """Self time per function, total time per project function, self time per library."""
    self_t: Counter[str] = Counter()
    total_t: Counter[str] = Counter()
    cats: Counter[str] = Counter()
    n = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        c = int(count)
        n += c
        frames = _frames(stack)
        fn, file = frames[-1]
        self_t[f"{fn} ({file})"] += c
        cats[category(file)] += c
        seen = set()
        for fn, file in frames:
            if (
                file.startswith(("services/", "shared/", "clients/"))
                or "/services/" in file
                or "/shared/" in file
            ):
                key = f"{fn} ({file})"
                if key not in seen:
                    seen.add(key)
                    total_t[key] += c

    def pct(counter: Counter[str]) -> list[tuple[str, float]]:
        return [(k, round(100 * v / max(1, n), 1)) for k, v in counter.most_common(top)]

    return {
        "samples": n,
        "self": pct(self_t),
        "total_project": pct(total_t),
        "by_library": pct(cats),
    }


def render(name: str, s: dict[str, Any]) -> str:
    lines = [f"== {name}: {s['samples']} samples (busy CPU only)", "-- self time by library"]
    lines += [f"{p:5.1f}%  {k}" for k, p in s["by_library"]]
    lines += ["-- total (inclusive) time of project functions"]
    lines += [f"{p:5.1f}%  {k}" for k, p in s["total_project"]]
    lines += ["-- self time per function"]
    lines += [f"{p:5.1f}%  {k}" for k, p in s["self"]]
    return "\n".join(lines)
