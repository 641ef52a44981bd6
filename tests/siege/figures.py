"""The victims' figures: each window's frame rate and gaps, the bounds, and the
README's "Under siege" table from the last run's figures:
``python -m tests.siege.figures [test-output/siege/victims.json]`` prints it (Markdown).

Pure code, no I/O but the table's file: tests/siege/test_victim_figures.py checks that the
bounds fail for a victim that is really slowed."""

from __future__ import annotations

import itertools
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ATTACKS = ("stalled_readers", "body_flood", "act_flood", "table_and_bot_flood", "slow_loris",
           "listing_flood", "listing_flood_authenticated", "socket_churn")
MIN_RATE, MAX_P99 = 0.9, 2.0  # the bounds, asserted at full size
P99_FLOOR_MS = 50.0  # a baseline p99 gap below this is taken as this (timer noise)


def p99(xs: list[float]) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def window(frames: list[tuple[str, float]], moves: list[float], refusals: list[float],
           t0: float, t1: float) -> dict[str, float]:
    """The victim's frames (game, arrival time) between ``t0`` and ``t1``: the frame rate and
    the gaps between consecutive frames of one game (the pause between two games, a table
    being set up, is neither play nor a gap); its moves (decisions sent) per second and the
    rate refusals it met (its connection's own limit: must be 0, or the window measured the
    limiter, not the server)."""
    inside = [(g, t) for g, t in frames if t0 <= t < t1]
    gaps = [b - a for (ga, a), (gb, b) in itertools.pairwise(inside) if ga == gb]
    playing = sum(gaps)
    return {"frames_per_s": round(len(gaps) / playing, 1) if playing else 0.0,
            "frames": len(inside),
            "moves_per_s": round(sum(1 for t in moves if t0 <= t < t1) / (t1 - t0), 1)
            if t1 > t0 else 0.0,
            "rate_refusals": sum(1 for t in refusals if t0 <= t < t1),
            "gap_p99_ms": round(p99(gaps) * 1000, 1),
            "gap_median_ms": round(statistics.median(gaps) * 1000, 1) if gaps else 0.0}


def verdict(base: dict[str, float], during: dict[str, float]) -> list[str]:
    """What breaks the bounds in one attack's window (empty: met): the frame rate below
    MIN_RATE of the baseline's, the p99 gap above MAX_P99 times the baseline's, or a window
    where the victim met its own connection's rate limit (then it measured the limiter)."""
    out = []
    if during["frames_per_s"] < MIN_RATE * base["frames_per_s"]:
        out.append(f"frames/s {during['frames_per_s']} < {MIN_RATE:.0%} of "
                   f"{base['frames_per_s']}")
    if during["gap_p99_ms"] > MAX_P99 * max(base["gap_p99_ms"], P99_FLOOR_MS):
        out.append(f"gap p99 {during['gap_p99_ms']} ms > {MAX_P99}x "
                   f"{max(base['gap_p99_ms'], P99_FLOOR_MS)} ms")
    if during.get("rate_refusals", 0) or base.get("rate_refusals", 0):
        out.append("the victim met its own connection's rate limit")
    return out


def table(f: dict[str, Any]) -> str:
    base = f["baseline"]
    bcpu = f.get("baseline_cpu_s", {})
    rows = ["| phase | attack | frames/s before / during / after | during, of baseline | "
            "gap p99 ms before / during / after | CPU s attacker / gateway | load |",
            "|---|---|---|---|---|---|---|",
            f"| baseline | - | {base['frames_per_s']} | 100 % | {base['gap_p99_ms']} | "
            f"- / {bcpu.get('gateway', '-')} | {f.get('baseline_loadavg', '-')} |"]
    for name in ATTACKS:
        if name not in f:
            continue
        a = f[name]
        did = ", ".join(f"{k} {v}" for k, v in a["attack"].items())
        b, d, after = a.get("before", {}), a["during"], a["after"]
        share = round(100 * d["frames_per_s"] / base["frames_per_s"]) if base[
            "frames_per_s"] else 0
        rows.append(f"| {name.replace('_', ' ')} | {did} | {b.get('frames_per_s', '-')} / "
                    f"**{d['frames_per_s']}** / {after['frames_per_s']} | {share} % | "
                    f"{b.get('gap_p99_ms', '-')} / **{d['gap_p99_ms']}** / "
                    f"{after['gap_p99_ms']} | {a.get('cpu_s', {}).get('attacker', '-')} / "
                    f"{a.get('cpu_s', {}).get('gateway', '-')} | {a.get('loadavg', '-')} |")
    refused = ", ".join(f"{k} {v}" for k, v in sorted(f["refused"].items()))
    rows.append("")
    rows.append(f"Refused requests: {f['refused_total']} ({refused}); Valkey used_memory "
                f"grew by {f['used_memory_growth_bytes']} B across them. The victim played "
                f"{f['victim_games']} duels; all {f['victim_commits_acknowledged']} "
                f"acknowledged commits stand in their records.")
    return "\n".join(rows)


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "test-output/siege/victims.json")
    print(table(json.loads(path.read_text())))
