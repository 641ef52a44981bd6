"""Network-fault scenarios: bots and SDK clients play every game, in waves, through
``proxied_system`` while one fault is applied and lifted; then every game is checked.

A scenario runs three phases — ``before`` (a clean link: the baseline), ``during`` (the
fault) and ``after`` (healed) — and then lets the games in flight finish. Each game kind is
played in a loop of its own (a new game when one ends) until the ``after`` phase is over, so
every kind plays through every phase. The checks, per game and for the whole run:

- the reliability tier's ``_check`` (tests/reliability/test_crashes.py): 0 acknowledged
  actions lost, 0 applied twice, every acknowledged commitment revealed and not defaulted,
  the final state = a replay of the log (state, views, score), ``verify`` passes;
- the operation history (tests/faults/history.py) of every act and commit is valid against
  the logs and records: nothing acknowledged lost, nothing applied twice, nothing refused
  applied, nothing phantom, each client's acknowledged commands applied in order;
- no sealed choice's nonce (a unique canary) in any client's frames before its round closed,
  nor in the adjudicator's streams or the fan-out (the canary scan of test_canaries.py);
- deadlines (turn time-outs, defaulted sealed slots) fired only while a fault long enough to
  outlast them was on (or within one deadline after it);
- clients told the truth: every command answered (accepted, committed or a typed refusal such
  as ``message/unavailable``) within ``ANSWER_BOUND_S``, never a silent hang;
- moves are applied again after the fault ends (within ``RESUME_BOUND_S``: a liveness bound,
  generous; the recovery time itself is a figure, not asserted).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis.asyncio as aioredis

from clients.sdk import ApiError
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads
from shared.runtime.settings import Settings
from tests.faults.history import History, check
from tests.faults.system import (
    FULL,
    OUT,
    HistoryClient,
    ProxiedSystem,
    Sampler,
    latencies,
    p99,
    proxied_system,
    report,
    settle_acts,
    silent,
    size,
)
from tests.reliability.conftest import retry
from tests.reliability.test_canaries import HEX64, _leaks_in_stream, _stream_text
from tests.reliability.test_crashes import GameRun, _check
from tests.reliability.test_crashes import _play as _play_run

DEADLINE_MS = 15_000  # turn and round time-outs in every scenario (the default is 120 s)
RESUME_BOUND_S = 60.0
SMALL_GAMES: list[tuple[str, int, dict[str, Any]]] = [("duel", 3, {"rounds": 20})]
FULL_GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("duel", 3, {"rounds": 40}),
    ("empire", 3, {"version": "beginner"}),
    ("empire-engine", 2, {}),
    ("empires-end", 2, {}),
    ("empire-nyc", 3, {}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 60}),
]
GAMES = FULL_GAMES if FULL else SMALL_GAMES
LANES = size(2, 1)  # games of each kind at once (small: two duels, one always under way)
BEFORE_S = size(2.5, 12.0)
AFTER_S = size(4.0, 20.0)


@dataclass
class Marks:
    """The fault's windows: (monotonic on, off, wall-clock ms on, off)."""

    windows: list[tuple[float, float, int, int]] = field(default_factory=list)
    _on: tuple[float, int] | None = None

    def on(self) -> None:
        self._on = (time.monotonic(), int(time.time() * 1000))

    def off(self) -> None:
        assert self._on is not None
        self.windows.append((self._on[0], time.monotonic(), self._on[1],
                             int(time.time() * 1000)))
        self._on = None


@dataclass
class Ctx:
    system: ProxiedSystem
    clients: list[HistoryClient]
    marks: Marks
    figures: dict[str, Any]


Fault = Callable[[Ctx], Awaitable[None]]


@dataclass
class Scenario:
    name: str
    fault: Fault
    replicas: dict[str, int] = field(default_factory=dict)
    small: bool = False  # part of make test-full's small run


# -- faults ------------------------------------------------------------------------------------

def latency(ms: float, jitter_ms: float, hold_s: float) -> Fault:
    """Every service's Valkey link: ``ms`` more per round trip (half each way), ± jitter."""
    async def fault(ctx: Ctx) -> None:
        ctx.marks.on()
        for p in ctx.system.every_link():
            p.set(latency_s=ms / 2000, jitter_s=jitter_ms / 2000)
        await asyncio.sleep(hold_s)
        for p in ctx.system.every_link():
            p.set(latency_s=0.0, jitter_s=0.0)
        ctx.marks.off()
    return fault


