"""The whole system with a fault proxy on every network link, and what the fault
scenarios measure and record while bots play through it.

- ``proxied_system``: the supervisor's processes against a private Valkey (the shipped ACL),
  each service replica's Valkey link through a ``FaultProxy`` of its own (so one replica can be
  partitioned while the other serves) and the clients' link to the gateway through one more
  (``front``); the admin reads of the checks go to Valkey directly.
- ``HistoryClient``: an SDK client (``RecordingClient``: the reliability tier's journal) that
  also records every act and commit as a Jepsen-style operation (``tests/faults/history.py``:
  invoke, then ok / fail / info) and the latency from a command's first send to its first
  answer, and keeps its raw frames for the canary scan.
- ``Sampler``: every ``PERIOD_S`` the moves and sealed rounds the games' streams hold, read on
  the admin link; from them the rates before / during / after a fault and the recovery time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from clients.sdk.client import TRANSIENT_CODES
from services.supervisor import SERVICES, Proc, Supervisor
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedValkey, free_port
from tests.faults.history import History, Op
from tests.faults.proxy import FaultProxy
from tests.reliability.conftest import RecordingClient

FULL = os.environ.get("EMPIRE_FAULTS_SCALE",
                      os.environ.get("EMPIRE_RELIABILITY_SCALE", "small")).lower() == "full"
OUT = Path("test-output") / "faults"
PERIOD_S = 0.5
# a command's answer (accepted, committed or a typed refusal) is owed within this bound; a
# command with none by then is a silent hang (the SDK itself gives up after 30 s)
ANSWER_BOUND_S = 15.0


def size(small: Any, full: Any) -> Any:
    return full if FULL else small


def report(name: str, figures: dict[str, Any]) -> None:
    """Print a scenario's figures and keep them in test-output/faults/<name>.json."""
    figures = {"scale": "full" if FULL else "small", **figures}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"\n[faults] {name}: {json.dumps(figures, sort_keys=True)}", flush=True)


@dataclass
class RoutedSupervisor(Supervisor):
    """The supervisor with each replica's Valkey URL chosen per (service, replica)."""

    routes: dict[tuple[str, int], str] = field(default_factory=dict)

    def env(self, proc: Proc) -> dict[str, str]:
        env = super().env(proc)
        url = self.routes.get((proc.service, proc.index))
        if url is not None:
            env["EMPIRE_REDIS_URL"] = url
        return env


@dataclass
class ProxiedSystem:
    sup: RoutedSupervisor
    valkey: EmbeddedValkey
    links: dict[tuple[str, int], FaultProxy]  # each replica's link to Valkey
    front: FaultProxy  # the clients' link to the gateway

    @property
    def url(self) -> str:
        """The gateway as the clients reach it: through ``front``."""
        return f"http://127.0.0.1:{self.front.port}"

    @property
    def admin_url(self) -> str:
        return self.valkey.url

    def of(self, service: str, index: int | None = None) -> list[FaultProxy]:
        return [p for (s, i), p in self.links.items()
                if s == service and (index is None or i == index)]

    def every_link(self) -> list[FaultProxy]:
        return list(self.links.values())

    def counters(self) -> dict[str, int]:
        out: dict[str, int] = {"resets": 0, "stalls": 0, "connections": 0}
        for p in [*self.links.values(), self.front]:
            out["resets"] += p.counters.resets
            out["stalls"] += p.counters.stalls
            out["connections"] += p.counters.connections
        return out


