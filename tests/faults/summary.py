"""Print the table of the fault scenarios' figures (test-output/faults/*.json) — the rows of
the README's "Network faults" table. ``python -m tests.faults.summary [dir]``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _tri(d: dict[str, Any]) -> str:
    return " / ".join("–" if d.get(k) is None else f"{d[k]:g}"
                      for k in ("before", "during", "after"))


def rows(directory: Path) -> list[str]:
    out = ["| scenario | fault s | moves/s before / during / after | rounds/s | "
           "p99 ms (act, commit) | recovery s | deadlines | reconnects | unavailable | games |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    from tests.faults.scenarios import SCENARIOS

    order = [s.name for s in SCENARIOS]
    found = [json.loads(p.read_text()) for p in directory.glob("*.json")]
    found = [f for f in found if "scenario" in f]
    found.sort(key=lambda f: order.index(f["scenario"]) if f["scenario"] in order else 99)
    for f in found:
        out.append(
            f"| {f['scenario']} | {f['fault_s']} | {_tri(f['moves_per_s'])} | "
            f"{_tri(f['rounds_per_s'])} | {_tri(f['p99_ms'])} | {f['recovery_s']} | "
            f"{f['deadlines_fired']} | {f['reconnects']} | "
            f"{f['answers'].get('rejected:message/unavailable', 0)} | {f['games']} |")
    return out


if __name__ == "__main__":
    print("\n".join(rows(Path(sys.argv[1] if len(sys.argv) > 1 else "test-output/faults"))))
