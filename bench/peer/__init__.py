"""The peer beside ours: boardgame.io 0.50.2 serving the bench's duel, driven by
its own clients over socket.io (``driver.js``, ``game.js``, ``server.js`` in this folder;
``npm ci`` installs it from package-lock.json), and the table that reads the two side by side.

``python -m bench.peer`` (``make bench-peer``) runs both in one window; see __main__.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

PEER_DIR = Path(__file__).resolve().parent
MARK = "PEER-JSON "


class PeerError(Exception):
    pass


def parse_output(text: str) -> dict[str, Any]:
    """The figures of one ``node driver.js`` run: its last ``PEER-JSON {...}`` line."""
    for line in reversed(text.splitlines()):
        if line.startswith(MARK):
            data = json.loads(line[len(MARK) :])
            if not isinstance(data, dict) or not isinstance(data.get("levels"), list):
                raise PeerError("PEER-JSON without levels")
            for lv in data["levels"]:
                for key in ("matches", "rounds_per_s", "move_ms", "round_ms", "cpu_ms_per_round"):
                    if key not in lv:
                        raise PeerError(f"PEER-JSON level without {key}")
            return data
    raise PeerError("no PEER-JSON line in the peer's output")


def table_text(text: str) -> str:
    """The peer's printed tables (its output less the JSON line)."""
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith(MARK)).strip()


def node_ready() -> str | None:
    """Why the peer cannot run here (no node, or ``npm ci`` not run), else None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        return f"boardgame.io is not installed: run `npm ci` in {PEER_DIR}"
    return None


def run(levels: list[int], window: float, lifecycle: int = 0, lifecycle_window: float = 20.0,
        timeout_s: float = 900.0) -> tuple[str, dict[str, Any]]:
    """One run of the peer at these levels (and the lifecycle at ``lifecycle`` concurrent
    matches unless 0): (its printed tables, its figures)."""
    why = node_ready()
    if why is not None:
        raise PeerError(why)
    extra = ["--lifecycle", str(lifecycle), "--lifecycle-window", str(lifecycle_window)] \
        if lifecycle else []
    proc = subprocess.run(
        ["node", str(PEER_DIR / "driver.js"), "--levels", ",".join(map(str, levels)),
         "--window", str(window), *extra],
        capture_output=True, text=True, timeout=timeout_s, cwd=PEER_DIR, check=False,
    )
    if proc.returncode != 0:
        raise PeerError(f"peer driver exited {proc.returncode}: {proc.stderr[-2000:]}")
    return table_text(proc.stdout), parse_output(proc.stdout)


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def compare_rows(ours: list[dict[str, Any]], peer: dict[str, Any]) -> list[dict[str, Any]]:
    """Per level both sides' headline figures. Ours: rounds/s, submit->reveal p99 (a commit
    sent -> its round's reveal seen), submit->ack p99, CPU per round of the services (server
    side) and with the driver. The peer: rounds/s, round p99 (seat 0's commit sent -> the
    round scored), move p99, CPU per round of its server, and with its driver."""
    by_level = {int(lv["matches"]): lv for lv in peer["levels"]}
    rows = []
    for r in ours:
        p = by_level.get(int(r["matches"]))
        if p is None:
            continue
        per = r.get("cpu_ms_per_round") or {}
        ours_total = sum(per.values()) if per else None
        ours_server = (ours_total - per.get("driver", 0.0)) if ours_total is not None else None
        pc = p["cpu_ms_per_round"]
        peer_server = pc.get("server")
        peer_total = None if peer_server is None else peer_server + (pc.get("driver") or 0.0)
        rows.append({
            "config": r.get("config", "single"),
            "matches": int(r["matches"]),
            "ours_rounds_per_s": r["rounds_per_s"],
            "peer_rounds_per_s": p["rounds_per_s"],
            "ours_round_p99_ms": r["submit_reveal_ms"].get("p99"),
            "peer_round_p99_ms": p["round_ms"].get("p99"),
            "ours_move_p99_ms": r["submit_ack_ms"].get("p99"),
            "peer_move_p99_ms": p["move_ms"].get("p99"),
            "ours_server_cpu_ms": ours_server,
            "peer_server_cpu_ms": peer_server,
            "ours_total_cpu_ms": ours_total,
            "peer_total_cpu_ms": peer_total,
        })
    return rows


def compare_table(rows: list[dict[str, Any]]) -> str:
    from bench.report import _table

    header = ["config", "matches", "rounds/s ours vs peer", "ratio",
              "round p99 ms ours vs peer", "move p99 ms ours vs peer",
              "server CPU ms/round ours vs peer", "ratio", "with drivers"]
    out = []
    for c in rows:
        out.append([
            c["config"], str(c["matches"]),
            f"{c['ours_rounds_per_s']:.0f} vs {c['peer_rounds_per_s']:.0f}",
            _ratio(c["ours_rounds_per_s"], c["peer_rounds_per_s"]),
            f"{_num(c['ours_round_p99_ms'], '.1f')} vs {_num(c['peer_round_p99_ms'], '.1f')}",
            f"{_num(c['ours_move_p99_ms'], '.1f')} vs {_num(c['peer_move_p99_ms'], '.1f')}",
            f"{_num(c['ours_server_cpu_ms'], '.2f')} vs {_num(c['peer_server_cpu_ms'], '.2f')}",
            _ratio(c["ours_server_cpu_ms"], c["peer_server_cpu_ms"]),
            f"{_num(c['ours_total_cpu_ms'], '.2f')} vs {_num(c['peer_total_cpu_ms'], '.2f')}",
        ])
    return _table(header, out)


def lifecycle_table(ours: list[dict[str, Any]], peer: dict[str, Any]) -> str:
    """Complete matches/s, ours (client entropy on and off) beside the peer's."""
    from bench.report import _table

    theirs = {int(lv["concurrency"]): lv for lv in peer.get("lifecycle") or []}
    rows = []
    for r in ours:
        p = theirs.get(int(r["concurrency"]))
        if p is None:
            continue
        rows.append([
            r.get("config", "single"), str(r["concurrency"]),
            "on" if r.get("client_entropy") else "off",
            f"{r['matches_per_s']:.1f} vs {p['matches_per_s']:.1f}",
            _ratio(r["matches_per_s"], p["matches_per_s"]),
            f"{_num(r['match_ms'].get('p99'), '.0f')} vs {_num(p['match_ms'].get('p99'), '.0f')}",
        ])
    return _table(["config", "concurrent", "our client entropy", "matches/s ours vs peer",
                   "ratio", "match p99 ms ours vs peer"], rows)
