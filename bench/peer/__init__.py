"""The peers beside ours: boardgame.io 0.50.2 serving the bench's duel, driven by
its own clients over socket.io (``driver.js``, ``game.js``, ``server.js`` in this folder;
``npm ci`` installs it and bgio-postgres 1.0.16 from package-lock.json), with its matches in
memory (``memory``) or stored by bgio-postgres on a PostgreSQL server (``postgres``), and the
tables that read the sides together.

``python -m bench.peer`` (``make bench-peer``) runs the three sides in one window; see
__main__.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

PEER_DIR = Path(__file__).resolve().parent
MARK = "PEER-JSON "
STORES = ("memory", "postgres")
PG_URL = "postgres://postgres@127.0.0.1:5432/postgres"
# the pool of games each pair gets is sized for this many rounds/s of all pairs (the
# durable peer's lobby writes each game to PostgreSQL: a pool sized for the in-memory
# peer's rate would take minutes to create)
MAX_RATE = {"memory": 3000, "postgres": 300}


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
        timeout_s: float = 3600.0, store: str = "memory", pg_url: str = PG_URL,
        long_rounds: int = 0, long_matches: int = 1) -> tuple[str, dict[str, Any]]:
    """One run of the peer with its matches in ``store`` at these levels (and the lifecycle
    at ``lifecycle`` concurrent matches unless 0, and the long match of ``long_rounds``
    rounds unless 0): (its printed tables, its figures)."""
    why = node_ready()
    if why is not None:
        raise PeerError(why)
    extra = ["--lifecycle", str(lifecycle), "--lifecycle-window", str(lifecycle_window)] \
        if lifecycle else []
    if long_rounds:
        extra += ["--long-rounds", str(long_rounds), "--long-matches", str(long_matches)]
    cmd = ["node", str(PEER_DIR / "driver.js"), "--levels", ",".join(map(str, levels)),
           "--window", str(window), "--store", store, "--pg-url", pg_url,
           "--max-rate", str(MAX_RATE[store]), *extra]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=PEER_DIR) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            # SIGTERM: the driver stops its server and drops its database before it exits
            proc.terminate()
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise PeerError(f"peer driver ({store}) did not finish in {timeout_s:.0f} s") \
                from None
    if proc.returncode != 0:
        raise PeerError(f"peer driver exited {proc.returncode}: {err[-2000:]}")
    return table_text(out), parse_output(out)


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _times(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


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


# -- three sides: ours, the in-memory peer, the durable peer --------------------------------

SIDE_NAMES = {"ours": "Empire Hall", "memory": "boardgame.io in memory",
              "postgres": "boardgame.io + bgio-postgres"}


def three_rows(ours: list[dict[str, Any]],
               peers: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per level of ours, each side's rounds/s, round p99 and server CPU per round, and our
    ratios to each peer (``peers``: store -> that peer's figures; a side that did not run a
    level has None there)."""
    rows = []
    for r in ours:
        n = int(r["matches"])
        per = r.get("cpu_ms_per_round") or {}
        row: dict[str, Any] = {
            "config": r.get("config", "single"), "matches": n,
            "ours_rounds_per_s": r["rounds_per_s"],
            "ours_round_p99_ms": r["submit_reveal_ms"].get("p99"),
            "ours_server_cpu_ms": (sum(per.values()) - per.get("driver", 0.0)) if per else None,
        }
        for store in STORES:
            lv = {int(x["matches"]): x for x in (peers.get(store) or {}).get("levels", [])}.get(n)
            row[f"{store}_rounds_per_s"] = lv["rounds_per_s"] if lv else None
            row[f"{store}_round_p99_ms"] = lv["round_ms"].get("p99") if lv else None
            row[f"{store}_server_cpu_ms"] = lv["cpu_ms_per_round"].get("server") if lv else None
            row[f"rate_vs_{store}"] = (r["rounds_per_s"] / lv["rounds_per_s"]
                                       if lv and lv["rounds_per_s"] else None)
        rows.append(row)
    return rows


def three_table(rows: list[dict[str, Any]]) -> str:
    from bench.report import _table

    def trio(c: dict[str, Any], key: str, fmt: str) -> str:
        return " / ".join(_num(c[f"{s}_{key}"], fmt) for s in ("ours", *STORES))

    header = ["matches", "rounds/s ours / memory / postgres", "ours ÷ memory", "ours ÷ postgres",
              "round p99 ms", "server CPU ms/round"]
    out = [[str(c["matches"]), trio(c, "rounds_per_s", ".0f"),
            _times(c["rate_vs_memory"]), _times(c["rate_vs_postgres"]),
            trio(c, "round_p99_ms", ".1f"), trio(c, "server_cpu_ms", ".2f")] for c in rows]
    return _table(header, out)


def long_rows(sides: dict[str, dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Per side, a round's server CPU and wall time around move 100 and move 2,000 (the
    long match's bands) and the late/early ratio of each."""
    rows = []
    for side, lm in sides.items():
        if not lm:
            continue
        bands = {int(b["move"]): b for b in lm.get("bands", [])}
        early, late = bands.get(100), bands.get(2000)
        row: dict[str, Any] = {"side": side}
        for key in ("cpu_ms_per_round", "wall_ms_per_round"):
            a = early.get(key) if early else None
            b = late.get(key) if late else None
            row[f"{key}_100"], row[f"{key}_2000"] = a, b
            row[f"{key}_ratio"] = b / a if a and b is not None else None
        rows.append(row)
    return rows


def long_table(rows: list[dict[str, Any]]) -> str:
    from bench.report import _table

    out = [[SIDE_NAMES.get(r["side"], r["side"]),
            f"{_num(r['cpu_ms_per_round_100'], '.2f')} -> "
            f"{_num(r['cpu_ms_per_round_2000'], '.2f')}",
            _times(r["cpu_ms_per_round_ratio"]),
            f"{_num(r['wall_ms_per_round_100'], '.2f')} -> "
            f"{_num(r['wall_ms_per_round_2000'], '.2f')}",
            _times(r["wall_ms_per_round_ratio"])] for r in rows]
    return _table(["side", "server CPU ms/round, move 100 -> 2,000", "ratio",
                   "wall ms/round, move 100 -> 2,000", "ratio"], out)
