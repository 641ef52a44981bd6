"""Secrecy, part 2: escrow canaries. Every sealed choice is committed with a fresh 32-byte
nonce, a unique canary. Over many sealed rounds played through the whole system (duel's
commit-reveal variant: every round is sealed), no canary may appear

- in any seat's or a spectator's WebSocket stream before its round closes (after the close
  the reveal carries it, as it should);
- anywhere in the adjudicator's input streams, its state, its move log or the view streams
  (the adjudicator only ever receives revealed choices, never an opening);
- in the gateway fan-out stream, in any service's log lines, or in the metrics;
- in any command written to the escrow's input streams (esc:commits:*, seen through MONITOR as
  the gateway sends them): the openings cross the gateway sealed to the escrow's key,
  so neither the gateway nor its Redis user ever holds one in clear.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from clients.sdk import Client, GameSession
from services.supervisor import Supervisor
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.settings import Settings
from tests.reliability.conftest import report, retry, size
from tests.reliability.conftest import until as _until

pytestmark = [pytest.mark.reliability, pytest.mark.timeout(size(600, 7200))]

HEX64 = re.compile(r"[0-9a-f]{64}")
ROUNDS_PER_GAME = 50


async def _seat(g: GameSession, rng: random.Random) -> None:
    """Commit a random pick in every sealed round until the end."""
    while not g.ended:
        v = g.view
        assert v is not None
        node = v["node"]
        if node["kind"] == "simultaneous":
            rid = node["round_id"]
            key = f"s{g.seat}"
            if f"{rid}/{key}" not in g.receipts:
                choice: Any = "" if rid == "entropy" else rng.randrange(10)
                await g.commit(rid, key, choice)
        with contextlib.suppress(TimeoutError):
            await g.wait(1.0)


async def _one_game(url: str, i: int) -> tuple[list[Client], GameSession, GameSession]:
    a, b, spec = (Client(url, capture=True) for _ in range(3))
    await retry(a.sign_in, f"can-a{i}")
    await retry(b.sign_in, f"can-b{i}")
    await retry(spec.sign_in, f"can-s{i}")
    t = await retry(
        a.create_table,
        "duel",
        2,
        {"rounds": ROUNDS_PER_GAME, "with_turns": False, "with_dice": False},
    )
    await retry(b.join, t["table_id"])
    gid = await retry(a.start, t["table_id"])
    ga, gb = await a.watch(gid), await b.watch(gid)
    await spec.watch(gid)
    rng = random.Random(i)
    await asyncio.wait_for(asyncio.gather(_seat(ga, rng), _seat(gb, rng)), 600)
    await _until(lambda: any(e.get("type") == "game_ended" for e in ga.record), ga)
    return [a, b, spec], ga, gb


def _parts(frame: str) -> list[str]:
    """What a frame delivers, in order: a protocol version 3 frame as the record
    entries it carries (each as the ``record`` frame a version 2 watch gets), then its view;
    any other frame as itself. A canary is judged against the closes delivered before it."""
    if '"records"' not in frame:
        return [frame]
    msg = json.loads(frame)
    items = msg.pop("records", None)
    if not isinstance(items, list):
        return [frame]
    out = [json.dumps({"type": "record", "game_id": msg.get("game_id"), **item})
           for item in items]
    return out + ([json.dumps(msg)] if msg.get("type") == "view" else [])


def _leaks_in_stream(frames: list[str], nonces: dict[str, str]) -> list[str]:
    """Canaries seen in a stream before their round closed (nonce -> round id)."""
    closed: set[str] = set()
    leaks = []
    for f in (part for frame in frames for part in _parts(frame)):
        for h in HEX64.findall(f):
            rid = nonces.get(h)
            if rid is not None and rid not in closed:
                leaks.append(f"{rid}: {f[:120]}")
        if '"round_closed"' in f or '"round_revealed"' in f:
            for m in re.finditer(r'"round_id":\s*"([^"]+)"', f):
                closed.add(m.group(1))
    return leaks


async def _stream_text(admin: Any, key: str) -> str:
    out = []
    last = "-"
    while True:
        batch = await admin.xrange(key, min=last, count=2000)
        out += [repr(fields) for _, fields in batch]
        if len(batch) < 2000:
            return "".join(out)
        last = "(" + batch[-1][0].decode()


async def test_escrow_canaries_never_leak_before_the_round_closes(hall: Supervisor) -> None:
    games = size(4, 200)
    t0 = time.monotonic()
    sem = asyncio.Semaphore(8)
    scrapes: list[str] = []
    done = asyncio.Event()

    # every process's /metrics: each one's metrics port (the gateway's too: not its public one)
    targets = [f"http://127.0.0.1:{p.metrics_port}/metrics" for p in hall.procs
               if p.metrics_port]
    assert len(targets) == len(hall.procs), "a service serves no /metrics"

    async def scrape() -> None:
        async with httpx.AsyncClient() as http:
            while True:
                for url in targets:
                    with contextlib.suppress(httpx.HTTPError):
                        scrapes.append((await http.get(url)).text)
                if done.is_set():
                    break  # one more pass after the last round closed
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), 2.0)

    async def one(i: int) -> tuple[list[Client], GameSession, GameSession]:
        async with sem:
            return await _one_game(hall.url, i)

    # every command that writes the escrow's input streams, as the server receives it
    to_escrow: list[str] = []
    monitor_conn = aioredis.Redis.from_url(hall.redis_url or "")

    async def monitor() -> None:  # until cancelled once every game has ended
        async with monitor_conn.monitor() as m:
            await m.connect()
            while True:
                text = str((await m.next_command()).get("command", ""))
                # the entries appended to the stream; the escrow's own step names the stream
                # too, to acknowledge the entry it consumed, beside the opening it stores
                if text[:5].upper() == "XADD " and streams.ESC_COMMITS in text:
                    to_escrow.append(text)

    monitoring = asyncio.create_task(monitor())
    scraper = asyncio.create_task(scrape())
    await asyncio.sleep(0.2)  # MONITOR is on before the first commit
    results = await asyncio.gather(*[one(i) for i in range(games)])
    done.set()
    await scraper
    monitoring.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await monitoring
    await monitor_conn.aclose()
    admin = aioredis.Redis.from_url(hall.redis_url or "")
    try:
        nonces: dict[str, str] = {}
        rounds = 0
        for _, ga, gb in results:
            for g in (ga, gb):
                for r in g.receipts.values():
                    assert r.acknowledged
                    nonces[r.nonce] = r.round_id
            rounds += len({r.round_id for r in ga.receipts.values()})
        assert len(nonces) == 2 * rounds  # every canary unique
        leaks = []
        frames = 0
        for clients, _, _ in results:
            for c in clients:
                assert c.captured is not None
                frames += len(c.captured)
                leaks += _leaks_in_stream(c.captured, nonces)
        assert leaks == [], leaks[:3]
        # the adjudicator's inputs, state, log and views; the fan-out; never a canary
        internal = []
        for base in (
            streams.ADJ_ACTIONS,
            streams.ADJ_REVEALS,
            streams.ADJ_DRAWS,
            streams.ADJ_CONTROL,
        ):
            internal += [f"{base}:{i}" for i in range(hall.partitions)]
        internal += [streams.GW_UPDATES, streams.DEAD_LETTERS,
                     *streams.update_shards(Settings().gw_shards)]
        for _, ga, _ in results:
            k = Keys(ga.game_id)
            internal += [k.log, k.spectator, k.view(0), k.view(1)]
        seen = set()
        for key in internal:
            seen |= set(HEX64.findall(await _stream_text(admin, key)))
        for _, ga, _ in results:
            seen |= set(HEX64.findall(str(await admin.hget(Keys(ga.game_id).state, "doc"))))
        assert not seen & set(nonces), "a canary reached the adjudicator or the fan-out"
        logs = "".join(
            p.read_text(errors="replace") for p in Path(hall.log_dir or ".").glob("*.log")
        )
        assert not set(HEX64.findall(logs)) & set(nonces), "a canary is in a log line"
        assert len(scrapes) >= len(targets)
        assert any("empire_sealed_rounds_open" in t for t in scrapes)  # the escrow's answered
        assert not set(HEX64.findall("".join(scrapes))) & set(nonces), "a canary in /metrics"
        # the gateway -> escrow stream carried every commit, sealed, and never an opening
        commits = [t for t in to_escrow if "commit_choice" in t]
        assert len(commits) >= len(nonces), (len(commits), len(nonces))
        assert all("sealed" in t for t in commits)
        assert not set(HEX64.findall("".join(to_escrow))) & set(nonces), \
            "a canary crossed the gateway -> escrow stream"

        report(
            "canaries",
            {
                "games": games,
                "sealed_rounds": rounds,
                "canaries": len(nonces),
                "frames_checked": frames,
                "internal_streams": len(internal),
                "metrics_scrapes": len(scrapes),
                "metrics_targets": len(targets),
                "escrow_stream_commands": len(to_escrow),
                "leaks": 0,
                "wall_s": round(time.monotonic() - t0, 1),
            },
        )
    finally:
        await admin.aclose()
        for clients, _, _ in results:
            for c in clients:
                await c.close()


def test_the_leak_detector_sees_a_canary_before_the_close() -> None:
    nonce = "ab" * 32
    nonces = {nonce: "pick:1"}
    early = [
        '{"type":"record","entry":{"type":"committed","round_id":"pick:1"}}',
        '{"type":"view","x":"' + nonce + '"}',
    ]
    late = [
        '{"type":"record","entry":{"type":"round_closed","round_id":"pick:1"}}',
        '{"type":"record","entry":{"type":"round_revealed","nonce":"' + nonce + '"}}',
    ]
    assert _leaks_in_stream(early + late, nonces) != []
    assert _leaks_in_stream(late, nonces) == []


def test_the_leak_detector_reads_version_3_frames_entry_by_entry() -> None:
    """A v3 frame carries several record entries and a view: a canary in it counts
    as delivered after the closes listed before it in the frame, and before the others."""
    nonce = "cd" * 32
    nonces = {nonce: "pick:1"}
    revealed = {"type": "round_revealed", "round_id": "pick:1", "nonce": nonce}
    closed = {"type": "round_closed", "round_id": "pick:1"}
    after_close = json.dumps({"type": "view", "v": 3, "records": [
        {"id": "1-0", "entry": closed}, {"id": "2-0", "entry": revealed}], "view": {}})
    before_close = json.dumps({"type": "records", "v": 3, "records": [
        {"id": "1-0", "entry": {"type": "committed", "round_id": "pick:1", "x": nonce}},
        {"id": "2-0", "entry": closed}]})
    in_the_view = json.dumps({"type": "view", "v": 3, "view": {"x": nonce}, "records": [
        {"id": "1-0", "entry": {"type": "committed", "round_id": "pick:1"}}]})
    assert _leaks_in_stream([after_close], nonces) == []
    assert _leaks_in_stream([before_close], nonces) != []
    assert _leaks_in_stream([in_the_view], nonces) != []
