"""Upgrade step: the public copy of the log for ended games that have none.

The adjudicator copies a game's private move log ``g:{id}:log`` to its public copy
``g:{id}:publog`` in the step that ends the game (services/adjudicator/store.py), and the
gateway's Redis user reads only the copy. A game that ended under a release without that step
and is not archived yet has no copy, so its /record, /audit and /replay would serve no log. This
step makes the copy for every such game: it lists ``g:*:state`` with SCAN, which no service user
may run (SCAN is not limited by key patterns), so it runs with the admin user, once per upgrade:

    python -m services.adjudicator.migrate "$ADMIN_REDIS_URL"

The supervisor runs it itself at every start (its private Valkey's admin URL; cheap after the
first time: a marker key says it is done). Idempotent: a copy that exists is kept; a running
game gets none (the adjudicator makes it when the game ends)."""

from __future__ import annotations

import sys

import redis

from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads, text

MARKER = "migrate:publog"  # set once every ended game has its public log


def publish_ended_logs(r: redis.Redis, force: bool = False) -> int:
    """COPY the log of every ended game without a public copy; the number of games copied.
    ``r``: a synchronous client with every permission (the admin user)."""
    if not force and r.get(MARKER):
        return 0
    copied = 0
    for raw in r.scan_iter(match="g:*:state", count=1000, _type="hash"):
        key = text(raw)
        if not (key.startswith("g:{") and key.endswith("}:state")):
            continue
        game_id = key[len("g:{"):-len("}:state")]
        doc = r.hget(key, "doc")
        if doc is None or loads(doc).get("stage") != "ended":
            continue
        k = Keys(game_id)
        if r.exists(k.publog) or not r.exists(k.log):
            continue
        if r.copy(k.log, k.publog):
            ttl = r.pttl(k.log)  # an archived game's live keys expire: the copy with them
            if ttl and ttl > 0:
                r.pexpire(k.publog, ttl)
            copied += 1
    r.set(MARKER, "1")
    return copied


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m services.adjudicator.migrate ADMIN_REDIS_URL", file=sys.stderr)
        return 2
    with redis.Redis.from_url(argv[0]) as r:
        print(f"public logs made for {publish_ended_logs(r, force=True)} ended game(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
