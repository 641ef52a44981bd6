"""How the system scales: ``make bench-scale`` = ``python -m bench.scale``.

    python -m bench.scale                         # 1, 2, 4 replicas of the hot services, then
                                                  # a Valkey Cluster of 1 and of 3 shards
    python -m bench.scale --replicas 1,2 --clusters ""   # no cluster runs
    python -m bench.scale --matches 100 --window 8 --repeat 2
    python -m bench.scale --render bench/results/scale-A.json bench/results/scale-B.json
    python -m bench.scale --model-from bench/results/peer-A.json   # the model only, fed by
                                                  # the per-round figures of a bench-peer or
                                                  # bench run at --matches; runs nothing

Each configuration runs the throughput workload of ``python -m bench`` (bench/workloads.py:
N pairs playing pooled duel games, rounds/s over the window, CPU of every process over it) on
a fresh system. Printed, and written to ``bench/results/scale-<time>.json``:

* rounds/s and CPU ms per round, by service, Valkey apart;
* what each configuration adds per round over the first one (same window, same machine);
* Valkey's share of the server's CPU per round;
* a MODEL (arithmetic on those figures, not a measurement) of the rounds/s ceiling one
  Valkey shard carries and what each core added to the Python services carries, with its
  assumptions listed (``ASSUMPTIONS``).

A 2-core machine cannot show scaling itself: 4 replicas of 3 services share the same 2 cores
as Valkey and the load driver. What it can show is the CPU each round costs in each
configuration; the model turns that into ceilings for machines that have the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from bench import system, workloads
from bench.driver import Lobby
from services.supervisor import SERVICES
from shared.runtime.valkey import EmbeddedCluster, free_port

RESULTS = Path(__file__).parent / "results"
HOT = system.HOT  # adjudicator, escrow, gateway
CLUSTER_PARTITIONS = 6  # inter-service stream shards in the cluster runs (both sizes alike)
# redis-py's cluster pool refuses (MaxConnectionsError) where the single server's pool waits:
# 200 sockets signing in at once passed the default 24 per node in the first cluster runs
CLUSTER_ENV = {"EMPIRE_REDIS_MAX_CONNECTIONS": "256"}

ASSUMPTIONS = (
    "MODEL, not a measurement: ceilings are 1000 ms divided by the CPU ms per round measured "
    "at the given configuration; they hold only while these assumptions do:",
    "1. CPU per round stays what it was at this load: no new contention, no batching gain "
    "or loss at higher rates (batching made it fall with load so far: conservative).",
    "2. The Python services scale out linearly: replicas share nothing but Valkey (one "
    "consumer group per service, CAS on a game's seq; conflicts were rare here).",
    "3. A Valkey shard is one core (Valkey runs commands on one thread); games spread "
    "evenly over shards by their hash tag, and the work that does not spread (the lobby's "
    "keys, the fan-out shards, which share one hash tag) stays a small part of it.",
    "4. The network between hosts costs nothing extra (all processes here share one host: "
    "no NIC, no RTT); a real deployment adds per-round latency, not CPU.",
    "5. The load driver is not counted (it is the clients).",
)


@dataclass(frozen=True)
class Figures:
    """One run's CPU per round, split: Valkey, the Python services, the driver."""

    config: str
    rounds_per_s: float
    server_ms: float  # every process but the driver, per round
    valkey_ms: float
    python_ms: float
    by_service: dict[str, float]
    machine_pct: float
    other_pct: float
    valkey_max_node_ms: float = 0.0  # the busiest Valkey process (a cluster's busiest shard)

    @property
    def valkey_share(self) -> float:
        return self.valkey_ms / self.server_ms if self.server_ms else 0.0


