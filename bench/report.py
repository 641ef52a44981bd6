"""The printed tables (and the peer's figures they are read against)."""

from __future__ import annotations

from typing import Any

# The peer: boardgame.io 0.50.2 measured beside ours in one window (`make bench-peer
# PEER_ARGS="--repeat 3"`, medians of 3 runs on a loaded 2-core machine; docs/performance.md
# has the current side-by-side figures): moves/s (4 moves per round) with p50/p99 move latency
# and the p99 of a round (seat 0's commit sent -> the round scored).
PEER: dict[int, dict[str, float]] = {
    1: {"moves_per_s": 2505, "p50": 0.3, "p99": 4.9, "round_p99": 9.5},
    10: {"moves_per_s": 4985, "p50": 3.2, "p99": 14.6, "round_p99": 30.4},
    100: {"moves_per_s": 3738, "p50": 32.1, "p99": 121.1, "round_p99": 268.2},
    300: {"moves_per_s": 2892, "p50": 126.1, "p99": 534.2, "round_p99": 1026.8},
}
PEER_LIFECYCLE_PER_S = 42.7
# the targets the tables mark: 1.5x the peer's rounds/s and matches/s, p99 at or below the peer's
TARGET_ROUNDS_100 = 1.5 * PEER[100]["moves_per_s"] / 4  # 1,402
TARGET_REVEAL_P99_MS = PEER[100]["round_p99"]
TARGET_LIFECYCLE = 1.5 * PEER_LIFECYCLE_PER_S
TARGET_BYTES_PER_GAME = 50 * 1024


def _lat(p: dict[str, Any]) -> str:
    if not p.get("n"):
        return "-"
    return f"{p['p50']:.1f}/{p['p95']:.1f}/{p['p99']:.1f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    out = [line, "-" * len(line)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


def _cpu(cpu: dict[str, float], names: list[str]) -> str:
    parts = []
    for n in names:
        vals = [v for k, v in cpu.items() if k.split("#")[0] == n]
        if vals:
            parts.append(f"{sum(vals):.0f}")
        else:
            parts.append("-")
    return "/".join(parts)


CPU_COLS = ["adjudicator", "escrow", "gateway", "dealer", "lobby", "scoring", "valkey", "driver"]


def throughput_table(runs: list[dict[str, Any]]) -> str:
    header = [
        "config",
        "matches",
        "rounds/s",
        "peer r/s",
        "ack p50/95/99 ms",
        "reveal p50/95/99 ms",
        "peer p50/99",
        "CPU% adj/esc/gw/dlr/lob/sc/vk/drv",
        "machine%",
        "other%",
        "errors",
    ]
    rows = []
    for r in runs:
        peer = PEER.get(r["matches"])
        rows.append(
            [
                r["config"],
                str(r["matches"]),
                f"{r['rounds_per_s']:.0f}",
                f"{peer['moves_per_s'] / 4:.0f}" if peer else "-",
                _lat(r["submit_ack_ms"]),
                _lat(r["submit_reveal_ms"]),
                f"{peer['p50']}/{peer['p99']}" if peer else "-",
                _cpu(r["cpu_pct"], CPU_COLS),
                f"{r['machine_cpu_pct']:.0f}",
                f"{r.get('other_cpu_pct', 0):.0f}",
                str(sum(r["errors"].values()) + len(r["failures"]))
                + ("" if r.get("valid", True) else " INVALID"),
            ]
        )
    return _table(header, rows)


def cpu_per_round_table(runs: list[dict[str, Any]]) -> str:
    header = ["config", "matches", *CPU_COLS, "total", "valkey cmds/round"]
    rows = []
    for r in runs:
        per = r["cpu_ms_per_round"]
        if not per:
            continue
        cells = []
        for n in CPU_COLS:
            vals = [v for k, v in per.items() if k.split("#")[0] == n]
            cells.append(f"{sum(vals):.2f}" if vals else "-")
        calls = sum(x["calls"] for x in r["valkey_per_round"].values())
        rows.append(
            [r["config"], str(r["matches"]), *cells, f"{sum(per.values()):.2f}", f"{calls:.0f}"]
        )
    return _table(header, rows)


def rss_table(runs: list[dict[str, Any]]) -> str:
    names = sorted({k for r in runs for k in r["rss_mib"]})
    header = ["config", "matches", *names]
    rows = [
        [r["config"], str(r["matches"]), *(f"{r['rss_mib'].get(n, 0):.0f}" for n in names)]
        for r in runs
    ]
    return _table(header, rows)