@contextlib.contextmanager
def proxied_system(name: str, replicas: dict[str, int] | None = None,
                   env: dict[str, str] | None = None, seed: int = 0) -> Iterator[ProxiedSystem]:
    """Start the system with every replica's Valkey link and the clients' gateway link
    through fault proxies; stop it all on exit."""
    replicas = replicas or {}
    valkey = EmbeddedValkey(shipped=True)
    valkey.start()
    links: dict[tuple[str, int], FaultProxy] = {}
    routes: dict[tuple[str, int], str] = {}
    front: FaultProxy | None = None
    sup: RoutedSupervisor | None = None
    try:
        for n, svc in enumerate(SERVICES):
            for i in range(replicas.get(svc, 1)):
                p = FaultProxy(valkey.port, seed=seed * 1000 + n * 10 + i).start()
                links[(svc, i)] = p
                routes[(svc, i)] = valkey.url_for(svc).replace(f":{valkey.port}/",
                                                               f":{p.port}/")
        port = free_port()
        front = FaultProxy(port, seed=seed * 1000 + 999).start()
        sup = RoutedSupervisor(port=port, log_dir=OUT / "logs" / name, valkey=valkey,
                               replicas=replicas, env_extra=env or {}, routes=routes,
                               service_urls={svc: valkey.url_for(svc) for svc in SERVICES})
        sup.start(wait=240)
        yield ProxiedSystem(sup, valkey, links, front)
    finally:
        if sup is not None:
            sup.stop()
        for p in [*links.values(), *([front] if front else [])]:
            p.stop()
        valkey.stop()


@dataclass
class Timed:
    sent: float  # monotonic, first send
    answered: float | None = None  # first answer (any kind), None: never
    gave_up: float | None = None  # the SDK raised instead (its own timeout, a closed client)
    answered_ms: int = 0  # wall clock of the first answer (compared with Valkey's clock)
    outcome: str = ""  # accepted | committed | rejected:<code> | error:<type>


class HistoryClient(RecordingClient):
    """Records every act and commit in ``history`` (key: the act's cmd_id, the commit's
    commitment, which names it in the record) and its latency; keeps its raw frames."""

    def __init__(self, url: str, history: History, process: str) -> None:
        super().__init__(url, capture=True)
        self.history = history
        self.process = process
        self.timed: dict[str, Timed] = {}
        self.nonces: dict[str, str] = {}  # every sealed choice's nonce -> its round
        self.on_commit_sent: list[Any] = []  # callbacks (the client-cut scenario's triggers)
        self.on_committed: list[Any] = []

    def _dispatch(self, msg: dict[str, Any]) -> None:
        super()._dispatch(msg)
        if msg.get("type") == "committed":
            for cb in self.on_committed:
                cb(self, msg)

    async def _request(self, msg: dict[str, Any], timeout: float = 30.0) -> Any:
        f = str(msg.get("type"))
        key = str(msg["commitment"] if f == "commit" else msg["cmd_id"])
        # acts are ordered by the move log, commits by the record: two histories per game
        game = str(msg.get("game_id")) + ("/sealed" if f == "commit" else "")
        self.history.add(self.process, "invoke", f, key, game)
        t = self.timed[str(msg["cmd_id"])] = Timed(time.monotonic())
        if f == "commit":
            # the nonce travels only sealed (protocol v2): the seat's own receipt keeps it
            session = self.games.get(str(msg["game_id"]))
            receipt = (session.receipts.get(f"{msg['round_id']}/{msg['slot']}")
                       if session is not None else None)
            if receipt is not None:
                self.nonces[receipt.nonce] = str(msg["round_id"])
            for cb in self.on_commit_sent:
                cb(self, msg)
        try:
            reply, pending = await super()._request(msg, timeout)
        except BaseException as exc:
            t.gave_up = time.monotonic()
            t.outcome = f"error:{type(exc).__name__}"
            self.history.add(self.process, "info", f, key, game)  # no answer: unknown
            raise
        t.answered = time.monotonic()
        t.answered_ms = int(time.time() * 1000)
        kind = reply.get("type")
        code = str(reply.get("code", ""))
        t.outcome = str(kind) if kind != "rejected" else f"rejected:{code}"
        if kind in ("accepted", "committed"):
            self.history.add(self.process, "ok", f, key, game)
        elif code in TRANSIENT_CODES or (
                f == "commit" and pending.resent
                and code in ("escrow/already_committed", "escrow/closed")):
            # the gateway could not tell whether it was published; a re-sent commit's
            # refusal may be the echo of its own first copy: unknown, not a refusal
            self.history.add(self.process, "info", f, key, game)
        else:
            self.history.add(self.process, "fail", f, key, game)
        return reply, pending


