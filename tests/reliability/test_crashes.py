"""Crashes: SIGKILL random service processes at random moments while bots play every hosted
game; two replicas of every service (the gateway's share one port), restarted by the
supervisor's watchdog. Every game must finish with 0 lost and 0 duplicated actions and a
final state equal to a replay of its move log.

Our own SDK clients play all seats but one (a lobby bot, played by the bots service, takes
the last seat so the bot runner is crash-tested too); they journal every command they send
and every reply. After each game:
- every command acknowledged ``accepted`` appears in the move log at most once, and if it is
  absent the adjudicator recorded a typed refusal for it (else it was lost);
- the log's seat commands are exactly the commands the adjudicator recorded as applied, each
  once, and every one we sent was sent by us (nothing forged, nothing applied twice);
- every sealed choice acknowledged ``committed`` is in the reveal, not defaulted;
- replaying the log through the engine gives the adjudicator's stored state, every seat's
  last view, the spectator's view and the scored result;
- the public record verifies (``shared.fairness.verify``) and no message was dead-lettered.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis
import websockets

from clients.sdk import ApiError
from clients.sdk.bot_player import play_seat
from services.supervisor import SERVICES, Supervisor
from shared.fairness.verify import verify
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.rules import registry
from shared.runtime.jsonutil import loads
from tests.reliability.conftest import (
    FULL,
    RecordingClient,
    replay,
    report,
    retry,
    size,
    start_system,
    transient,
)

pytestmark = [pytest.mark.reliability, pytest.mark.full, pytest.mark.timeout(size(600, 7200))]

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("duel", 3, {"rounds": 3}),
    ("empire", 3, {"version": "beginner"}),
    ("empire-engine", 2 if not FULL else 3, {}),
    ("empires-end", 2, {}),
    ("empire-nyc", 3, {}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 60 if not FULL else 120}),
]
if FULL:
    GAMES += [("empire", 4, {"version": "standard"}), ("duel", 4, {"rounds": 5})]
GAME_TIMEOUT_S = 900.0


@dataclass
class GameRun:
    game: str
    seats: int
    options: dict[str, Any]
    game_id: str = ""
    clients: list[RecordingClient] = field(default_factory=list)
    replays_of_play_seat: int = 0
    figures: dict[str, int] = field(default_factory=dict)


async def _setup(url: str, game: str, seats: int, options: dict[str, Any], tag: str) -> GameRun:
    run = GameRun(game, seats, options)
    humans = seats - 1  # the last seat is a lobby bot
    for i in range(humans):
        c = RecordingClient(url)
        # a restarting gateway may take long on a busy machine: keep trying (5 min)
        c.reconnect_delays = (0.1, 0.2, 0.5, 1, *(2.0,) * 150)
        await retry(c.sign_in, f"{tag}-{i}")
        run.clients.append(c)
    host = run.clients[0]
    table = await retry(host.create_table, game, seats, options)
    tid = table["table_id"]
    for c in run.clients[1:]:
        await retry(c.join, tid)
    try:
        await retry(host.add_bot, tid)
    except ApiError as exc:  # a retried add after a lost reply: the seat is taken already
        if exc.code != "lobby/table_full":
            raise
    t = await retry(host.get_table, tid)
    assert len(t["players"]) == seats, t
    # a retried start after a lost reply or a failed step finishes that start (same game)
    run.game_id = await retry(host.start, tid)
    return run


async def _play(run: GameRun, also_transient: tuple[type[Exception], ...] = ()) -> None:
    """Every seat of ours plays to the end; ``also_transient``: more errors after which a seat
    decides again (the fault tier: an HTTP call whose link was cut)."""
    async def seat(c: RecordingClient) -> None:
        for _ in range(10_000):  # bounded: every retry waits 0.2 s (and the game's timeout)
            try:
                session = await play_seat(c, run.game_id)
                if session.ended:
                    return
            except (
                TimeoutError,
                ConnectionError,
                OSError,
                websockets.WebSocketException,
                ApiError,
                *also_transient,
            ) as exc:
                # a reply that never came (its connection died first) or a server that was
                # briefly unavailable: decide again from the latest view; the command itself
                # is checked against the log below
                run.replays_of_play_seat += 1
                if isinstance(exc, ConnectionError) and c._closing:
                    raise
                if isinstance(exc, ApiError) and not transient(exc):
                    raise
            await asyncio.sleep(0.2)

    await asyncio.wait_for(asyncio.gather(*[seat(c) for c in run.clients]), GAME_TIMEOUT_S)


async def _finished_record(run: GameRun) -> tuple[dict[str, Any], dict[str, Any]]:
    c = run.clients[0]
    deadline = time.monotonic() + 120
    while True:
        rec = await retry(c.record, run.game_id)
        if rec.get("log") is not None and any(
            e.get("type") == "seed_revealed" for e in rec["record"]
        ):
            try:
                return rec, await c.result(run.game_id)
            except ApiError:
                pass
        assert time.monotonic() < deadline, f"{run.game_id}: no reveal/result after the end"
        await asyncio.sleep(0.3)


async def _outcomes(admin: Any, k: Keys, seats: int) -> dict[str, dict[str, Any]]:
    """Every command id the adjudicator applied or refused in this game, with its result."""
    raw = await admin.hgetall(k.cmds)  # "<seat>|<cmd_id>": ids are per (game, seat)
    results = {a.decode().split("|", 1)[-1]: loads(b) for a, b in raw.items()}
    for seat in range(seats):  # refused ids: each seat's latest, with a TTL
        for c in await admin.zrange(k.refusals(seat), 0, -1):
            results.setdefault(c.decode(), {"rejected": "?"})
    return results


async def _check(run: GameRun, admin: Any) -> dict[str, int]:
    """The lost / duplicated / replay checks of one finished game; returns its figures."""
    rec, result = await _finished_record(run)
    k = Keys(run.game_id)
    log = rec["log"]
    problems, counts = verify(rec)
    assert problems == [], (run.game, run.game_id, problems)

    # -- actions: 0 lost, 0 duplicated --------------------------------------------------
    log_cmds = [e["cmd_id"] for e in log if e.get("by") == "seat"]
    dup = [c for c, n in Counter(log_cmds).items() if n > 1]
    assert not dup, f"{run.game_id}: commands applied twice: {dup}"
    results = await _outcomes(admin, k, run.seats)
    applied = {c for c, r in results.items() if "rejected" not in r}
    assert applied == set(log_cmds), (
        f"{run.game_id}: applied ids {sorted(applied ^ set(log_cmds))} differ from the log"
    )
    sent = {c: m for cl in run.clients for c, m in cl.sent.items()}
    answers = {c: a for cl in run.clients for c, a in cl.answers.items()}
    our_seats = set(range(run.seats - 1))
    mine_in_log = [e for e in log if e.get("by") == "seat" and e["seat"] in our_seats]
    forged = [e["cmd_id"] for e in mine_in_log if e["cmd_id"] not in sent]
    assert not forged, f"{run.game_id}: applied commands nobody of ours sent: {forged}"
    lost = []
    acked = 0
    for cmd, msg in sent.items():
        if msg["type"] != "act":
            continue
        if any(a["type"] == "accepted" for a in answers.get(cmd, [])):
            acked += 1
            if cmd not in applied and "rejected" not in results.get(cmd, {}):
                lost.append(cmd)
    # an accepted act a killed adjudicator had read but not answered waits in its pending
    # list until a survivor reclaims it (XAUTOCLAIM after RECLAIM_IDLE_MS) and refuses it
    # (the game has ended): the game can end first, so its outcome may come a little later
    deadline = time.monotonic() + 10 + 3 * streams.RECLAIM_IDLE_MS / 1000
    while lost and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        results = await _outcomes(admin, k, run.seats)
        lost = [c for c in lost if c not in results]
    assert not lost, f"{run.game_id}: accepted but neither applied nor refused: {lost}"
    for cl in run.clients:
        assert cl.view_cmds <= set(log_cmds), f"{run.game_id}: a view named an unlogged cmd"

    # -- sealed choices: every acknowledged commitment is revealed, not defaulted ----------
    revealed = {
        (e["round_id"], o["slot"]): o
        for e in rec["record"]
        if e.get("type") == "round_revealed"
        for o in e["openings"]
    }
    committed_entries = Counter(
        (e["round_id"], e["slot"]) for e in rec["record"] if e.get("type") == "committed"
    )
    assert all(n == 1 for n in committed_entries.values()), f"{run.game_id}: double commit"
    commits_acked = 0
    for cl in run.clients:
        session = cl.games[run.game_id]
        for key, receipt in session.receipts.items():
            if not receipt.acknowledged:
                continue
            commits_acked += 1
            o = revealed.get((receipt.round_id, receipt.slot))
            assert o is not None and not o["defaulted"] and o["commitment"] == receipt.commitment, (
                f"{run.game_id}: {key} lost"
            )
        assert session.verify_reveals() == []

    # -- replay ---------------------------------------------------------------------------
    meta = await admin.get(k.meta)
    options = loads(meta)["options"]
    game = registry.get(run.game)
    state = replay(run.game, options, run.seats, log)
    stored = loads(await admin.hget(k.state, "doc"))
    assert game.encode(state) == stored["engine"], f"{run.game_id}: replay != stored state"
    spec = await admin.xrevrange(k.spectator, count=1)
    assert loads(spec[0][1][b"d"])["view"] == game.view(state, None)
    for seat, cl in enumerate(run.clients):
        view = cl.games[run.game_id].view
        assert view is not None and view["view"] == game.view(state, seat)
    assert game.score(state).model_dump(mode="json") == result["outcome"]
    return {
        "moves": len(log),
        "seat_commands_applied": len(log_cmds),
        "accepted_acts": acked,
        "acked_commits": commits_acked,
        "resent": sum(n - 1 for cl in run.clients for n in cl.sends.values()),
        "reconnects": sum(cl.reconnects for cl in run.clients),
        "draws": counts["draws"],
        "sealed_rounds": counts["rounds"],
        "turn_timeouts": sum(1 for e in log if e.get("by") == "timeout"),
        "defaulted_slots": sum(
            len(e["defaulted"]) for e in rec["record"] if e.get("type") == "round_closed"
        ),
    }


async def _killer(
    sup: Supervisor,
    rng: random.Random,
    stop: asyncio.Event,
    kills: Counter[str],
    gap: tuple[float, float],
    target: int,
) -> None:
    """SIGKILL a random live replica every ``gap`` seconds until ``target`` kills."""
    while not stop.is_set() and sum(kills.values()) < target:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.uniform(*gap))
        if stop.is_set():
            return
        up = [
            p
            for p in sup.procs
            if p.popen is not None and p.popen.poll() is None and time.monotonic() - p.started > 3.0
        ]
        if up:
            p = rng.choice(up)
            sup.kill(p.service, p.index)
            kills[p.service] += 1


async def test_random_sigkills_lose_and_duplicate_nothing() -> None:
    seed = int(time.time())
    rng = random.Random(seed)
    target = size(12, 200)
    sup = start_system("crashes", replicas=dict.fromkeys(SERVICES, 2))
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    kills: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    per_game: Counter[str] = Counter()
    t0 = time.monotonic()
    try:
        stop = asyncio.Event()
        killer = asyncio.create_task(_killer(sup, rng, stop, kills, (1.5, 4.0), target))
        wave = 0
        while wave == 0 or sum(kills.values()) < target:  # waves of games until the target
            wave += 1
            batch = GAMES
            runs = await asyncio.gather(
                *[_setup(sup.url, g, n, o, f"w{wave}-{i}") for i, (g, n, o) in enumerate(batch)]
            )
            try:
                await asyncio.gather(*[_play(r) for r in runs])
            finally:
                for r in runs:
                    totals["harness_replays"] += r.replays_of_play_seat
            for r in runs:
                totals.update(await _check(r, admin))
                per_game[r.game] += 1
                for cl in r.clients:
                    await cl.close()
        stop.set()
        await killer
        assert sum(kills.values()) >= target
        assert set(kills) == set(SERVICES) or not FULL, kills
        dead = (
            await admin.xlen(streams.DEAD_LETTERS)
            if await admin.exists(streams.DEAD_LETTERS)
            else 0
        )
        assert dead == 0, f"{dead} messages dead-lettered"
        restarts = {s: sum(p.restarts for p in sup.procs if p.service == s) for s in SERVICES}
        report(
            "crashes",
            {
                "seed": seed,
                "kills": sum(kills.values()),
                "kills_by_service": dict(kills),
                "restarts_by_service": restarts,
                "games": sum(per_game.values()),
                "games_by_kind": dict(per_game),
                "lost": 0,
                "duplicated": 0,
                "replays_equal": sum(per_game.values()),
                "dead_letters": dead,
                "wall_s": round(time.monotonic() - t0, 1),
                **dict(totals),
            },
        )
    finally:
        await admin.aclose()
        sup.stop()


async def test_one_replica_of_every_service_killed_mid_game_the_others_finish() -> None:
    """Two replicas of every service against one server (the gateways share one
    port); mid-game one replica of each service is SIGKILLed and kept down. The survivors
    reclaim what the dead left pending (XAUTOCLAIM), the clients reconnect to the surviving
    gateway, and every game finishes with nothing lost or duplicated (the checks above)."""
    sup = start_system("replicas", replicas=dict.fromkeys(SERVICES, 2))
    admin = aioredis.Redis.from_url(sup.redis_url or "")
    t0 = time.monotonic()
    totals: Counter[str] = Counter()
    try:
        batch = [g for g in GAMES if g[0] in ("duel", "empire", "empire-engine", "empires-end")]
        runs = await asyncio.gather(
            *[_setup(sup.url, g, n, o, f"rep-{i}") for i, (g, n, o) in enumerate(batch)]
        )
        play = asyncio.gather(*[_play(r) for r in runs])
        await asyncio.sleep(2.0)  # the games are under way
        for svc in SERVICES:
            sup.kill(svc, 0, restart=False)
        killed_at = round(time.monotonic() - t0, 1)
        await play
        for r in runs:
            totals.update(await _check(r, admin))
            for cl in r.clients:
                await cl.close()
        down = [p for p in sup.procs if p.index == 0]
        assert all(p.popen is not None and p.popen.poll() is not None for p in down)
        assert all(p.restarts == 0 for p in sup.procs), "a surviving replica died"
        report(
            "replicas",
            {
                "replicas_per_service": 2,
                "killed": [f"{p.service}-0" for p in down],
                "killed_at_s": killed_at,
                "games": len(runs),
                "games_by_kind": dict(Counter(r.game for r in runs)),
                "lost": 0,
                "duplicated": 0,
                "wall_s": round(time.monotonic() - t0, 1),
                **dict(totals),
            },
        )
    finally:
        await admin.aclose()
        sup.stop()
