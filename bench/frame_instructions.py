"""Machine instructions the gateway's WebSocket server spends on one outbound frame, in a
count that does not move with the machine's load (``valgrind --tool=cachegrind``, which must
be installed): through Starlette's ``send_text`` one frame at a time, and through the
protocol's ``empire.send_texts`` (services/gateway/edge/server.py) in writes of 1 and of 4
frames, with and without permessage-deflate.

``python -m bench.frame_instructions [--frames 10000]``: for each way, the instructions of a
uvicorn server (the gateway's WebSocket protocol, uvloop) that sends ``--frames`` frames of a
typical view to a client in another process, less those of one that sends none, over the
frames. The client's own instructions are not counted. ``PYTHONHASHSEED`` is fixed so that
the counts repeat.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

WAYS = (("starlette", 1), ("send_texts", 1), ("send_texts", 4))

_SERVER = r'''
import asyncio, sys
import uvicorn, uvloop
from starlette.websockets import WebSocket
from services.gateway.edge.server import GuardedWebSocketProtocol
from shared.runtime.valkey import free_port

way, n, batch, deflate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
FRAME = ('{"type":"view","v":1,"game_id":"g-0123456789","seq":12,"seat":0,"stage":"play",'
         '"view":{"round":3,"score":[1,2],"hand":["a","b","c"]},"legal":[],"node":"act"}')
CLIENT = """
import asyncio, sys
from websockets.asyncio.client import connect
async def main():
    async with connect(sys.argv[1], max_queue=None,
                       compression="deflate" if sys.argv[2] == "1" else None) as ws:
        async for m in ws:
            if m == "END":
                break
asyncio.run(main())
"""

async def app(scope, receive, send):
    ws = WebSocket(scope, receive, send)
    await ws.accept()
    send_texts = scope["extensions"]["empire.send_texts"]["call"]
    if way == "starlette":
        for _ in range(n):
            await ws.send_text(FRAME)
    else:
        frames = [FRAME] * batch
        for _ in range(n // batch):
            await send_texts(frames)
    await ws.send_text("END")
    await receive()

async def main():
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           ws=GuardedWebSocketProtocol, lifespan="off",
                                           log_level="warning", loop="none"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CLIENT, f"ws://127.0.0.1:{port}/", "1" if deflate else "0")
    await client.wait()
    server.should_exit = True
    await serving

uvloop.run(main())
'''


def count(way: str, n: int, batch: int, deflate: bool) -> int:
    """The instructions of one server run under cachegrind (this tree)."""
    tree = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", _SERVER, way, str(n), str(batch), "1" if deflate else "0"],
        cwd=tree, env=env, capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if refs is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(refs.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=10_000)
    args = ap.parse_args(argv)
    print("instructions per frame (server side)")
    print(f"{'way':<22}{'no deflate':>12}{'deflate':>12}")
    idle = {d: count("starlette", 0, 1, d) for d in (False, True)}
    for way, batch in WAYS:
        cells = [(count(way, args.frames, batch, d) - idle[d]) / args.frames
                 for d in (False, True)]
        name = way if way == "starlette" else f"{way} of {batch}"
        print(f"{name:<22}" + "".join(f"{c / 1000:>11.1f}k" for c in cells))


if __name__ == "__main__":
    main()