def settle_acts(ops: list[Op], refused: set[tuple[str, str]]) -> list[Op]:
    """An act's ``accepted`` means "durably queued": the adjudicator then applies it or
    refuses it (stale, illegal) and says so with a typed refusal. An accepted act the server
    refused is completed as ``fail`` (the answer the client finally got)."""
    out = []
    for op in ops:
        if op.kind == "ok" and op.f == "act" and (op.game, op.key) in refused:
            op = Op(op.process, "fail", op.f, op.key, op.game, op.t)
        out.append(op)
    return out


@dataclass
class Sample:
    t: float  # monotonic
    moves: int
    rounds: int


@dataclass
class Sampler:
    """Counts, every ``PERIOD_S``, the moves in the games' logs and the sealed rounds closed in
    their records (admin link: Valkey directly, never through a proxy)."""

    admin_url: str
    game_ids: list[str]
    samples: list[Sample] = field(default_factory=list)
    _rounds: dict[str, tuple[str, int]] = field(default_factory=dict)

    async def run(self, stop: asyncio.Event) -> None:
        r = aioredis.Redis.from_url(self.admin_url)
        try:
            while not stop.is_set():
                moves = 0
                rounds = 0
                for g in self.game_ids:
                    k = Keys(g)
                    moves += int(await r.xlen(k.log))
                    last, n = self._rounds.get(g, ("-", 0))
                    for _ in range(100):  # bounded: 100 pages of 500 per sample
                        batch = await r.xrange(k.record, min=last, count=500)
                        for eid, fields in batch:
                            n += b'"round_closed"' in b"".join(fields.values())
                            last = "(" + eid.decode()
                        if len(batch) < 500:
                            break
                    self._rounds[g] = (last, n)
                    rounds += n
                self.samples.append(Sample(time.monotonic(), moves, rounds))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), PERIOD_S)
        finally:
            await r.aclose()

    def rate(self, t0: float, t1: float, what: str = "moves") -> float:
        """Per second between the samples nearest ``t0`` and ``t1``."""
        inside = [s for s in self.samples if t0 <= s.t <= t1]
        if len(inside) < 2:
            return 0.0
        a, b = inside[0], inside[-1]
        return round((getattr(b, what) - getattr(a, what)) / max(b.t - a.t, 1e-9), 2)

    def recovery_s(self, healed: float, baseline: float, window_s: float = 2.0,
                   share: float = 0.8) -> float | None:
        """From ``healed`` to the end of the first ``window_s`` window whose move rate is at
        least ``share`` of ``baseline``; None if none (the games ended first)."""
        after = [s for s in self.samples if s.t >= healed]
        for i, a in enumerate(after):
            for b in after[i + 1:]:
                if b.t - a.t >= window_s:
                    if (b.moves - a.moves) / (b.t - a.t) >= share * baseline:
                        return round(b.t - healed, 2)
                    break
        return None


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    v = sorted(values)
    return round(v[min(len(v) - 1, int(0.99 * len(v)))] * 1000, 1)  # ms


def latencies(clients: list[HistoryClient], t0: float, fault_on: float, healed: float,
              t_end: float) -> dict[str, list[float]]:
    """Send-to-first-answer latencies by phase: ``before`` answered before the fault began,
    ``during`` in flight at some time of it, ``after`` sent after the heal."""
    out: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    for c in clients:
        for t in c.timed.values():
            if t.answered is None or t.sent < t0 or t.sent >= t_end:
                continue
            phase = ("before" if t.answered < fault_on else
                     "after" if t.sent >= healed else "during")
            out[phase].append(t.answered - t.sent)
    return out


def silent(clients: list[HistoryClient], end: float) -> list[str]:
    """Commands that got no answer at all within ``ANSWER_BOUND_S`` of their first send
    (neither an answer nor an error by then)."""
    out = []
    for c in clients:
        for cmd, t in c.timed.items():
            waited = (t.answered or t.gave_up or end) - t.sent
            if waited > ANSWER_BOUND_S:
                out.append(f"{c.process}/{cmd}: {t.outcome or 'no answer'} after "
                           f"{waited:.1f} s")
    return out