def lifecycle_table(runs: list[dict[str, Any]]) -> str:
    header = [
        "config",
        "concurrent",
        "client entropy",
        "matches/s",
        "peer",
        "match p50/95/99 ms",
        "CPU% adj/esc/gw/dlr/lob/sc/vk/drv",
        "other%",
        "errors",
    ]
    rows = [
        [
            r["config"],
            str(r["concurrency"]),
            "on" if r["client_entropy"] else "off",
            f"{r['matches_per_s']:.1f}",
            f"{PEER_LIFECYCLE_PER_S:.0f}",
            _lat(r["match_ms"]),
            _cpu(r["cpu_pct"], CPU_COLS),
            f"{r.get('other_cpu_pct', 0):.0f}",
            str(r["error_count"]),
        ]
        for r in runs
    ]
    return _table(header, rows)


def memory_table(mem: dict[str, Any]) -> str:
    rows = []
    for label in ("idle_at_first_round", "idle_before_last_round", "finished"):
        m = mem.get(label)
        if not m:
            continue
        top = ", ".join(f"{k} {v}" for k, v in list(m["by_key"].items())[:5])
        rows.append(
            [
                label,
                str(m["games"]),
                f"{m['bytes_per_game'] / 1024:.1f}",
                str(m["keys_per_game"]),
                top,
            ]
        )
    out = _table(
        ["game state", "games", "KiB/game (MEMORY USAGE)", "keys", "largest keys (B)"], rows
    )
    if "info_used_memory_delta_per_game" in mem:
        out += (
            f"\nINFO used_memory delta per idle game: "
            f"{mem['info_used_memory_delta_per_game'] / 1024:.1f} KiB (includes the game's "
            f"share of the inter-service streams)"
        )
    return out


def engines_table(runs: list[dict[str, Any]]) -> str:
    header = [
        "engine",
        "seats",
        "players",
        "options",
        "games/s/core",
        "moves/s/core",
        "moves/game",
        "finished",
        "note",
    ]
    rows = [
        [
            r["game"],
            str(r["seats"]),
            r["players"],
            str(r["options"] or "default"),
            f"{r['games_per_cpu_s']:.2f}",
            str(r["moves_per_cpu_s"]),
            f"{r['moves_per_game']:.0f}",
            f"{r['finished']}/{r['playouts']}",
            r["note"],
        ]
        for r in runs
    ]
    return _table(header, rows)


def targets(result: dict[str, Any]) -> str:
    lines = []
    best100 = [
        r for r in result.get("throughput", []) if r["matches"] == 100 and r.get("valid", True)
    ]
    if best100:
        b = max(best100, key=lambda r: r["rounds_per_s"])
        p99 = b["submit_reveal_ms"].get("p99", float("nan"))
        ok = b["rounds_per_s"] >= TARGET_ROUNDS_100 and p99 <= TARGET_REVEAL_P99_MS
        lines.append(
            f"rounds/s at 100 matches: {b['rounds_per_s']:.0f} ({b['config']}) vs "
            f"target >= {TARGET_ROUNDS_100:.0f}; submit->reveal p99 {p99:.0f} ms vs "
            f"<= {TARGET_REVEAL_P99_MS:.0f} ms: {'MET' if ok else 'NOT MET'}"
        )
    lc = result.get("lifecycle", [])
    if lc:
        b = max(lc, key=lambda r: r["matches_per_s"])
        lines.append(
            f"lifecycle at {b['concurrency']}: {b['matches_per_s']:.1f}/s ({b['config']}, entropy "
            f"{'on' if b['client_entropy'] else 'off'}) vs target >= "
            f"{TARGET_LIFECYCLE:.0f}/s: "
            f"{'MET' if b['matches_per_s'] >= TARGET_LIFECYCLE else 'NOT MET'}"
        )
    mem = result.get("memory", {}).get("idle_at_first_round")
    if mem:
        ok = mem["bytes_per_game"] <= TARGET_BYTES_PER_GAME
        lines.append(
            f"Valkey per idle live game: {mem['bytes_per_game'] / 1024:.1f} KiB vs "
            f"<= 50 KiB: {'MET' if ok else 'NOT MET'}"
        )
    return "\n".join(lines)


def long_table(lm: dict[str, Any]) -> str:
    """The long match's bands: a round's server CPU and wall time around move N."""
    rows = [[f"{b['move']} (rounds {b['from']}-{b['to']})", str(b["rounds"]),
             "-" if b["cpu_ms_per_round"] is None else f"{b['cpu_ms_per_round']:.2f}",
             "-" if b["wall_ms_per_round"] is None else f"{b['wall_ms_per_round']:.2f}",
             " ".join(f"{k.split('#')[0][:3]} {v:.2f}"
                      for k, v in (b.get("by_process") or {}).items())]
            for b in lm["bands"]]
    return _table(["move", "rounds", "server CPU ms/round", "wall ms/round", "by process"],
                  rows)