def loss(pct: float, hold_s: float) -> Fault:
    """Packet loss on every service link as TCP shows it: a lost segment stalls its
    connection for a retransmission time-out (``pct`` of chunks: 200-ms stall) and now and
    then the connection dies (a tenth of that: a reset)."""
    async def fault(ctx: Ctx) -> None:
        ctx.marks.on()
        for p in ctx.system.every_link():
            p.set(stall_p=pct / 100, stall_s=0.2, reset_p=pct / 1000)
        await asyncio.sleep(hold_s)
        for p in ctx.system.every_link():
            p.set(stall_p=0.0, stall_s=0.0, reset_p=0.0)
        ctx.marks.off()
    return fault


async def _hold_partition(ctx: Ctx, links: list[Any], hold_s: float) -> None:
    """Cut ``links`` for ``hold_s`` (bytes in flight held and delivered after the heal), the
    fault's window marked."""
    ctx.marks.on()
    for p in links:
        p.partition(hold=True)
    await asyncio.sleep(hold_s)
    for p in links:
        p.heal()
    ctx.marks.off()


def partition(service: str, index: int | None, hold_s: float) -> Fault:
    """The replica(s)' Valkey links silently cut (nothing arrives, nothing closes, new
    connections held) for ``hold_s``; their clients' sockets stay up. What was in flight is
    held and delivered after the heal, as TCP retransmits across a real partition."""
    async def fault(ctx: Ctx) -> None:
        links = ctx.system.of(service, index)
        assert links
        await _hold_partition(ctx, links, hold_s)
    return fault


def replicas_partitioned(hold_s: float) -> Fault:
    """One adjudicator and one escrow replica cut off from Valkey; the others serve."""
    async def fault(ctx: Ctx) -> None:
        links = [*ctx.system.of("adjudicator", 0), *ctx.system.of("escrow", 0)]
        await _hold_partition(ctx, links, hold_s)
    return fault


def client_cuts(times: int, cut_s: float) -> Fault:
    """The clients' links to the gateway cut (silently, both ways) the moment a sealed choice
    is sent (mid-commit) or its receipt arrives (mid-reveal: the round closes and reveals
    while they are away), alternately; after ``cut_s`` the cut connections are reset (as a
    NAT forgets them) and the link heals: the clients reconnect, resume and re-send."""
    async def fault(ctx: Ctx) -> None:
        sent = asyncio.Event()
        acked = asyncio.Event()
        hooked: set[int] = set()

        def hook() -> None:  # the clients of games started since (a new game when one ends)
            for c in list(ctx.clients):
                if id(c) not in hooked:
                    hooked.add(id(c))
                    c.on_commit_sent.append(lambda *_: sent.set())
                    c.on_committed.append(lambda *_: acked.set())

        kinds: Counter[str] = Counter()
        for i in range(times):
            ev = sent if i % 2 == 0 else acked
            ev.clear()
            for _ in range(300):  # bounded: 30 s for the next commit
                hook()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ev.wait(), 0.1)
                if ev.is_set():
                    break
            if not ev.is_set():
                break
            kinds["mid_commit" if ev is sent else "mid_reveal"] += 1
            ctx.marks.on()
            ctx.system.front.partition()
            await asyncio.sleep(cut_s)
            ctx.system.front.reset_all()
            ctx.system.front.heal()
            ctx.marks.off()
            await asyncio.sleep(1.0)
        ctx.figures["cuts"] = dict(kinds)
        assert sum(kinds.values()) >= min(times, 2), f"only {dict(kinds)}: no commit to cut"
    return fault


SCENARIOS: list[Scenario] = [
    Scenario("latency-5ms", latency(5, 2, size(4.0, 20.0))),
    Scenario("latency-20ms", latency(20, 5, size(5.0, 20.0))),
    Scenario("latency-100ms", latency(100, 20, size(4.0, 20.0))),
    Scenario("loss-1pct", loss(1, size(4.0, 20.0))),
    Scenario("loss-5pct", loss(5, size(3.0, 20.0)), small=True),
    Scenario("gateway-partition-2s", partition("gateway", None, 2.0), small=True),
    Scenario("gateway-partition-30s", partition("gateway", None, 30.0)),
    Scenario("replica-partition-30s", replicas_partitioned(30.0),
             replicas={"adjudicator": 2, "escrow": 2}),
    Scenario("client-cuts", client_cuts(size(2, 8), 2.0), small=True),
]


# -- the run -------------------------------------------------------------------------------------

