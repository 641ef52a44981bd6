"""``python -m bench.peer`` (``make bench-peer``): ours and the peer in one window.

For each repeat, ours (``python -m bench --only throughput,lifecycle`` at the levels, config
``single``, a fresh system) then the peer (``node bench/peer/driver.js`` at the same levels and
window, and the lifecycle at the same concurrency),
back to back on the same machine; prints both sides' tables, then per level the two sides
side by side and the ratios (with --repeat > 1, the median of each figure over the repeats).
Writes bench/results/peer-<time>.json.

    python -m bench.peer                      # 1,10,100,300 matches, 8 s windows, once
    python -m bench.peer --levels 100 --repeat 3
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

from bench import peer

RESULTS = Path(__file__).resolve().parent.parent / "results"


def run_ours(
    levels: list[int], window: float, config: str, lifecycle: int, lifecycle_window: float
) -> tuple[str, dict[str, Any]]:
    parts = "throughput,lifecycle" if lifecycle else "throughput"
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "bench", "--only", parts, "--configs", config,
             "--levels", ",".join(map(str, levels)), "--window", str(window),
             "--lifecycle-concurrency", str(max(lifecycle, 1)),
             "--lifecycle-window", str(lifecycle_window), "--out", out],
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
    lc = text.find("Lifecycle (")
    if lc > 0:
        tables += "\n\n" + text[lc:].split("\n\n")[0].strip()
    return tables, result


def median_rows(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    out = []
    for i, first in enumerate(runs[0]):
        row: dict[str, Any] = {"config": first["config"], "matches": first["matches"]}
        for k, v in first.items():
            if k in row:
                continue
            vals = [r[i][k] for r in runs if i < len(r) and r[i][k] is not None]
            row[k] = statistics.median(vals) if vals and isinstance(v, int | float) else v
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="1,10,100,300")
    ap.add_argument("--window", type=float, default=8.0)
    ap.add_argument("--config", default="single")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--lifecycle", type=int, default=50, help="concurrent matches; 0: none")
    ap.add_argument("--lifecycle-window", type=float, default=20.0)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",") if x]
    why = peer.node_ready()
    if why is not None:
        sys.exit(f"bench.peer: {why}")
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    runs: list[list[dict[str, Any]]] = []
    raw: list[dict[str, Any]] = []
    for i in range(args.repeat):
        print(f"[bench-peer {time.strftime('%H:%M:%S')}] run {i + 1}/{args.repeat}: ours",
              file=sys.stderr, flush=True)
        ours_text, ours_all = run_ours(levels, args.window, args.config, args.lifecycle,
                                       args.lifecycle_window)
        ours = list(ours_all["throughput"])
        print(f"[bench-peer {time.strftime('%H:%M:%S')}] run {i + 1}/{args.repeat}: peer",
              file=sys.stderr, flush=True)
        peer_text, theirs = peer.run(levels, args.window, args.lifecycle, args.lifecycle_window)
        print(f"\n=== run {i + 1}: ours (Empire Hall, config {args.config})\n{ours_text}")
        print(f"\n=== run {i + 1}: peer\n{peer_text}")
        rows = peer.compare_rows(ours, theirs)
        runs.append(rows)
        raw.append({"ours": ours, "ours_lifecycle": ours_all.get("lifecycle", []),
                    "peer": theirs, "compare": rows})
        if args.lifecycle:
            print(f"\n=== run {i + 1}: lifecycle, ours vs the peer")
            print(peer.lifecycle_table(ours_all.get("lifecycle", []), theirs))
    final = runs[0] if len(runs) == 1 else median_rows(runs)
    label = "" if len(runs) == 1 else f" (medians of {len(runs)} runs)"
    print(f"\nOurs vs the peer, same window{label}; round p99: ours submit->reveal, peer "
          "commit->round scored; move p99: ours submit->ack, peer move->state")
    print(peer.compare_table(final))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"peer-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({"started": started, "levels": levels, "window": args.window,
                                "config": args.config, "runs": raw, "compare": final},
                               indent=1))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
