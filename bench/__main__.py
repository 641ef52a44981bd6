"""Empire Hall benchmarks: ``make bench`` = ``python -m bench``.

    python -m bench                      # the default suite (~8 minutes on 2 cores)
    python -m bench --quick              # a smoke run (~1.5 minutes)
    python -m bench --profile            # + a run at 100 matches with the adjudicator,
                                         #   escrow and gateway profiled (py-spy)
    python -m bench --profile-only --profile-workload lifecycle   # every service profiled
                                         #   during the lifecycle window
    python -m bench --only throughput --levels 100 --configs single

Prints the tables and writes ``bench/results/bench-<time>.json`` and ``latest.json``.
See bench/README.md for the method; the current figures are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import (
    driver,
    engines,
    longmatch,
    micro,
    openloop,
    openrounds,
    profiles,
    report,
    system,
    workloads,
)
from bench.driver import OPTIONS, Lobby

RESULTS = Path(__file__).parent / "results"
CONFIGS: dict[str, dict[str, int]] = {
    "single": {},  # one process per service
    "hot2": {"adjudicator": 2, "escrow": 2},  # two replicas of the hot stream services
    "gw2": {"gateway": 2},  # two gateways sharing the port (SO_REUSEPORT)
    "gw4": {"gateway": 4},  # four (each reads only the fan-out shards of its own games)
}
# first guesses of rounds/s, only to size the pools of idle games (then the measured rate);
# generous, since a pool that runs out ends its window early
EST_ROUNDS_PER_S = {1: 200.0, 10: 600.0, 100: 900.0, 300: 900.0}
PARTS = ("engines", "micro", "memory", "throughput", "lifecycle")
# parts run only when named: the long match (bench/longmatch.py, ~512 rounds of one game)
# and the open loop (bench/openloop.py: rounds offered at a fixed rate)
EXTRA_PARTS = ("long", "open")


def say(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def git_state() -> dict[str, Any]:
    def run(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    return {
        "commit": run("rev-parse", "HEAD").strip(),
        "dirty": [ln[3:] for ln in run("status", "--porcelain").splitlines() if ln],
    }


async def run_config(name: str, args: argparse.Namespace, result: dict[str, Any]) -> None:
    replicas = CONFIGS[name]
    say(f"config {name}: starting the system {replicas or '(1 replica each)'}")
    sup = system.start_system(replicas)
    lobby = Lobby(sup.url)
    try:
        n_pairs = max([*args.levels, args.lifecycle_concurrency, args.open_pairs, 1])
        pairs = await workloads.sign_in_pairs(lobby, n_pairs, f"b{name[:3]}")
        if "memory" in args.parts and name == args.configs[0]:
            say(f"memory: {args.memory_games} idle games (client entropy on)")
            try:
                result["memory"] = await workloads.memory(sup, lobby, pairs[:50], args.memory_games)
            except Exception as exc:
                say(f"  FAILED: {exc!r}")
                result["failed"].append(
                    {"config": name, "part": "memory", "error": repr(exc)[:500]}
                )
        if "throughput" in args.parts:
            est = dict(EST_ROUNDS_PER_S)
            for n in args.levels:
                say(f"throughput: {n} concurrent matches, {args.window:.0f} s window")
                try:
                    r = await workloads.throughput(
                        sup, lobby, pairs, n, args.window, est.get(n, 100.0)
                    )
                except Exception as exc:  # keep the other figures
                    say(f"  FAILED: {exc!r}")
                    result["failed"].append(
                        {"config": name, "part": f"throughput {n}", "error": repr(exc)[:500]}
                    )
                    continue
                r["config"] = name
                result["throughput"].append(r)
                rev = r["submit_reveal_ms"]
                out = " (the pool ran out)" if r["pool_exhausted"] else ""
                say(
                    f"  {r['rounds_per_s']:.0f} rounds/s, reveal p50/p99 {rev.get('p50')}/"
                    f"{rev.get('p99')} ms, errors {r['errors'] or 0}{out}"
                )
                for m in args.levels:
                    if m > n:
                        est[m] = max(est.get(m, 0.0), 1.1 * r["rounds_per_s"])
        if "lifecycle" in args.parts:
            modes = [True, False] if name == args.configs[0] else [True]
            for entropy in modes:
                say(
                    f"lifecycle: {args.lifecycle_concurrency} concurrent, client entropy "
                    f"{'on' if entropy else 'off'}, {args.lifecycle_window:.0f} s"
                )
                try:
                    r = await workloads.lifecycle(
                        sup,
                        lobby,
                        pairs,
                        args.lifecycle_concurrency,
                        args.lifecycle_window,
                        entropy,
                    )
                except Exception as exc:
                    say(f"  FAILED: {exc!r}")
                    result["failed"].append(
                        {"config": name, "part": "lifecycle", "error": repr(exc)[:500]}
                    )
                    continue
                r["config"] = name
                result["lifecycle"].append(r)
                say(f"  {r['matches_per_s']:.1f} matches/s, errors {r['error_count']}")
        if "open" in args.parts:
            measured = [r["rounds_per_s"] for r in result["throughput"] if r["config"] == name]
            rate = args.open_rate or (0.5 * measured[-1] if measured else 150.0)
            say(f"open loop of {args.open_mode}: {rate:.0f} rounds/s offered, "
                f"{args.open_pairs} pairs, {args.window:.0f} s")
            try:
                run = openrounds.open_rounds if args.open_mode == "rounds" else \
                    openloop.open_loop
                r = await run(sup, lobby, pairs[:args.open_pairs], rate, args.window)
                r["config"] = name
                result.setdefault("open_loop", []).append(r)
                rev = r["submit_reveal_ms"]
                say(f"  {r['rounds_per_s']:.0f} rounds/s, reveal p50/p99 {rev.get('p50')}/"
                    f"{rev.get('p99')} ms, missed arrivals {r['missed_arrivals']}")
            except Exception as exc:
                say(f"  FAILED: {exc!r}")
                result["failed"].append({"config": name, "part": "open", "error": repr(exc)[:500]})
        if "long" in args.parts and name == args.configs[0]:
            say(f"long match: {args.long_matches} x {args.long_rounds} rounds")
            pids = {k: p.pid for k, p in system.service_processes(sup).items() if k != "driver"}
            try:
                result["long_match"] = await longmatch.long_match(
                    sup.url, lobby, pairs, pids, args.long_rounds, args.long_matches)
            except Exception as exc:
                say(f"  FAILED: {exc!r}")
                result["failed"].append({"config": name, "part": "long", "error": repr(exc)[:500]})
        if "memory" in args.parts and name == args.configs[0] and result["memory"]:
            result["memory"]["finished"] = await workloads.finished_memory(sup)
    finally:
        await lobby.close()
        sup.stop()


async def run_profile(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """One workload with services profiled: py-spy from outside when it is installed (CPU
    samples only), else pyinstrument inside (wall clock). ``--profile-workload throughput``
    (default): the hot services at ``--profile-matches`` matches; ``lifecycle``: every
    service during the lifecycle window (create, join, start, watch, rounds, close)."""
    workload = args.profile_workload
    out = args.out / ("profile" if workload == "throughput" else f"profile-{workload}")
    out.mkdir(parents=True, exist_ok=True)
    for f in out.glob("*"):
        f.unlink()
    exe = profiles.py_spy()
    tool = "py-spy" if exe else "pyinstrument"
    targets = system.HOT if workload == "throughput" else system.SERVICES
    n = args.profile_matches if workload == "throughput" else args.lifecycle_concurrency
    window = args.window if workload == "throughput" else args.lifecycle_window
    say(f"profile {workload} ({tool}): {', '.join(targets)}; {n} matches, {window:.0f} s")
    inside = {} if exe else {svc: out / f"pyinstrument-{svc}" for svc in targets}
    sup = system.start_system(CONFIGS["single"], profile=inside)
    lobby = Lobby(sup.url)
    spies: list[tuple[str, Path, subprocess.Popen[bytes]]] = []
    raw_dir = Path(tempfile.mkdtemp(prefix="empire-bench-py-spy-"))  # folded stacks (MBs)

    def begin() -> None:  # as the measured window's warm-up starts
        if exe is None:
            system.signal_profiled(sup, signal.SIGUSR1)
            return
        for p in sup.procs:
            if p.service in targets and p.popen is not None:
                raw = raw_dir / f"py-spy-{p.service}-{p.index}.raw"
                spies.append(
                    (
                        f"{p.service}#{p.index}",
                        raw,
                        profiles.record(exe, p.popen.pid, 1.0 + window, raw),
                    )
                )

    try:
        pairs = await workloads.sign_in_pairs(lobby, n, "bprof")
        if workload == "throughput":
            r = await workloads.throughput(
                sup, lobby, pairs, n, window, EST_ROUNDS_PER_S[100] / 2, on_ready=begin
            )
        else:
            r = await workloads.lifecycle(sup, lobby, pairs, n, window, True, on_window=begin)
        summaries: dict[str, Any] = {}
        if exe is None:
            await asyncio.to_thread(system.stop_profiles, sup)
        for name, raw_path, proc in spies:
            await asyncio.to_thread(proc.wait, 60)
            if raw_path.exists():
                s = profiles.summarise(raw_path)
                summaries[name] = s
                (out / raw_path.with_suffix(".txt").name).write_text(
                    profiles.render(name, s) + "\n"
                )
        r["config"] = f"single+{tool}"
        result["profile"] = {
            "tool": tool,
            "workload": workload,
            "run": r,
            "summaries": summaries,
            "raw": str(raw_dir),
            "files": sorted(str(p) for p in out.glob("*")),
        }
        rate = (
            f"{r['rounds_per_s']:.0f} rounds/s"
            if workload == "throughput"
            else f"{r['matches_per_s']:.1f} matches/s"
        )
        say(f"  profiled run: {rate}; profiles in {out}")
    finally:
        await lobby.close()
        sup.stop()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--quick", action="store_true", help="a small smoke run")
    ap.add_argument("--only", default=",".join(PARTS),
                    help=f"comma list of {', '.join(PARTS + EXTRA_PARTS)}")
    ap.add_argument("--levels", default="1,10,100,300", help="concurrent matches")
    ap.add_argument("--configs", default="single,hot2", help=f"of {', '.join(CONFIGS)}")
    ap.add_argument("--window", type=float, default=8.0, help="seconds measured per level")
    ap.add_argument("--lifecycle-window", type=float, default=20.0)
    ap.add_argument("--lifecycle-concurrency", type=int, default=50)
    ap.add_argument("--memory-games", type=int, default=200)
    ap.add_argument("--engine-budget", type=float, default=4.0, help="CPU s per engine run")
    ap.add_argument("--profile", action="store_true", help="add a profiled run")
    ap.add_argument("--profile-only", action="store_true", help="only the profiled run")
    ap.add_argument("--profile-matches", type=int, default=100)
    ap.add_argument(
        "--profile-workload", choices=("throughput", "lifecycle"), default="throughput"
    )
    ap.add_argument(
        "--signatures", choices=("on", "lenient", "off"), default="on",
        help="signed commits: on (required and sent), lenient (sent, the services run with "
        "EMPIRE_REQUIRE_SIGNATURES=0), off (not sent, not required): the A/B of their cost",
    )
    ap.add_argument(
        "--protocol", type=int, choices=(2, 3), default=driver.WATCH_VERSION,
        help="the players' watch version: 3 one frame per state change with its record "
        "entries, 2 one frame per record entry: the A/B of the frames",
    )
    ap.add_argument("--long-rounds", type=int, default=longmatch.ROUNDS)
    ap.add_argument("--long-matches", type=int, default=1)
    ap.add_argument("--open-rate", type=float, default=0.0,
                    help="rounds/s offered by the open loop (0: half the last level's rate)")
    ap.add_argument("--open-pairs", type=int, default=50)
    ap.add_argument("--open-mode", choices=("rounds", "games"), default="rounds",
                    help="rounds: rounds of running games arrive (bench/openrounds.py); "
                         "games: whole 5-round games arrive (bench/openloop.py)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.quick:
        args.levels, args.configs = "1,10", "single"
        args.window, args.lifecycle_window = 3.0, 4.0
        args.lifecycle_concurrency, args.memory_games, args.engine_budget = 10, 40, 1.0
    args.levels = [int(x) for x in str(args.levels).split(",") if x]
    args.configs = [c for c in str(args.configs).split(",") if c]
    args.parts = [p for p in str(args.only).split(",") if p]
    for p in args.parts:
        if p not in PARTS + EXTRA_PARTS:
            ap.error(f"unknown part {p!r}")
    for c in args.configs:
        if c not in CONFIGS:
            ap.error(f"unknown config {c!r}")
    if args.profile_only:
        args.parts, args.profile = [], True
    return args


def apply_signatures(mode: str) -> None:
    """The driver signs unless ``off``; the services require signatures only when ``on``."""
    driver.SIGN = mode != "off"
    if mode == "on":
        system.BENCH_ENV.pop("EMPIRE_REQUIRE_SIGNATURES", None)
    else:
        system.BENCH_ENV["EMPIRE_REQUIRE_SIGNATURES"] = "0"


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "argv": sys.argv[1:],
        "workload": {
            "game": "duel",
            "options": OPTIONS,
            "seats": 2,
            "throughput_client_entropy": False,
            "driver": "SDK client sockets, raw frames, 1 process",
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "git": git_state(),
        "configs": {k: CONFIGS[k] for k in args.configs},
        "env": dict(system.BENCH_ENV),
        "signatures": args.signatures,
        "protocol": args.protocol,
        "throughput": [],
        "lifecycle": [],
        "memory": {},
        "engines": [],
        "failed": [],
    }
    t0 = time.perf_counter()
    result["background_cpu_pct"] = await asyncio.to_thread(system.background_cpu, 2.0)
    if result["background_cpu_pct"] > 20:
        say(
            f"WARNING: other processes use {result['background_cpu_pct']:.0f}% of a core "
            "before the start: the figures will be low"
        )
    if "engines" in args.parts:
        say(f"engines: full playouts, {args.engine_budget:.0f} CPU s each, 2 processes")
        result["engines"] = await asyncio.to_thread(engines.run_all, args.engine_budget)
    if "micro" in args.parts:
        say("micro: unit costs (Redis round trip, publish, consume, thread hop, model work, "
            "a commit's cryptography)")
        result["micro"] = await micro.run(3000)
    if {"memory", "throughput", "lifecycle", "long", "open"} & set(args.parts):
        for name in args.configs:
            await run_config(name, args, result)
    if args.profile:
        await run_profile(args, result)
    result["elapsed_s"] = round(time.perf_counter() - t0, 1)
    return result


def print_report(result: dict[str, Any]) -> None:
    print()
    print(
        "Workload: duel " + json.dumps(result["workload"]["options"]) + ", 2 seats, raw "
        "WebSocket clients through the gateway; supervisor + embedded Valkey; latencies ms"
    )
    if result["throughput"]:
        print("\nThroughput (rounds/s = peer moves/s / 4; CPU % of one core over the window)")
        print(report.throughput_table(result["throughput"]))
        print("\nCPU ms per completed round, by process (bots/lobby/scoring idle)")
        print(report.cpu_per_round_table(result["throughput"]))
        print("\nPeak RSS (MiB)")
        print(report.rss_table(result["throughput"]))
    for r in result.get("open_loop", []):
        ack, rev = r["submit_ack_ms"], r["submit_reveal_ms"]
        print(f"\nOpen loop of {r.get('mode', 'games')} ({r['config']}): "
              f"{r['offered_rounds_per_s']:.0f} rounds/s offered, "
              f"{r['rounds_per_s']:.0f} done, {r['pairs']} pairs, missed arrivals "
              f"{r['missed_arrivals']}; submit->ack p50/p99 {ack.get('p50')}/{ack.get('p99')} "
              f"ms, submit->reveal p50/p95/p99 {rev.get('p50')}/{rev.get('p95')}/"
              f"{rev.get('p99')} ms; server CPU ms/round "
              f"{sum(v for k, v in r['cpu_ms_per_round'].items() if k != 'driver'):.2f}")
    if result.get("long_match"):
        print("\nLong match: a round's cost around the peer's move N (4 moves per round)")
        print(report.long_table(result["long_match"]))
    if result["lifecycle"]:
        print("\nLifecycle (create, join, start, 2 WebSockets, 5 rounds, close)")
        print(report.lifecycle_table(result["lifecycle"]))
    if result["memory"]:
        print("\nValkey memory per game")
        print(report.memory_table(result["memory"]))
    if result.get("micro"):
        print("\nUnit costs (CPU us in one process)")
        print("\n".join(f"  {k:40} {v:8.1f}" for k, v in result["micro"].items()))
    if result["engines"]:
        print("\nEngines: full playouts per CPU-second")
        print(report.engines_table(result["engines"]))
    if result.get("profile"):
        print("\nProfiles: " + ", ".join(result["profile"]["files"]))
    for f in result["failed"]:
        print(f"\nFAILED {f['config']} {f['part']}: {f['error']}")
    print(
        f"\nOther processes before the start: {result['background_cpu_pct']:.0f}% of a core "
        "(other% columns: during each window)"
    )
    t = report.targets(result)
    if t:
        print("\nTargets\n" + t)
    print(f"\nelapsed {result['elapsed_s']:.0f} s")


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    apply_signatures(args.signatures)
    driver.WATCH_VERSION = args.protocol
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    result = asyncio.run(amain(args))
    print_report(result)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = json.dumps(result, indent=1, sort_keys=False)
    kind = "bench" if result["throughput"] or result["lifecycle"] or result.get("long_match") \
        or result.get("open_loop") else "partial"
    (args.out / f"{kind}-{stamp}.json").write_text(text)
    if kind == "bench":
        (args.out / "latest.json").write_text(text)
    print(f"wrote {args.out / f'{kind}-{stamp}.json'}")


if __name__ == "__main__":
    main()