async def _setup(url: str, game: str, seats: int, options: dict[str, Any], tag: str,
                 history: History) -> GameRun:
    run = GameRun(game, seats, options)
    for i in range(seats - 1):  # the last seat is a lobby bot (the bots service)
        c = HistoryClient(url, history, f"{tag}-{i}")
        c.reconnect_delays = (0.1, 0.2, 0.5, 1, *(2.0,) * 150)
        await retry(c.sign_in, f"{tag}-{i}")
        run.clients.append(c)
    host = run.clients[0]
    tid = (await retry(host.create_table, game, seats, options))["table_id"]
    for c in run.clients[1:]:
        await retry(c.join, tid)
    try:
        await retry(host.add_bot, tid)
    except ApiError as exc:  # a retried add after a lost reply: the seat is taken already
        if exc.code != "lobby/table_full":
            raise
    try:
        run.game_id = await retry(host.start, tid)
    except ApiError as exc:  # a retried start after a lost reply
        if exc.code != "lobby/already_started":
            raise
        run.game_id = (await retry(host.get_table, tid))["game_id"]
    return run


async def _play(run: GameRun) -> None:
    """Every seat of ours plays to the end (test_crashes._play), and an HTTP call whose link
    was cut is one more transient error: decide again from the latest view."""
    await _play_run(run, also_transient=(httpx.TransportError,))


async def _games_of(kind: int, lane: int, system: ProxiedSystem, history: History,
                    over: asyncio.Event, runs: list[GameRun], clients: list[HistoryClient],
                    ids: list[str]) -> None:
    """Play game kind ``kind`` again and again until ``over`` (``LANES`` of them at once)."""
    game, seats, options = GAMES[kind]
    n = 0
    while not over.is_set() and n < 200:
        run = await _setup(system.url, game, seats, options, f"k{kind}l{lane}g{n}", history)
        n += 1
        runs.append(run)
        clients.extend(c for c in run.clients if isinstance(c, HistoryClient))
        ids.append(run.game_id)
        await _play(run)


ACK_GRACE_MS = 1_000  # an act accepted this long before a deadline must beat it


async def _deadlines(admin: Any, runs: list[GameRun]) -> list[int]:
    """The wall-clock ms of every deadline that fired: turn time-outs in the logs, defaulted
    sealed slots in the records (a stream id's first part is Valkey's clock). A turn's
    time-out must default the right seat: never one whose act for that very turn had been
    acknowledged (accepted) before the deadline; acknowledged commitments are checked by
    ``_check`` (revealed, not defaulted)."""
    fired = []
    for r in runs:
        k = Keys(r.game_id)
        acked: dict[tuple[int, int], list[int]] = {}  # (seat, expected seq) -> accepted at
        for seat, c in enumerate(r.clients):
            for cmd, msg in c.sent.items():
                t = c.timed.get(cmd) if isinstance(c, HistoryClient) else None
                if msg["type"] == "act" and t is not None and t.outcome == "accepted" \
                        and msg.get("expected_seq") is not None:
                    acked.setdefault((seat, int(msg["expected_seq"])), []).append(
                        t.answered_ms)
        for eid, fields in await admin.xrange(k.log):
            e = loads(fields.get(b"d") or b"{}")  # {"seq" (after the move), "by", "seat", ...}
            if e.get("by") != "timeout":
                continue
            at = int(eid.decode().split("-")[0])
            fired.append(at)
            turn = int(e["seq"]) - 1
            early = [a for a in acked.get((int(e["seat"]), turn), []) if a < at - ACK_GRACE_MS]
            assert not early, (f"{r.game_id}: seat {e['seat']} defaulted at seq {turn} though "
                               f"its act for that turn was accepted {at - early[0]} ms before")
        for eid, fields in await admin.xrange(k.record):
            e = loads(fields.get(b"d") or b"{}")
            if e.get("type") == "round_closed" and e.get("defaulted"):
                fired.append(int(eid.decode().split("-")[0]))
    return fired