def figures(config: str, run: dict[str, Any]) -> Figures:
    """The figures of one ``workloads.throughput`` result (CPU ms per round by process:
    ``<service>#<i>``, ``valkey`` or ``valkey#<i>`` for cluster nodes, ``driver``)."""
    per = run.get("cpu_ms_per_round") or {}
    by: dict[str, float] = {}
    nodes = [float(ms) for name, ms in per.items() if name.split("#")[0] == "valkey"]
    for name, ms in per.items():
        svc = name.split("#")[0]
        by[svc] = by.get(svc, 0.0) + float(ms)
    valkey = by.get("valkey", 0.0)
    server = sum(v for k, v in by.items() if k != "driver")
    return Figures(config=config, rounds_per_s=float(run.get("rounds_per_s", 0.0)),
                   server_ms=round(server, 2), valkey_ms=round(valkey, 2),
                   python_ms=round(server - valkey, 2),
                   by_service={k: round(v, 2) for k, v in sorted(by.items())},
                   machine_pct=float(run.get("machine_cpu_pct", 0.0)),
                   other_pct=float(run.get("other_cpu_pct", 0.0)),
                   valkey_max_node_ms=round(max(nodes, default=0.0), 2))


def added(rows: list[Figures]) -> list[dict[str, float | str]]:
    """What each configuration adds per round over the first (ms; negative: saves)."""
    if not rows:
        return []
    base = rows[0]
    return [{"config": f.config, "server_ms": round(f.server_ms - base.server_ms, 2),
             "valkey_ms": round(f.valkey_ms - base.valkey_ms, 2),
             "python_ms": round(f.python_ms - base.python_ms, 2)} for f in rows]


def model(f: Figures, cores: int = 2) -> dict[str, float]:
    """Ceilings (rounds/s) from one configuration's CPU per round (see ASSUMPTIONS):
    ``per_valkey_shard``: one Valkey shard (one core) busy with nothing else;
    ``per_added_core``: one more core for the Python services;
    ``this_machine``: every process on ``cores`` cores, all busy (against the measured rate:
    ``efficiency`` < 1 when the run did not saturate the machine or others shared it);
    ``valkey_as_spread``: the Valkey ceiling of this run's own shards as they were loaded
    (its busiest shard saturates first: 1000 / that shard's ms per round)."""
    shard = 1000.0 / f.valkey_ms if f.valkey_ms > 0 else float("inf")
    core = 1000.0 / f.python_ms if f.python_ms > 0 else float("inf")
    here = cores * 1000.0 / f.server_ms if f.server_ms > 0 else float("inf")
    node = f.valkey_max_node_ms or f.valkey_ms
    spread = 1000.0 / node if node > 0 else float("inf")
    return {"per_valkey_shard": round(shard, 1), "per_added_core": round(core, 1),
            "this_machine": round(here, 1), "valkey_as_spread": round(spread, 1),
            "efficiency": round(f.rounds_per_s / here, 2) if here not in (0, float("inf")) else 0.0}


def predict(f: Figures, python_cores: int, valkey_shards: int) -> float:
    """The MODEL's rounds/s for ``python_cores`` cores of Python services and
    ``valkey_shards`` Valkey shards: the smaller of the two ceilings."""
    m = model(f)
    return round(min(python_cores * m["per_added_core"],
                     valkey_shards * m["per_valkey_shard"]), 1)


def table(rows: list[Figures]) -> str:
    head = ["config", "rounds/s", "server ms/round", "valkey", "python", "valkey share",
            "adj/esc/gw ms", "busiest shard ms", "machine%", "other%", "1 shard r/s",
            "+1 core r/s", "these shards r/s"]
    out = [head]
    for f in rows:
        m = model(f)
        hot = "/".join(f"{f.by_service.get(s, 0.0):.1f}" for s in HOT)
        out.append([f.config, f"{f.rounds_per_s:.0f}", f"{f.server_ms:.2f}",
                    f"{f.valkey_ms:.2f}", f"{f.python_ms:.2f}", f"{100 * f.valkey_share:.0f}%",
                    hot, f"{f.valkey_max_node_ms:.2f}", f"{f.machine_pct:.0f}",
                    f"{f.other_pct:.0f}", f"{m['per_valkey_shard']:.0f}",
                    f"{m['per_added_core']:.0f}", f"{m['valkey_as_spread']:.0f}"])
    widths = [max(len(r[i]) for r in out) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in out]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


