"""The system under test: the supervisor's processes (embedded Valkey), their CPU and memory,
Valkey's command counters, and (optionally) pyinstrument inside chosen services."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from services.supervisor import SERVICES as SERVICES
from services.supervisor import Proc, Supervisor
from shared.runtime.valkey import free_port

# The gateway's per-connection rate limit (50 msg/s) is for people; the driver's players
# move as fast as the system lets them, like the peer's clients, so the bench lifts it. So
# too the lobby's per-player quotas (5 open tables, 3 running games): a bench pair hosts a
# whole pool of idle games (as bench/bot_seats.py lifts them for its seats). And the HTTP
# rates (per player, per IP, sign-ups: 20 requests/s per player, burst 200): one bench
# player creates, joins and starts a pool of games, far past a person's burst (HTTP 429
# message/rate_limited "too many requests (player)" at 1 and 10 matches otherwise).
BENCH_ENV = {"EMPIRE_RATE_PER_S": "1000000", "EMPIRE_RATE_BURST": "1000000",
             "EMPIRE_QUOTA_OPEN_TABLES": "100000", "EMPIRE_QUOTA_RUNNING_GAMES": "100000",
             "EMPIRE_TOKEN_PER_S": "1000000", "EMPIRE_TOKEN_BURST": "1000000",
             "EMPIRE_HTTP_PER_S": "1000000", "EMPIRE_HTTP_BURST": "1000000",
             "EMPIRE_SIGNUP_PER_MIN": "1000000", "EMPIRE_SIGNUP_BURST": "1000000"}
HOT = ("adjudicator", "escrow", "gateway")


class BenchSupervisor(Supervisor):
    """The project's supervisor; services named in ``profile`` run under bench.profiled."""

    profile: dict[str, Path]

    def _spawn(self, proc: Proc) -> None:
        out_path = getattr(self, "profile", {}).get(proc.service)
        if out_path is None:
            super()._spawn(proc)
            return
        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"{proc.service}-{proc.index}.log", "ab")  # noqa: SIM115
        target = out_path.with_name(f"{out_path.stem}-{proc.index}")
        proc.popen = subprocess.Popen(
            [sys.executable, "-m", "bench.profiled", f"services.{proc.service}", str(target)],
            env=self.env(proc),
            stdout=out,
            stderr=out,
        )
        proc.started = time.monotonic()


def start_system(
    replicas: dict[str, int], profile: dict[str, Path] | None = None, log_root: Path | None = None
) -> BenchSupervisor:
    name = "-".join(f"{k}{v}" for k, v in sorted(replicas.items())) or "single"
    log_dir = (log_root or Path(tempfile.gettempdir()) / "empire-bench-logs") / name
    shutil.rmtree(log_dir, ignore_errors=True)  # the logs of this run only
    sup = BenchSupervisor(
        redis_url=None,
        port=free_port(),
        replicas=dict(replicas),
        log_dir=log_dir,
        env_extra=dict(BENCH_ENV),
    )
    sup.profile = dict(profile or {})
    sup.start(wait=90.0)
    return sup


def service_processes(sup: Supervisor) -> dict[str, psutil.Process]:
    out: dict[str, psutil.Process] = {}
    for p in sup.procs:
        if p.popen is not None:
            out[f"{p.service}#{p.index}"] = psutil.Process(p.popen.pid)
    if sup.valkey is not None and sup.valkey.proc is not None:
        out["valkey"] = psutil.Process(sup.valkey.proc.pid)
    for i, node in enumerate(getattr(sup, "cluster_nodes", ())):  # bench/scale.py's clusters
        out[f"valkey#{i}"] = node
    out["driver"] = psutil.Process(os.getpid())
    return out


def signal_profiled(sup: Supervisor, sig: int) -> None:
    for p in sup.procs:
        if p.service in getattr(sup, "profile", {}) and p.popen is not None:
            os.kill(p.popen.pid, sig)


@dataclass
class Usage:
    """CPU (percent of one core) and RSS (MiB, peak seen) of each process over a window."""

    cpu_pct: dict[str, float]
    rss_mib: dict[str, float]
    machine_cpu_pct: float  # of all cores together (100 = every core busy)
    other_cpu_pct: float  # processes not ours (other work on the machine), % of one core
    # per process over the window: voluntary context switches (its main thread's sleeps,
    # i.e. wake-ups), read and write system calls
    wakeups: dict[str, int] = field(default_factory=dict)
    reads: dict[str, int] = field(default_factory=dict)
    writes: dict[str, int] = field(default_factory=dict)