async def _history_verdict(admin: Any, runs: list[GameRun], history: History) -> Any:
    applied: dict[str, list[str]] = {}
    refused: set[tuple[str, str]] = set()
    for r in runs:
        k = Keys(r.game_id)
        ours = set(range(r.seats - 1))
        rec = await r.clients[0].record(r.game_id)
        seq = [e["cmd_id"] for e in rec["log"] if e.get("by") == "seat" and e["seat"] in ours]
        mine = {c for cl in r.clients for c in cl.sent}
        applied[r.game_id] = seq
        applied[r.game_id + "/sealed"] = [
            e["commitment"] for e in rec["record"] if e.get("type") == "committed"
            and (e.get("seat") in ours if "seat" in e else e["commitment"] in
                 {m.get("commitment") for cl in r.clients for m in cl.sent.values()})]
        for key, val in (await admin.hgetall(k.cmds)).items():
            cmd = key.decode().split("|", 1)[-1]
            if b"rejected" in val and cmd in mine:
                refused.add((r.game_id, cmd))
        for seat in ours:
            for c in await admin.zrange(k.refusals(seat), 0, -1):
                refused.add((r.game_id, c.decode()))
        for cl in r.clients:  # a refusal that reached the client after "accepted"
            for cmd, answers in cl.answers.items():
                if any(a["type"] == "rejected" and a.get("code") not in
                       ("message/unavailable", "message/rate_limited", "command/duplicate")
                       for a in answers):
                    refused.add((r.game_id, cmd))
    return check(settle_acts(list(history.ops), refused), applied)


async def _canaries(admin: Any, runs: list[GameRun], clients: list[HistoryClient]) -> int:
    """Every sealed choice's nonce, checked against every frame the clients got and the
    adjudicator's and fan-out's streams; returns how many canaries were checked."""
    nonces: dict[str, str] = {}
    for c in clients:
        nonces.update(c.nonces)
    leaks = []
    for c in clients:
        leaks += _leaks_in_stream(c.captured or [], nonces)
    assert leaks == [], leaks[:3]
    internal = [f"{b}:0" for b in (streams.ADJ_ACTIONS, streams.ADJ_REVEALS, streams.ADJ_DRAWS,
                                   streams.ADJ_CONTROL)]
    internal += [streams.GW_UPDATES, *streams.update_shards(Settings().gw_shards)]
    for r in runs:
        k = Keys(r.game_id)
        internal += [k.log, k.spectator, *(k.view(s) for s in range(r.seats))]
    seen: set[str] = set()
    for key in internal:
        seen |= set(HEX64.findall(await _stream_text(admin, key)))
    assert not seen & set(nonces), "a sealed choice's nonce reached the adjudicator or fan-out"
    return len(nonces)


ENV = {"EMPIRE_TURN_TIMEOUT_MS": str(DEADLINE_MS), "EMPIRE_ROUND_TIMEOUT_MS": str(DEADLINE_MS)}
WARM_S = 2.0  # after the first move, before the baseline starts (processes warm up)


def system_for(batch: list[Scenario], seed: int = 0) -> Any:
    """One system for a batch of scenarios (their replica counts must agree)."""
    replicas = batch[0].replicas
    assert all(s.replicas == replicas for s in batch)
    return proxied_system("faults-" + "+".join(s.name for s in batch), replicas=replicas,
                          env=ENV, seed=seed)


