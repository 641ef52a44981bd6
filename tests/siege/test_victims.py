"""The siege, measured on its victims (issue 28): a normal player plays a duel against a bot
while each attack runs from other accounts, and keeps >= 90% of its baseline frame rate with
its gap between view frames (p99) within 2x the baseline; Valkey's used_memory grows by at
most 1 MiB across 10,000 refused requests of every kind; no acknowledged action is lost (the
victim's receipts all stand in the record, the game verifies).

Attacks, one at a time, each for PHASE_S seconds: sockets that watch the victim's game and
never read; 60 KiB body floods; act and commit floods on the victim's game from an account
with no seat; table and bot floods up to the quotas; slow-loris heads; lobby listing floods;
sockets opened and reopened on one token until refused. Loopback is exempt from the per-IP
limits (the default), so nothing here is throttled by address: what protects the victim is
isolation (per-connection queues, per-account quotas, bounded work), not a rate limit.

A measurement, so never in ``make test``: ``make siege-small`` runs it small,
``make siege`` full size, with the figures (before / during / after each attack) in
test-output/siege/victims.json."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import os
import socket
import statistics
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.siege.conftest import report
from tests.siege.rawws import RawWs

# frame rates under attack: `make siege` / `make siege-small`, never `make test` (whose siege
# tests are the limit checks in the other files)
pytestmark = [pytest.mark.siege, pytest.mark.slow, pytest.mark.timeout(1800)]

FULL = os.environ.get("EMPIRE_SIEGE_SCALE", "small").lower() == "full"
PHASE_S = 20.0 if FULL else 4.0
AFTER_S = 5.0 if FULL else 2.0
# the victim plays from 127.0.0.1 (exempt from the per-IP limits, as a single test client must
# be); the attackers from other loopback addresses, as strangers on the internet would
ATTACKER_IPS = [f"127.0.0.{i}" for i in range(2, 10)]
# the bounds of the issue (>= 90% of the baseline frame rate, p99 gap <= 2x) are asserted at
# full size (make siege, on a quiet machine); the small run in make test shares 2 cores with
# the whole system, the attacker processes and the rest of the suite, and asserts that no
# attack stops the victim's game (it keeps >= 10% of its pace)
MIN_RATE, MAX_P99 = (0.9, 2.0) if FULL else (0.1, None)
STALLED_SOCKETS = 200 if FULL else 24
LORIS = 500 if FULL else 60
REFUSED_TOTAL = 10_000 if FULL else 1_400


def _discard(ws: RawWs) -> None:
    """Read whatever replies are waiting (an attacker that never reads is closed 4008)."""
    with contextlib.suppress(Exception):
        while True:
            ws.recv(timeout=0.001)


def p99(xs: list[float]) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


@dataclass
class Victim:
    """One player's duels against a bot, back to back, watched frame by frame."""

    client: Client
    game_id: str = ""
    games: list[str] = field(default_factory=list)
    frames: list[tuple[str, float]] = field(default_factory=list)  # (game, arrival time)
    task: asyncio.Task[Any] | None = None

    async def _one(self) -> None:
        t = await self.client.create_table("duel", 2, {"rounds": 100})
        await self.client.add_bot(t["table_id"])
        self.game_id = await self.client.start(t["table_id"])
        self.games.append(self.game_id)
        session = await self.client.watch(self.game_id)
        on_view = session.on_view

        gid = self.game_id

        def timed(msg: dict[str, Any]) -> None:
            self.frames.append((gid, time.monotonic()))
            on_view(msg)

        session.on_view = timed  # type: ignore[method-assign]
        await play_seat(self.client, self.game_id)

    async def _run(self) -> None:
        while True:
            await self._one()

    async def start(self) -> None:
        self.task = asyncio.create_task(self._run())
        while not self.game_id:
            await asyncio.sleep(0.05)

    def window(self, t0: float, t1: float) -> dict[str, float]:
        """The frame rate and the gaps between consecutive frames while a game is in play
        (the pause between two games, a table being set up, is neither play nor a gap)."""
        inside = [(g, t) for g, t in self.frames if t0 <= t < t1]
        gaps = [b - a for (ga, a), (gb, b) in itertools.pairwise(inside) if ga == gb]
        playing = sum(gaps)
        return {"frames_per_s": round(len(gaps) / playing, 1) if playing else 0.0,
                "frames": len(inside),
                "gap_p99_ms": round(p99(gaps) * 1000, 1),
                "gap_median_ms": round(statistics.median(gaps) * 1000, 1) if gaps else 0.0}


