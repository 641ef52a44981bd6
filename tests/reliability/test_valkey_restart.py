"""Valkey restart under the shipped configuration: the server runs deploy/valkey/valkey.conf
(AOF, appendfsync always) with the ACL rendered from users.acl.template by entrypoint.sh
(default user off, one user per service: every service signs in as its own user), and is
stopped mid-game, by SIGKILL and by SIGTERM in turn, then restarted on the same port and data
directory. Every acknowledged action survives (the move logs taken just before the stop are
prefixes of the logs after), no consumer group's position rolls back and no stream loses its
last entry, the services reconnect on their own (the lobby answers through the gateway
again), the games continue to their end with nothing lost or applied twice, and each final
state equals a replay of its log. Under the ACL shipped before (default user PING-only) every
scripted write vanished on restart (valkey-io/valkey#3983): the logs check fails at once.

The whole keyspace is compared too. Just before each stop the writes are paused (``CLIENT PAUSE
WRITE``: nothing acknowledged afterwards, no key expires meanwhile) and every key is read: its
type, content and TTL. The data directory is then loaded into a second server on a side port,
before any service can reconnect and change it, and read the same way: every key without a TTL
must be there with the same content (streams: entries, ids, groups, pending entries and the
consumers holding them; a consumer holding nothing is not data, see ``_content``), and the
only keys allowed to be missing are keys that had a TTL and expired during the downtime (the
key counts that once went 134 -> 132 without an assertion were such expiring keys)."""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import time
from typing import Any

import pytest
import redis.asyncio as aioredis

from clients.sdk import Client
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedValkey, free_port
from tests.reliability.conftest import FULL, report, retry, size, start_system
from tests.reliability.test_crashes import _check, _play, _setup

pytestmark = [pytest.mark.reliability, pytest.mark.full, pytest.mark.timeout(size(600, 7200))]
STEP = size(20, 50)  # a duel round is ~3.3 seqs: 100 rounds outlast 5 kills 50 seqs apart

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("duel", 3, {"rounds": size(40, 100)}),  # the long game: a kill every STEP of its seqs
    ("empire", 3, {"version": "beginner"}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 60}),
]
if FULL:
    GAMES += [("empires-end", 2, {}), ("empire-nyc", 3, {}), ("empire-engine", 2, {})]


async def _logs(url: str, game_ids: list[str]) -> dict[str, list[Any]]:
    r = aioredis.Redis.from_url(url)
    try:
        out: dict[str, list[Any]] = {}
        for g in game_ids:
            entries: Any = await r.xrange(Keys(g).log)
            out[g] = [e for _, e in entries]
        return out
    finally:
        await r.aclose()


async def _positions(url: str) -> dict[str, dict[str, Any]]:
    """Every stream: its last entry id and each consumer group's last-delivered id."""
    r = aioredis.Redis.from_url(url)  # entries are binary (faststream's format)

    def s(v: Any) -> str:
        return v.decode() if isinstance(v, bytes) else str(v)

    try:
        out: dict[str, dict[str, Any]] = {}
        async for key in r.scan_iter(_type="STREAM", count=1000):
            info = {s(k): v for k, v in (await r.xinfo_stream(key)).items()}
            groups = {}
            for g in await r.xinfo_groups(key):
                g = {s(k): v for k, v in g.items()}
                groups[s(g["name"])] = s(g["last-delivered-id"])
            out[s(key)] = {"last": s(info["last-generated-id"]), "groups": groups}
        return out
    finally:
        await r.aclose()


async def _content(r: Any, key: bytes, kind: str) -> Any:
    """A key's logical content (not DUMP: a reload may re-encode a hash or a set)."""
    if kind == "string":
        return await r.get(key)
    if kind == "hash":
        return sorted((await r.hgetall(key)).items())
    if kind == "set":
        return sorted(await r.smembers(key))
    if kind == "zset":
        return await r.zrange(key, 0, -1, withscores=True)
    if kind == "list":
        return await r.lrange(key, 0, -1)
    if kind == "stream":
        info = await r.xinfo_stream(key)
        groups = []
        for g in await r.xinfo_groups(key):
            pending = await r.xpending_range(key, g["name"], min="-", max="+", count=100_000)
            # consumers holding entries; an empty one may be gone after a restart (an
            # XAUTOCLAIM that claims nothing creates its consumer without writing that to
            # the AOF): nothing is lost, the next read creates it again
            consumers = sorted(c["name"] for c in await r.xinfo_consumers(key, g["name"])
                               if c["pending"])
            groups.append((g["name"], g["last-delivered-id"], g.get("entries-read"),
                           [(e["message_id"], e["consumer"], e["times_delivered"])
                            for e in pending], consumers))
        return (await r.xrange(key), info["last-generated-id"], info.get("entries-added"),
                info.get("max-deleted-entry-id"), sorted(groups))
    raise AssertionError(f"{key!r}: a {kind} key (no comparison written for it)")


