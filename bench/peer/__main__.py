"""``python -m bench.peer`` (``make bench-peer``): ours and two peers in one window.

Three sides, each on a fresh system, back to back on the same machine, in an order that turns
with each repeat (ours, memory, postgres; then memory, postgres, ours; ...):

* ours: ``python -m bench --only throughput[,lifecycle][,long]`` at the levels, config
  ``single``;
* ``memory``: boardgame.io 0.50.2 with its matches in memory (``node bench/peer/driver.js``);
* ``postgres``: the same with bgio-postgres 1.0.16 storing the matches on the PostgreSQL at
  ``--pg-url`` (the driver creates a database ``bench_peer_<random>`` and drops it after);
  its server CPU counts PostgreSQL's processes for that database.

Each side also plays the long match (``--long-rounds``, 0: none): the cost of a round around
move 100 and around move 2,000 of one match (bench/longmatch.py). Prints each side's tables,
then one table of the three with our ratios, and the long-match table (with --repeat > 1,
medians over the repeats). Writes bench/results/peer-<time>.json.

    python -m bench.peer                      # 1,10,100,300 matches, 8 s windows, once
    python -m bench.peer --levels 100 --repeat 3 --lifecycle 0
    python -m bench.peer --peers memory       # ours and the in-memory peer only
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import longmatch, peer

RESULTS = Path(__file__).resolve().parent.parent / "results"


def run_ours(
    levels: list[int], window: float, config: str, lifecycle: int, lifecycle_window: float,
    long_rounds: int = 0, long_matches: int = 1,
) -> tuple[str, dict[str, Any]]:
    parts = ["throughput", *(["lifecycle"] if lifecycle else []),
             *(["long"] if long_rounds else [])]
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "bench", "--only", ",".join(parts), "--configs", config,
             "--levels", ",".join(map(str, levels)), "--window", str(window),
             "--lifecycle-concurrency", str(max(lifecycle, 1)),
             "--lifecycle-window", str(lifecycle_window), "--out", out,
             "--long-rounds", str(max(long_rounds, 1)), "--long-matches", str(long_matches)],
            capture_output=True, text=True, check=False,
        )
        latest = Path(out) / "latest.json"
        if proc.returncode != 0 or not latest.exists():
            raise peer.PeerError(f"our bench exited {proc.returncode}: {proc.stderr[-2000:]}")
        result = json.loads(latest.read_text())
    text = proc.stdout
    start = text.find("Throughput")
    end = text.find("Peak RSS")
    tables = text[start:end if end > 0 else None].strip()
    for head in ("Long match", "Lifecycle ("):
        at = text.find(head)
        if at > 0:
            tables += "\n\n" + text[at:].split("\n\n")[0].strip()
    return tables, result


def median_rows(runs: list[list[dict[str, Any]]],
                keys: tuple[str, ...] = ("config", "matches")) -> list[dict[str, Any]]:
    """Each row's numbers as the median over the runs (rows matched by position)."""
    out = []
    for i, first in enumerate(runs[0]):
        row: dict[str, Any] = {k: first[k] for k in keys}
        for k, v in first.items():
            if k in row:
                continue
            vals = [r[i][k] for r in runs if i < len(r) and r[i].get(k) is not None]
            numeric = vals and all(isinstance(x, int | float) for x in vals)
            row[k] = statistics.median(vals) if numeric else v
        out.append(row)
    return out


def order(repeat: int, sides: list[str]) -> list[str]:
    """The sides' order in repeat ``repeat`` (0-based): turned by one each time, so no side
    always runs first on a fresh machine or last on a warm one."""
    k = repeat % len(sides)
    return sides[k:] + sides[:k]


def say(msg: str) -> None:
    print(f"[bench-peer {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="1,10,100,300")
    ap.add_argument("--window", type=float, default=8.0)
    ap.add_argument("--config", default="single")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--lifecycle", type=int, default=50, help="concurrent matches; 0: none")
    ap.add_argument("--lifecycle-window", type=float, default=20.0)
    ap.add_argument("--peers", default=",".join(peer.STORES),
                    help="the peer sides: memory, postgres")
    ap.add_argument("--pg-url", default=peer.PG_URL)
    ap.add_argument("--long-rounds", type=int, default=longmatch.ROUNDS, help="0: none")
    ap.add_argument("--long-matches", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",") if x]
    stores = [s for s in args.peers.split(",") if s]
    for s in stores:
        if s not in peer.STORES:
            ap.error(f"unknown peer {s!r}")
    why = peer.node_ready()
    if why is not None:
        sys.exit(f"bench.peer: {why}")
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    runs: list[list[dict[str, Any]]] = []
    long_runs: list[list[dict[str, Any]]] = []
    raw: list[dict[str, Any]] = []
    for i in range(args.repeat):
        got: dict[str, Any] = {}
        for side in order(i, ["ours", *stores]):
            say(f"run {i + 1}/{args.repeat}: {side}")
            if side == "ours":
                text, ours_all = run_ours(levels, args.window, args.config, args.lifecycle,
                                          args.lifecycle_window, args.long_rounds,
                                          args.long_matches)
                got["ours"] = ours_all
                print(f"\n=== run {i + 1}: ours (Empire Hall, config {args.config})\n{text}")
                continue
            try:
                text, theirs = peer.run(levels, args.window, args.lifecycle,
                                        args.lifecycle_window, store=side, pg_url=args.pg_url,
                                        long_rounds=args.long_rounds,
                                        long_matches=args.long_matches)
            except peer.PeerError as exc:
                say(f"  {side} did not run: {exc}")
                print(f"\n=== run {i + 1}: peer {side}: did not run: {str(exc)[:300]}")
                continue
            got[side] = theirs
            print(f"\n=== run {i + 1}: peer {side}\n{text}")
        ours = list(got["ours"]["throughput"])
        rows = peer.three_rows(ours, {s: got[s] for s in stores if s in got})
        lrows = peer.long_rows({"ours": got["ours"].get("long_match"),
                                **{s: got[s].get("long_match") for s in stores if s in got}})
        runs.append(rows)
        long_runs.append(lrows)
        raw.append({"ours": ours, "ours_lifecycle": got["ours"].get("lifecycle", []),
                    "ours_long": got["ours"].get("long_match"),
                    **{s: got[s] for s in stores if s in got}, "compare": rows, "long": lrows})
        if args.lifecycle:
            for s in stores:
                if s in got:
                    print(f"\n=== run {i + 1}: lifecycle, ours vs the peer ({s})")
                    print(peer.lifecycle_table(got["ours"].get("lifecycle", []), got[s]))
    final = runs[0] if len(runs) == 1 else median_rows(runs)
    final_long = long_runs[0] if len(long_runs) == 1 else median_rows(long_runs, ("side",))
    label = "" if len(runs) == 1 else f" (medians of {len(runs)} runs)"
    print("\nEmpire Hall, boardgame.io in memory, boardgame.io + bgio-postgres: same window"
          f"{label};"
          " round p99: ours submit->reveal, the peers' commit->round scored; server CPU: every"
          " process but the load driver (the durable peer's includes PostgreSQL)")
    print(peer.three_table(final))
    if any(r for r in final_long):
        print(f"\nLong match ({args.long_matches} x {args.long_rounds} rounds): a round's cost "
              f"around move 100 (round 25) and move 2,000 (round 500), 4 peer moves a round{label}")
        print(peer.long_table(final_long))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"peer-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({"started": started, "levels": levels, "window": args.window,
                                "config": args.config, "peers": stores, "runs": raw,
                                "compare": final, "long": final_long}, indent=1))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