_IP_OF: dict[str, str] = {}


def _ip(token: str) -> str:
    """Each attacker account attacks from its own address."""
    return _IP_OF.setdefault(token, ATTACKER_IPS[len(_IP_OF) % len(ATTACKER_IPS)])


def _http(url: str, ip: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, timeout=10,
                             transport=httpx.AsyncHTTPTransport(local_address=ip))


async def _accounts(url: str, n: int, prefix: str) -> list[str]:
    tokens = []
    for i in range(n):
        async with Client(url) as c:
            await c.sign_in(f"{prefix}-{i}")
            assert c.token
            tokens.append(c.token)
    return tokens


async def _until(stop: float, job: Callable[[], Awaitable[None]]) -> int:
    n = 0
    while time.monotonic() < stop:
        with contextlib.suppress(Exception):
            await job()
        n += 1
    return n


# -- the attacks: each runs until ``stop`` and returns what it did ----------------------------

async def stalled_readers(url: str, tokens: list[str], game_id: str, stop: float) -> dict[str, int]:
    def open_one(tok: str) -> RawWs | None:
        try:
            ws = RawWs(url, tok, rcvbuf=4096, source=_ip(tok)).connect()
            ws.send(f'{{"type":"watch","game_id":"{game_id}","cmd_id":"w1"}}')
            return ws
        except Exception:
            return None

    socks = [await asyncio.to_thread(open_one, tokens[i % len(tokens)])
             for i in range(STALLED_SOCKETS)]
    await asyncio.sleep(max(0.0, stop - time.monotonic()))
    for s in socks:
        if s is not None:
            s.close()
    return {"stalled_sockets": sum(1 for s in socks if s is not None)}


async def body_flood(url: str, tokens: list[str], game_id: str, stop: float) -> dict[str, int]:
    body = b'{"name":"' + b"x" * 60_000 + b'"}'

    async def flood(ip: str) -> int:
        async with _http(url, ip) as http:
            async def one() -> None:
                await http.post("/api/players", content=body,
                                headers={"content-type": "application/json"})
            return await _until(stop, one)

    counts = await asyncio.gather(*(flood(ip) for ip in ATTACKER_IPS[:6]))
    return {"bodies_sent": sum(counts)}


async def act_flood(url: str, tokens: list[str], game_id: str, stop: float) -> dict[str, int]:
    def flood(tok: str) -> int:
        ws = RawWs(url, tok, source=_ip(tok)).connect()
        n = 0
        try:
            while time.monotonic() < stop:
                ws.send(f'{{"type":"act","game_id":"{game_id}","cmd_id":"a{n}",'
                        f'"action":{{"pick":{n % 10}}},"expected_seq":1}}')
                ws.send(f'{{"type":"commit","game_id":"{game_id}","cmd_id":"c{n}",'
                        f'"round_id":"r","slot":"s1","commitment":"{"0" * 64}"}}')
                n += 2
                if n % 64 == 0:
                    _discard(ws)
        except Exception:
            pass
        finally:
            ws.close()
        return n

    sent = await asyncio.gather(*(asyncio.to_thread(flood, t) for t in tokens[:3]))
    return {"frames_sent": sum(sent)}