async def _keyspace(url: str) -> dict[bytes, tuple[int, Any]]:
    """Every key: (its TTL in ms, -1 for none; its content)."""
    r = aioredis.Redis.from_url(url)
    try:
        out: dict[bytes, tuple[int, Any]] = {}
        async for key in r.scan_iter(count=1000):
            raw = await r.type(key)
            kind = raw.decode() if isinstance(raw, bytes) else str(raw)
            if kind == "none":
                continue
            out[key] = (int(await r.pttl(key)), await _content(r, key, kind))
        return out
    finally:
        await r.aclose()


def _difference(a: Any, b: Any) -> str:
    """Where two contents differ (a stream's: which of its parts)."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        parts = ("entries", "last-generated-id", "entries-added", "max-deleted-entry-id",
                 "groups")
        return "; ".join(f"{name}: {x!r:.600} -> {y!r:.600}"
                         for name, x, y in zip(parts, a, b, strict=False) if x != y)
    return f"{a!r:.600} -> {b!r:.600}"


def _compare_keyspace(before: dict[bytes, tuple[int, Any]],
                      after: dict[bytes, tuple[int, Any]]) -> dict[str, int]:
    """No key without a TTL lost or changed; nothing new; missing keys only expiring ones."""
    persistent = {k for k, (ttl, _) in before.items() if ttl == -1}
    assert set(after) <= set(before), sorted(set(after) - set(before))[:5]
    lost = sorted(persistent - set(after))
    assert lost == [], f"{len(lost)} keys without a TTL lost, e.g. {lost[:5]}"
    changed = sorted(k for k in after if after[k][1] != before[k][1])
    assert changed == [], (f"{len(changed)} keys changed, e.g. {changed[:5]}; the first: "
                           f"{_difference(before[changed[0]][1], after[changed[0]][1])}")
    expired = set(before) - set(after)
    assert all(before[k][0] >= 0 for k in expired)  # had a TTL
    return {"keys": len(before), "persistent": len(persistent), "expired": len(expired),
            "after": len(after)}


def _sid(s: str) -> tuple[int, int]:
    ms, _, seq = s.partition("-")
    return int(ms), int(seq or 0)


def _no_rollback(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> int:
    """Every stream and group position after the restart is at or past the one before it;
    returns how many positions were compared."""
    compared = 0
    for key, b in before.items():
        a = after.get(key)
        assert a is not None, f"stream {key} is gone after the restart"
        assert _sid(a["last"]) >= _sid(b["last"]), f"{key}: entries lost ({b} -> {a})"
        for group, pos in b["groups"].items():
            assert group in a["groups"], f"{key}: group {group} is gone"
            assert _sid(a["groups"][group]) >= _sid(pos), f"{key}/{group} rolled back"
            compared += 1
    return compared


async def test_valkey_killed_mid_game_loses_no_acknowledged_action() -> None:
    rng = random.Random(int(time.time()))
    restarts = size(2, 6)
    data = tempfile.mkdtemp(prefix="empire-aof-")
    server = EmbeddedValkey(aof=True, data_dir=data, shipped=True)
    url = server.start()  # the admin user; every service gets its own user
    sup = start_system("valkey-restart", valkey=server)
    admin = aioredis.Redis.from_url(url)
    t0 = time.monotonic()
    figures: dict[str, Any] = {"restarts": 0, "sigkill": 0, "sigterm": 0,
                               "actions_before_kills": 0, "downtime_s": [], "resume_s": [],
                               "lobby_s": [], "stream_positions_compared": 0,
                               "keys_before_after": [], "keys_persistent": [],
                               "keys_expired": [], "log_entries_before_after": [],
                               "streams_groups": []}
    try:
        runs = await asyncio.gather(
            *[_setup(sup.url, g, n, o, f"aof{i}") for i, (g, n, o) in enumerate(GAMES)]
        )
        play = asyncio.gather(*[_play(r) for r in runs])
        ids = [r.game_id for r in runs]

        def duel_seq() -> int:
            g = runs[0].clients[0].games.get(runs[0].game_id)
            return g.seq if g is not None else -1

        for i in range(restarts):
            # mid-game: the long duel has moved on (and is not over)
            while duel_seq() < STEP * (i + 1) and not play.done():
                await asyncio.sleep(0.1)
            await asyncio.sleep(rng.uniform(0.0, 1.5))
            if play.done():
                break
            # no write is acknowledged (and no key expires) from here to the stop: the
            # snapshot below is exactly what the server held when it went down
            await admin.client_pause(60_000, all=False)  # CLIENT PAUSE 60000 WRITE
            before = await _logs(url, ids)
            positions = await _positions(url)
            keyspace = await _keyspace(url)
            if i % 2 == 0:
                server.kill()  # SIGKILL: only what the AOF holds survives
                figures["sigkill"] += 1
            else:
                server.terminate()  # SIGTERM: a clean shutdown
                figures["sigterm"] += 1
            stopped = time.monotonic()
            # the data dir as the restart will load it, read before any service reconnects
            side = EmbeddedValkey(port=free_port(), aof=True, data_dir=data, shipped=True,
                                  passwords=server.passwords)
            side.start()
            try:
                side_positions = await _positions(side.url)
                loaded = _compare_keyspace(keyspace, await _keyspace(side.url))
                side_logs = await _logs(side.url, ids)
            finally:
                side.terminate()
            for g in ids:
                assert side_logs[g] == before[g], f"{g}: the log differs after the restart"
            assert side_positions == positions  # every stream and group, exactly
            figures["keys_before_after"].append([loaded["keys"], loaded["after"]])
            figures["keys_persistent"].append(loaded["persistent"])
            figures["keys_expired"].append(loaded["expired"])
            figures["log_entries_before_after"].append(
                [sum(len(v) for v in before.values()), sum(len(v) for v in side_logs.values())])
            figures["streams_groups"].append(
                [len(positions), sum(len(p["groups"]) for p in positions.values())])
            down = max(0.0, rng.uniform(0.5, 3.0) - (time.monotonic() - stopped))
            await asyncio.sleep(down)
            down = time.monotonic() - stopped
            server.restart()  # same port, data dir, configuration and passwords
            up = time.monotonic()
            after = await _logs(url, ids)
            for g in ids:  # nothing acknowledged before the kill is missing after it
                assert after[g][: len(before[g])] == before[g], f"{g}: the log lost entries"
            figures["stream_positions_compared"] += _no_rollback(positions, await _positions(url))
            await admin.aclose()  # its pooled connection died with the server
            admin = aioredis.Redis.from_url(url)
            log_text = server.log_path.read_text(errors="replace")
            assert "NOPERM" not in log_text and "CRITICAL" not in log_text, log_text[-2000:]
            # figure, not a timed assertion: from Valkey answering to the next applied move
            moved = sum(len(v) for v in after.values())
            while not play.done() and time.monotonic() - up < 30:
                if sum(len(v) for v in (await _logs(url, ids)).values()) > moved:
                    figures["resume_s"].append(round(time.monotonic() - up, 2))
                    break
                await asyncio.sleep(0.05)
            # the lobby answers through the gateway again (its reply channel resubscribed)
            async with Client(sup.url) as c:
                await retry(c.sign_in, f"after-restart-{i}", tries=12, delay=1.0)
                figures["lobby_s"].append(round(time.monotonic() - up, 2))
                t = await retry(c.create_table, "duel", 2, tries=12, delay=1.0)
                assert (await retry(c.get_table, t["table_id"]))["table_id"] == t["table_id"]
            figures["restarts"] += 1
            figures["actions_before_kills"] += sum(len(v) for v in before.values())
            figures["downtime_s"].append(round(down, 2))
        await play
        assert figures["restarts"] >= 1, "the games ended before the first kill"
        totals: dict[str, int] = {}
        for r in runs:
            for k, v in (await _check(r, admin)).items():
                totals[k] = totals.get(k, 0) + v
            for c in r.clients:
                await c.close()
        # the games continued at once: every seat (players and lobby bots) moved and committed
        # for itself after the restart; none waited out a deadline (a refusal during the
        # outage is answered with its cmd_id and the seat decides again)
        assert totals.get("turn_timeouts", 0) == 0, totals
        assert totals.get("defaulted_slots", 0) == 0, totals
        service_restarts = sum(p.restarts for p in sup.procs)
        report(
            "valkey-restart",
            {
                **figures,
                "games": len(runs),
                "lost": 0,
                "duplicated": 0,
                "service_restarts": service_restarts,
                "wall_s": round(time.monotonic() - t0, 1),
                **totals,
            },
        )
    finally:
        await admin.aclose()
        sup.stop()
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
