"""Capture a release's wire messages and stored state as an upgrade fixture.

    python -m tests.upgrade.capture tests/upgrade/fixtures/<release>.json.gz

Starts the whole system (the supervisor, a private Valkey), plays one short bot game of every
game to its end and leaves one more game half-played, stops the services, then dumps every key
of the server (streams with their entries, hashes, strings, sorted sets, lists, sets) with the
consumer groups of every stream. Run it from a checkout of the release to capture (a git
worktree of the tag); tests/upgrade/test_previous_release.py reads what it wrote with the
current code: release N must read release N-1's messages and state.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import redis

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.e2e.conftest import play_bot_game

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("duel", 2, {"rounds": 3}),
    ("empire", 3, {"version": "beginner"}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 40}),
    ("empires-end", 2, {}),
    ("empire-nyc", 3, {}),
    ("empire-engine", 2, {}),
]


def _val(b: bytes) -> Any:
    try:
        return b.decode()
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(b).decode()}


def dump(url: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with redis.Redis.from_url(url) as r:
        for key in sorted(r.scan_iter(count=1000)):
            kind = r.type(key).decode()
            k = key.decode()
            if kind == "string":
                out[k] = {"type": kind, "value": _val(r.get(key))}
            elif kind == "hash":
                out[k] = {"type": kind, "value": {_val(f): _val(v)
                                                  for f, v in r.hgetall(key).items()}}
            elif kind == "zset":
                out[k] = {"type": kind, "value": [[_val(m), s] for m, s in
                                                  r.zrange(key, 0, -1, withscores=True)]}
            elif kind == "list":
                out[k] = {"type": kind, "value": [_val(v) for v in r.lrange(key, 0, -1)]}
            elif kind == "set":
                out[k] = {"type": kind, "value": sorted(_val(v) for v in r.smembers(key))}
            elif kind == "stream":
                entries = [[i.decode(), {_val(f): _val(v) for f, v in e.items()}]
                           for i, e in r.xrange(key)]
                groups = [{g["name"].decode(): _val(g["last-delivered-id"])}
                          for g in r.xinfo_groups(key)]
                out[k] = {"type": kind, "value": entries, "groups": groups}
    return out


async def _play(url: str) -> dict[str, Any]:
    finished = []
    for game, seats, options in GAMES:
        played = await play_bot_game(url, game, seats, options)
        finished.append({"game": game, "game_id": played.game_id, "problems": played.problems})
    # one game left running: the host's seat never moves, the bot's commit is in
    async with Client(url) as c:
        await c.sign_in("upgrade-host")
        t = await c.create_table("duel", seats=2, options={"rounds": 50})
        await c.add_bot(t["table_id"])
        running = await c.start(t["table_id"])
        await asyncio.sleep(2.0)
    return {"finished": finished, "running": running}


def main() -> None:
    target = Path(sys.argv[1])
    sup = Supervisor(port=free_port())
    sup.start()
    try:
        games = asyncio.run(_play(sup.url))
    finally:
        for p in sup.procs:
            if p.popen is not None:
                p.popen.terminate()
        for p in sup.procs:
            if p.popen is not None:
                try:
                    p.popen.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.popen.kill()
        assert sup.redis_url is not None
        data = dump(sup.redis_url)
        sup.stop()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    target.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(target, "wt") as f:
        json.dump({"release": commit, "games": games, "keys": data}, f, sort_keys=True)
    print(f"{target}: {len(data)} keys, games {games}")


if __name__ == "__main__":
    main()