async def table_and_bot_flood(url: str, tokens: list[str], game_id: str,
                              stop: float) -> dict[str, int]:
    made, refused = 0, 0

    async def one(tok: str) -> None:
        nonlocal made, refused
        auth = {"authorization": f"Bearer {tok}"}
        async with _http(url, _ip(tok)) as http:
            while time.monotonic() < stop:
                r = await http.post("/api/tables", headers=auth, json={
                    "game": "empire", "seats": 4, "options": {"version": "beginner"}})
                if r.status_code != 200:
                    refused += 1
                    await asyncio.sleep(0.05)
                    continue
                table_id = r.json()["table"]["table_id"]
                ok = True
                for _ in range(3):
                    ok &= (await http.post(f"/api/tables/{table_id}/bots", headers=auth,
                                           json={"kind": "heuristic"})).status_code == 200
                ok &= (await http.post(f"/api/tables/{table_id}/start",
                                       headers=auth)).status_code == 200
                made += ok
                refused += not ok

    await asyncio.gather(*(one(t) for t in tokens[:3]))
    return {"games_started": made, "refused": refused}


async def slow_loris(url: str, tokens: list[str], game_id: str, stop: float) -> dict[str, int]:
    host, port = url.removeprefix("http://").split(":")
    socks: list[socket.socket] = []
    for i in range(LORIS):
        with contextlib.suppress(OSError):
            s = socket.create_connection((host, int(port)), timeout=2,
                                         source_address=(ATTACKER_IPS[i % len(ATTACKER_IPS)], 0))
            s.setblocking(False)
            s.send(b"GET /api/games HTTP/1.1\r\n")
            socks.append(s)
    while time.monotonic() < stop:
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(b"X")
        await asyncio.sleep(1.0)
    for s in socks:
        s.close()
    return {"loris_sockets": len(socks)}


async def listing_flood(url: str, tokens: list[str], game_id: str,
                        stop: float) -> dict[str, int]:
    async def flood(ip: str) -> int:
        async with _http(url, ip) as http:
            async def one() -> None:
                await http.get("/api/tables")
            return await _until(stop, one)

    counts = await asyncio.gather(*(flood(ATTACKER_IPS[i % 8]) for i in range(12)))
    return {"listings": sum(counts)}


async def socket_churn(url: str, tokens: list[str], game_id: str, stop: float) -> dict[str, int]:
    def churn() -> tuple[int, int]:
        opened, refused = 0, 0
        while time.monotonic() < stop:
            batch = []
            for _ in range(40):
                try:
                    ws = RawWs(url, tokens[0], source=ATTACKER_IPS[0]).connect()
                    if ws.status != 101:
                        refused += 1
                        ws.close()
                        continue
                    batch.append(ws)
                    opened += 1
                except Exception:
                    refused += 1
            for ws in batch:
                ws.close()
        return opened, refused

    opened, refused = await asyncio.to_thread(churn)
    return {"sockets_opened": opened, "handshakes_refused": refused}


ATTACKS: dict[str, Callable[[str, list[str], str, float], Awaitable[dict[str, int]]]] = {
    "stalled_readers": stalled_readers,
    "body_flood": body_flood,
    "act_flood": act_flood,
    "table_and_bot_flood": table_and_bot_flood,
    "slow_loris": slow_loris,
    "listing_flood": listing_flood,
    "socket_churn": socket_churn,
}


def run_attack(name: str, url: str, tokens: list[str], game_id: str,
               seconds: float) -> dict[str, int]:
    """One attack in a process of its own: the attacker's work must not run on the victim
    client's event loop (or hold its GIL), as it would not on the internet."""
    return asyncio.run(ATTACKS[name](url, tokens, game_id, time.monotonic() + seconds))