# -- the runs ------------------------------------------------------------------------------


def say(msg: str) -> None:
    print(f"[scale {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def hot_replicas(n: int) -> dict[str, int]:
    return {} if n <= 1 else dict.fromkeys(HOT, n)


def start_cluster_system(shards: int, replicas: dict[str, int]
                         ) -> tuple[system.BenchSupervisor, EmbeddedCluster]:
    """The system on a local Valkey Cluster of ``shards`` masters (shipped config and ACL)."""
    cluster = EmbeddedCluster(shards, shipped=True)
    url = cluster.start()
    log_dir = Path(tempfile.gettempdir()) / "empire-bench-logs" / f"cluster{shards}"
    shutil.rmtree(log_dir, ignore_errors=True)
    sup = system.BenchSupervisor(redis_url=url, port=free_port(), replicas=dict(replicas),
                                 partitions=CLUSTER_PARTITIONS, log_dir=log_dir,
                                 env_extra={**system.BENCH_ENV, "EMPIRE_CLUSTER": "true",
                                            **CLUSTER_ENV})
    sup.service_urls = {svc: cluster.url_for(svc) for svc in SERVICES}
    sup.profile = {}
    sup.cluster_nodes = [psutil.Process(n.proc.pid) for n in cluster.nodes  # type: ignore[attr-defined]
                         if n.proc is not None]
    try:
        sup.start(wait=90.0)
    except Exception:
        sup.stop()
        cluster.stop()
        raise
    return sup, cluster


async def one(name: str, sup: Any, matches: int, window: float, est: float) -> dict[str, Any]:
    lobby = Lobby(sup.url)
    try:
        pairs = await workloads.sign_in_pairs(lobby, matches, f"s{name[:6]}")
        run = await workloads.throughput(sup, lobby, pairs, matches, window, est)
    finally:
        await lobby.close()
    run["config"] = name
    return run


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                              "matches": args.matches, "window_s": args.window,
                              "cores": os.cpu_count(), "load_avg_start": os.getloadavg(),
                              "assumptions": list(ASSUMPTIONS), "runs": [], "failed": []}
    plan: list[tuple[str, int, int]] = []  # (name, replicas, cluster shards or 0)
    for _ in range(args.repeat):
        plan += [(f"hot{n}", n, 0) for n in args.replicas]
        plan += [(f"cluster{s}", args.cluster_replicas, s) for s in args.clusters]
    est = 150.0
    for name, n, shards in plan:
        say(f"{name}: {n} replica(s) of {', '.join(HOT)}"
            + (f" on a {shards}-shard Valkey Cluster" if shards else ""))
        cluster = None
        try:
            if shards:
                sup, cluster = start_cluster_system(shards, hot_replicas(n))
            else:
                sup = system.start_system(hot_replicas(n))
            try:
                run = await one(name, sup, args.matches, args.window, est)
            finally:
                sup.stop()
        except Exception as exc:  # keep the other configurations
            say(f"  FAILED: {exc!r}")
            result["failed"].append({"config": name, "error": repr(exc)[:500]})
            continue
        finally:
            if cluster is not None:
                cluster.stop()
        run["load_avg"] = os.getloadavg()
        result["runs"].append(run)
        f = figures(name, run)
        say(f"  {f.rounds_per_s:.0f} rounds/s, {f.server_ms:.2f} ms/round "
            f"(valkey {f.valkey_ms:.2f}), errors {run['errors'] or 0}")
    rows = [figures(r["config"], r) for r in result["runs"]]
    result["figures"] = [f.__dict__ | {"valkey_share": round(f.valkey_share, 3),
                                       "model": model(f)} for f in rows]
    result["added"] = added(rows)
    return result


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--window", type=float, default=8.0)
    ap.add_argument("--replicas", default="1,2,4", help="replicas of the hot services")
    ap.add_argument("--clusters", default="1,3", help="Valkey Cluster shards ('' for none)")
    ap.add_argument("--cluster-replicas", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="the whole plan, this many times")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--render", type=Path, nargs="*", default=None,
                    help="print the report of these result files' runs together; run nothing")
    ap.add_argument("--model-from", type=Path, nargs="*", default=None,
                    help="the model from these bench-peer/bench results' runs at --matches; "
                         "run nothing")
    args = ap.parse_args(argv)
    args.replicas = [int(x) for x in str(args.replicas).split(",") if x]
    args.clusters = [int(x) for x in str(args.clusters).split(",") if x]
    return args


