"""A load generator for the lobby, in a process of its own (so the measuring test's event loop
is not the one parsing the answers): keeps N listing requests in flight on lobby:rpc until
killed or for a number of seconds, then prints how many were answered and how many timed out.

    python -m tests.reliability.lobby_load <redis_url> <in_flight> <seconds>

It stops early when a line arrives on its stdin.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import time

from services.gateway.lobby.rpc import LobbyRpc
from shared.runtime import bus
from shared.runtime.settings import Settings


async def main(url: str, in_flight: int, seconds: float) -> None:
    settings = Settings(redis_url=url, instance=f"load-{secrets.token_hex(3)}")
    broker = bus.make_broker(settings)
    rpc = LobbyRpc(broker, settings.instance)
    await broker.start()
    answered = timeouts = refused = 0
    deadline = time.monotonic() + seconds

    async def lister() -> None:
        nonlocal answered, timeouts, refused
        while time.monotonic() < deadline:
            try:
                ans = await rpc.request({"op": "list_tables", "player_id": "p-load",
                                         "name": "load"}, timeout=30)
            except TimeoutError:
                timeouts += 1
                continue
            if ans.get("ok") and ans.get("tables"):
                answered += 1
            else:
                refused += 1

    async def stop_on_input() -> None:
        nonlocal deadline
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        deadline = time.monotonic()

    stopper = asyncio.create_task(stop_on_input())
    print("ready", flush=True)
    t0 = time.monotonic()
    await asyncio.gather(*(lister() for _ in range(in_flight)))
    seconds = time.monotonic() - t0
    stopper.cancel()
    await broker.stop()
    print(json.dumps({"answered": answered, "timeouts": timeouts, "refused": refused,
                      "seconds": seconds}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