async def refused_requests(url: str, token: str, game_id: str, n: int) -> dict[str, int]:
    """``n`` refused requests of every kind; returns how many of each were refused."""
    kinds: dict[str, int] = {}
    per = n // 7
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        auth = {"authorization": f"Bearer {token}"}
        probes: list[tuple[str, Callable[[], Awaitable[httpx.Response]]]] = [
            ("too_large", lambda: http.post("/api/players", content=b"{" + b" " * 20_000 + b"}",
                                            headers={"content-type": "application/json"})),
            ("malformed", lambda: http.post("/api/tables", content=b'{"game":', headers=auth)),
            ("unauthenticated", lambda: http.post("/api/tables", json={"game": "duel"})),
            ("bad_options", lambda: http.post("/api/tables", headers=auth, json={
                "game": "duel", "seats": 2, "options": {"rounds": "x" * 500}})),
            ("not_found", lambda: http.post("/api/tables/t-nope/join", headers=auth)),
        ]
        for name, probe in probes:
            refused = 0
            for _ in range(per):
                r = await probe()
                refused += r.status_code >= 400
            kinds[name] = refused

    def frames() -> tuple[int, int]:
        ws = RawWs(url, token).connect()
        acts = commits = 0
        try:
            for i in range(per):
                ws.send(f'{{"type":"act","game_id":"{game_id}","cmd_id":"m{i}",'
                        f'"action":{{"pick":1}},"expected_seq":0}}')
                acts += 1
                ws.send(f'{{"type":"commit","game_id":"{game_id}","cmd_id":"n{i}",'
                        f'"round_id":"r","slot":"s0","commitment":"{"0" * 64}"}}')
                commits += 1
                if i % 32 == 0:
                    _discard(ws)
        finally:
            ws.close()
        return acts, commits

    kinds["refused_acts"], kinds["refused_commits"] = await asyncio.to_thread(frames)
    return kinds


async def test_victims_keep_their_pace_and_valkey_keeps_its_memory() -> None:
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/siege/logs/victims"),
                     env_extra={"EMPIRE_RATE_EXEMPT_IPS": "127.0.0.1/32"})
    sup.start(wait=180)
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    figures: dict[str, Any] = {"scale": "full" if FULL else "small", "phase_s": PHASE_S}
    try:
        async with Client(sup.url) as player:
            await player.sign_in("victim")
            victim = Victim(player)
            await victim.start()
            attackers = await _accounts(sup.url, 8, "attacker")
            await asyncio.sleep(2.0)  # warm up
            t0 = time.monotonic()
            await asyncio.sleep(PHASE_S)
            baseline = victim.window(t0, time.monotonic())
            figures["baseline"] = baseline
            loop = asyncio.get_running_loop()
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            await loop.run_in_executor(pool, int, 0)  # the attacker process is up before t0
            for name in ATTACKS:
                t0 = time.monotonic()
                did = await loop.run_in_executor(pool, run_attack, name, sup.url, attackers,
                                                 victim.game_id, PHASE_S)
                during = victim.window(t0, time.monotonic())
                t1 = time.monotonic()
                await asyncio.sleep(AFTER_S)
                after = victim.window(t1, time.monotonic())
                figures[name] = {"attack": did, "during": during, "after": after}
            pool.shutdown()
            assert victim.task is not None and not victim.task.done(), "the victim's game stopped"
            # memory: refused requests leave nothing behind
            await asyncio.sleep(1.0)
            before = int((await admin.info("memory"))["used_memory"])
            refused = await refused_requests(sup.url, attackers[-1], victim.game_id,
                                             REFUSED_TOTAL)
            await asyncio.sleep(1.0)
            grown = int((await admin.info("memory"))["used_memory"]) - before
            figures["refused"] = refused
            figures["used_memory_growth_bytes"] = grown
            # no acknowledged action lost: every receipt stands in the record of its game
            victim.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await victim.task
            acked = 0
            for gid in victim.games:
                session = player.games[gid]
                assert session.verify_reveals() == [], gid
                acked += sum(1 for r in session.receipts.values() if r.acknowledged)
            figures["victim_games"] = len(victim.games)
            figures["victim_commits_acknowledged"] = acked
        report("victims", figures)
        base = figures["baseline"]
        for name in ATTACKS:
            during = figures[name]["during"]
            assert during["frames_per_s"] >= MIN_RATE * base["frames_per_s"], (name, during, base)
            assert during["frames"] > 0, (name, during)
            if MAX_P99 is not None:
                assert during["gap_p99_ms"] <= MAX_P99 * max(base["gap_p99_ms"], 50.0), (
                    name, during)
        assert grown <= 1024 * 1024, grown
        assert sum(refused.values()) >= REFUSED_TOTAL // 7 * 7 * 0.99
    finally:
        await admin.aclose()
        sup.stop()