def report(result: dict[str, Any]) -> str:
    rows = [figures(r["config"], r) for r in result["runs"]]
    lines = [f"{result['matches']} matches, {result['window_s']:.0f} s windows, "
             f"{result['cores']} cores; load average at the start "
             f"{', '.join(f'{x:.1f}' for x in result['load_avg_start'])}", "", table(rows), "",
             "Added per round over the first configuration (ms): server / valkey / python"]
    lines += [f"  {a['config']:10} {a['server_ms']:+.2f} / {a['valkey_ms']:+.2f} / "
              f"{a['python_ms']:+.2f}" for a in added(rows)]
    if rows:
        best = min(rows, key=lambda f: f.server_ms)
        lines += ["", *ASSUMPTIONS, "",
                  f"MODEL from {best.config} (the cheapest round): one Valkey shard "
                  f"~{model(best)['per_valkey_shard']:.0f} rounds/s, each core of Python "
                  f"services ~{model(best)['per_added_core']:.0f} rounds/s; e.g. 8 cores + 1 "
                  f"shard: {predict(best, 8, 1):.0f}, 16 cores + 3 shards: "
                  f"{predict(best, 16, 3):.0f} rounds/s"]
    for f in result.get("failed", []):
        lines.append(f"FAILED {f['config']}: {f['error']}")
    return "\n".join(lines)


def measured_runs(doc: dict[str, Any], matches: int, name: str) -> list[dict[str, Any]]:
    """The throughput runs at ``matches`` in a result file of ``python -m bench.peer``
    (``runs[i].ours``) or ``python -m bench`` (``throughput``), named ``name#i``."""
    found = [r for run in doc.get("runs", []) if isinstance(run, dict)
             for r in run.get("ours", [])] + list(doc.get("throughput", []))
    return [{**r, "config": f"{name}#{i + 1}"}
            for i, r in enumerate(x for x in found if int(x.get("matches", -1)) == matches)]


def fed(paths: list[Path], matches: int) -> dict[str, Any]:
    """A result made of measured per-round figures only (``--model-from``): the model's
    input, no run of its own."""
    runs = [r for p in paths for r in measured_runs(json.loads(p.read_text()), matches, p.stem)]
    return {"matches": matches, "window_s": float(runs[0].get("window_s", 0.0)) if runs else 0.0,
            "cores": os.cpu_count(), "load_avg_start": os.getloadavg(),
            "assumptions": list(ASSUMPTIONS), "runs": runs, "failed": [],
            "model_from": [str(p) for p in paths]}


def merged(paths: list[Path]) -> dict[str, Any]:
    """The runs of several result files in one result (their first file's header)."""
    docs = [json.loads(p.read_text()) for p in paths]
    out = dict(docs[0])
    out["runs"] = [r for d in docs for r in d["runs"]]
    out["failed"] = [f for d in docs for f in d.get("failed", [])]
    return out


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.render:
        print(report(merged(args.render)))
        return
    if args.model_from:
        result = fed(args.model_from, args.matches)
        if not result["runs"]:
            raise SystemExit(f"no throughput run at {args.matches} matches in "
                             f"{', '.join(map(str, args.model_from))}")
        print(f"MODEL fed by measured runs ({', '.join(result['model_from'])}); no run here")
        print(report(result))
        return
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    result = asyncio.run(amain(args))
    print(report(result))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"scale-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(result, indent=1, default=str))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