async def run_scenario(sc: Scenario, system: ProxiedSystem) -> dict[str, Any]:
    """Run one scenario on ``system`` (its links clean at the start) and check it."""
    history = History()
    runs: list[GameRun] = []
    clients: list[HistoryClient] = []
    ids: list[str] = []
    figures: dict[str, Any] = {"scenario": sc.name, "deadline_ms": DEADLINE_MS}
    admin = aioredis.Redis.from_url(system.admin_url)
    counted = system.counters()
    over, stop = asyncio.Event(), asyncio.Event()
    sampler = Sampler(system.admin_url, ids)
    sampling = asyncio.create_task(sampler.run(stop))
    players = [asyncio.create_task(_games_of(i, lane, system, history, over, runs, clients,
                                             ids))
               for i in range(len(GAMES)) for lane in range(LANES)]
    marks = Marks()
    t0 = time.monotonic()
    try:
        for _ in range(1200):  # bounded: 120 s for the first move
            if sampler.samples and sampler.samples[-1].moves > 0:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(WARM_S)
        t0 = time.monotonic()
        await asyncio.sleep(BEFORE_S)
        ctx = Ctx(system, clients, marks, figures)
        await sc.fault(ctx)
        assert marks.windows, "the fault never ran"
        fault_on, healed = marks.windows[0][0], marks.windows[-1][1]
        await asyncio.sleep(AFTER_S)
        over.set()
        await asyncio.gather(*players)  # the games in flight finish (each bounded)
        t_end = time.monotonic()
        stop.set()
        await sampling
        moved_at_heal = max((s.moves for s in sampler.samples if s.t <= healed), default=0)
        resumed = [s.t - healed for s in sampler.samples
                   if s.t > healed and s.moves > moved_at_heal]
        assert resumed and resumed[0] <= RESUME_BOUND_S, "no move after the fault ended"

        totals: Counter[str] = Counter()
        for r in runs:
            totals.update(await _check(r, admin))
        verdict = await _history_verdict(admin, runs, history)
        assert verdict.valid, verdict.anomalies[:10]
        canaries = await _canaries(admin, runs, clients)
        hangs = silent(clients, t_end)
        assert hangs == [], hangs[:5]

        fired = await _deadlines(admin, runs)
        long_windows = [(on, off) for _, _, on, off in marks.windows
                        if off - on >= DEADLINE_MS - 5_000]
        early = [x for x in fired if not any(on <= x <= off + DEADLINE_MS
                                             for on, off in long_windows)]
        assert early == [], (f"{len(early)} deadline(s) fired outside a fault long enough "
                             f"to outlast one ({DEADLINE_MS} ms)")
        dead = (await admin.xlen(streams.DEAD_LETTERS)
                if await admin.exists(streams.DEAD_LETTERS) else 0)
        assert dead == 0, f"{dead} messages dead-lettered"

        base = sampler.rate(t0, fault_on)
        lat = latencies(clients, t0, fault_on, healed, t_end)
        outcomes = Counter(_answer(t.outcome) for c in clients for t in c.timed.values())
        figures.update({
            "games": len(runs),
            "games_by_kind": dict(Counter(r.game for r in runs)),
            "fault_s": round(sum(off - on for on, off, _, _ in marks.windows), 1),
            "moves_per_s": {"before": base, "during": sampler.rate(fault_on, healed),
                            "after": sampler.rate(healed, t_end)},
            "rounds_per_s": {"before": sampler.rate(t0, fault_on, "rounds"),
                             "during": sampler.rate(fault_on, healed, "rounds"),
                             "after": sampler.rate(healed, t_end, "rounds")},
            "p99_ms": {k: p99(v) for k, v in lat.items()},
            "commands": {k: len(v) for k, v in lat.items()},
            "recovery_s": sampler.recovery_s(healed, base),
            "first_move_after_heal_s": round(resumed[0], 2),
            "deadlines_fired": len(fired),
            "reconnects": sum(c.reconnects for c in clients),
            "answers": dict(outcomes),
            "silent_hangs": 0,
            "history": verdict.counts,
            "lost": 0,
            "applied_twice": 0,
            "canaries": canaries,
            "proxy": {k: v - counted[k] for k, v in system.counters().items()},
            "wall_s": round(time.monotonic() - t0, 1),
            **{k: v for k, v in totals.items() if k in (
                "moves", "accepted_acts", "acked_commits", "resent", "turn_timeouts",
                "defaulted_slots", "sealed_rounds")},
        })
    finally:
        over.set()
        stop.set()
        for t in [*players, sampling]:
            t.cancel()
            with contextlib.suppress(BaseException):
                await t
        for c in clients:
            with contextlib.suppress(Exception):
                await c.close()
        await admin.aclose()
        with contextlib.suppress(OSError):  # every command's timing and the history
            (OUT / f"{sc.name}.commands.jsonl").write_text("".join(
                json.dumps({"client": c.process, "cmd": k, "sent": round(t.sent - t0, 3),
                            "answer_s": None if t.answered is None
                            else round(t.answered - t.sent, 3),
                            "outcome": t.outcome}) + "\n"
                for c in clients for k, t in c.timed.items()))
            history.dump(OUT / f"{sc.name}.history.jsonl")
    report(sc.name, figures)
    return figures


def _answer(outcome: str) -> str:
    """A command's answer for the figures: accepted, committed, rejected:message/<why> (the
    server could not take or confirm it), rejected (a typed refusal), error (no answer)."""
    kind, _, code = outcome.partition(":")
    return f"{kind}:{code}" if kind == "rejected" and code.startswith("message/") else kind


def parse_summary(figures: dict[str, Any]) -> str:
    """One line of a scenario's figures (for the make faults summary)."""
    def tri(d: dict[str, Any]) -> str:
        return "/".join("-" if d[k] is None else f"{d[k]}" for k in ("before", "during", "after"))

    return (f"{figures['scenario']:<24} moves/s {tri(figures['moves_per_s']):<20} "
            f"p99 ms {tri(figures['p99_ms']):<22} recovery {figures['recovery_s']} s  "
            f"deadlines {figures['deadlines_fired']}  reconnects {figures['reconnects']}")

