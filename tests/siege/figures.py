"""The README's "Under siege" table from the last run's figures:
``python -m tests.siege.figures [test-output/siege/victims.json]`` prints it (Markdown)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ATTACKS = ("stalled_readers", "body_flood", "act_flood", "table_and_bot_flood", "slow_loris",
           "listing_flood", "socket_churn")


def table(f: dict[str, Any]) -> str:
    base = f["baseline"]
    rows = ["| phase | attack | frames/s during (after) | of baseline | gap p99 ms during "
            "(after) |", "|---|---|---|---|---|",
            f"| baseline | - | {base['frames_per_s']} | 100 % | {base['gap_p99_ms']} |"]
    for name in ATTACKS:
        a = f[name]
        did = ", ".join(f"{k} {v}" for k, v in a["attack"].items())
        d, after = a["during"], a["after"]
        share = round(100 * d["frames_per_s"] / base["frames_per_s"]) if base[
            "frames_per_s"] else 0
        rows.append(f"| {name.replace('_', ' ')} | {did} | {d['frames_per_s']} "
                    f"({after['frames_per_s']}) | {share} % | {d['gap_p99_ms']} "
                    f"({after['gap_p99_ms']}) |")
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