@dataclass
class ProcSampler:
    """Samples every process's CPU times at the window's ends and its RSS every 0.25 s."""

    procs: dict[str, psutil.Process]
    _cpu0: dict[str, float] = field(default_factory=dict)
    _sys0: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    _busy0: float = 0.0
    _t0: float = 0.0
    _rss: dict[str, float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _cpu(self) -> dict[str, float]:
        out = {}
        for name, p in self.procs.items():
            try:
                t = p.cpu_times()
                out[name] = t.user + t.system
            except psutil.Error:
                out[name] = 0.0
        return out

    def _sys(self) -> dict[str, tuple[int, int, int]]:
        out = {}
        for name, p in self.procs.items():
            try:
                io = p.io_counters()
                out[name] = (p.num_ctx_switches().voluntary, io.read_count, io.write_count)
            except (psutil.Error, AttributeError):
                out[name] = (0, 0, 0)
        return out

    def _sample_rss(self) -> None:
        while not self._stop.is_set():
            for name, p in self.procs.items():
                try:
                    rss = p.memory_info().rss / 2**20
                except psutil.Error:
                    continue
                self._rss[name] = max(self._rss.get(name, 0.0), rss)
            self._stop.wait(0.25)

    @staticmethod
    def _busy() -> float:
        t = psutil.cpu_times()
        return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))

    def start(self) -> None:
        self._busy0 = self._busy()
        self._cpu0 = self._cpu()
        self._sys0 = self._sys()
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._sample_rss, daemon=True)
        self._thread.start()

    def stop(self) -> Usage:
        cpu1 = self._cpu()
        sys1 = self._sys()
        busy = self._busy() - self._busy0
        wall = time.perf_counter() - self._t0
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        cpu = {k: round(100 * (cpu1[k] - self._cpu0.get(k, 0.0)) / wall, 1) for k in cpu1}
        ours = sum(cpu.values())
        machine = 100 * busy / wall
        return Usage(
            cpu_pct=cpu,
            rss_mib={k: round(v, 1) for k, v in self._rss.items()},
            machine_cpu_pct=round(machine / (psutil.cpu_count() or 1), 1),
            other_cpu_pct=round(max(0.0, machine - ours), 1),
            **{kind: {k: v[i] - self._sys0.get(k, (0, 0, 0))[i] for k, v in sys1.items()}
               for i, kind in enumerate(("wakeups", "reads", "writes"))},
        )


async def commandstats(redis: Any) -> dict[str, tuple[int, int]]:
    """Valkey's per-command (calls, usec) counters."""
    raw = await redis.info("commandstats")
    out: dict[str, tuple[int, int]] = {}
    for k, v in raw.items():
        name = k.removeprefix("cmdstat_")
        out[name] = (int(v["calls"]), int(v["usec"]))
    return out


def commandstats_delta(
    a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]], per: float
) -> dict[str, dict[str, float]]:
    """Calls and server-side microseconds per unit (e.g. per round), busiest first."""
    rows = {}
    for name, (calls, usec) in b.items():
        c0, u0 = a.get(name, (0, 0))
        if calls - c0 > 0:
            rows[name] = {
                "calls": round((calls - c0) / per, 2),
                "usec": round((usec - u0) / per, 1),
            }
    return dict(sorted(rows.items(), key=lambda kv: -kv[1]["calls"]))


def _valkey_clients(procs: dict[str, psutil.Process], port: int) -> dict[int, str]:
    """Local port -> process name of each connection to Valkey at ``port``."""
    owner: dict[int, str] = {}
    for name, p in procs.items():
        try:
            for c in p.net_connections(kind="tcp"):
                if c.laddr and c.raddr and c.raddr.port == port:
                    owner[c.laddr.port] = name.split("#")[0]
        except psutil.Error:
            continue
    return owner


async def client_commands(redis: Any, procs: dict[str, psutil.Process]) -> dict[str, int]:
    """Commands Valkey has run for each process's connections so far (CLIENT LIST's
    ``tot-cmds``; a connection is matched to its process by its local port)."""
    owner = _valkey_clients(procs, int(redis.connection_pool.connection_kwargs["port"]))
    out: dict[str, int] = {}
    for c in await redis.client_list():
        port = int(str(c.get("addr", ":0")).rsplit(":", 1)[1])
        name = owner.get(port, "other")
        out[name] = out.get(name, 0) + int(c.get("tot-cmds", 0))
    return out


async def monitor(url: str, procs: dict[str, psutil.Process], out: str) -> None:
    """Every command Valkey runs until cancelled, one line each: process, command, key."""
    import redis.asyncio as aioredis

    r = aioredis.Redis.from_url(url)
    owner = _valkey_clients(procs, int(r.connection_pool.connection_kwargs["port"]))
    with open(out, "w") as f:
        async with r.monitor() as m:
            async for cmd in m.listen():
                who = "lua" if cmd.get("client_type") == "lua" else \
                    owner.get(int(cmd.get("client_port") or 0), "other")
                f.write(f"{cmd.get('time')} {who} {cmd.get('command', '')[:160]}\n")


def stop_profiles(sup: Supervisor, wait_s: float = 20.0) -> None:
    """Ask the profiled services to write their profiles, and wait for the files."""
    signal_profiled(sup, signal.SIGUSR2)
    deadline = time.monotonic() + wait_s
    targets = [
        path.with_name(f"{path.stem}-{p.index}.txt")
        for p in sup.procs
        for svc, path in getattr(sup, "profile", {}).items()
        if p.service == svc
    ]
    while time.monotonic() < deadline and not all(t.exists() for t in targets):
        time.sleep(0.2)


def background_cpu(seconds: float) -> float:
    """CPU used by everything on the machine over ``seconds`` (percent of one core)."""
    t0 = psutil.cpu_times()
    time.sleep(seconds)
    t1 = psutil.cpu_times()

    def busy(t: Any) -> float:
        return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))

    return round(100 * (busy(t1) - busy(t0)) / seconds, 1)
