"""Machine instructions a service spends on one Redis command, two trees side by side: the
client's side of a round trip (packing, the write, the wait, the read, parsing) in a count
that does not move with the machine's load (``valgrind --tool=cachegrind``, which must be
installed).

``python -m bench.command_instructions --base /path/to/old/tree [--tree .] [--commands 3000]``:
one embedded Valkey (or ``--redis-url``) serves both trees; for each tree and command kind, the
instructions of a worker that sends ``--commands`` commands one after another through the
services' own client (``shared.runtime.redis.client`` with the default settings) less those
of one that sends none, over the commands. The server's own instructions are not counted (it
is another process). ``PYTHONHASHSEED`` is fixed so that the counts repeat.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

KINDS = ("get", "xadd", "script")

_WORKER = """
import asyncio, sys
import uvloop
from shared.runtime.redis import client
from shared.runtime.settings import Settings

async def main(url, kind, n):
    r = client(Settings(redis_url=url))
    await r.set("bench:k", "v")
    # "script": a Lua script called with the keys and arguments of an escrow commit
    script = r.register_script("return 1")
    keys = [f"esc:{{g{i}}}:k" for i in range(5)]
    argv = ["r1", "A", "c" * 64, "n" * 100, "", "e" * 400, "A", "B"]
    send = ((lambda: r.get("bench:k")) if kind == "get" else
            (lambda: script(keys=keys, args=argv)) if kind == "script" else
            (lambda: r.xadd("bench:s", {"d": "x" * 64}, maxlen=1000, approximate=True)))
    for _ in range(200):  # connections, imports and first calls, in both counts
        await send()
    for _ in range(n):
        await send()
    await r.aclose()

uvloop.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def count(tree: Path, url: str, kind: str, n: int) -> int:
    """The instructions of one worker run under cachegrind in ``tree``."""
    python = tree / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         str(python if python.exists() else sys.executable), "-c", _WORKER, url, kind, str(n)],
        cwd=tree, env=env, capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if refs is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(refs.group(1).replace(",", ""))


def per_command(tree: Path, url: str, kind: str, n: int) -> float:
    return (count(tree, url, kind, n) - count(tree, url, kind, 0)) / n


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.command_instructions",
                                 description=__doc__)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--tree", type=Path, default=Path.cwd())
    ap.add_argument("--commands", type=int, default=3000, help="commands per count")
    ap.add_argument("--redis-url", default="", help="a server to use (default: embedded)")
    args = ap.parse_args(argv)
    server = None
    url = args.redis_url
    if not url:
        from shared.runtime.valkey import EmbeddedValkey

        server = EmbeddedValkey()
        url = server.start()
    try:
        print("| command | base instructions | new instructions | base / new |")
        print("|---|---|---|---|")
        for kind in KINDS:
            base = per_command(args.base.resolve(), url, kind, args.commands)
            new = per_command(args.tree.resolve(), url, kind, args.commands)
            print(f"| {kind} | {base / 1000:.1f}k | {new / 1000:.1f}k | {base / new:.2f}x |",
                  flush=True)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
