"""The peer benchmark's output parser and side-by-side table (bench/peer); the last
test runs boardgame.io's real server and clients briefly (skipped without node or npm ci; marked
slow, so `make slow` runs it and `make test` does not: 6-15 s on a loaded machine)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench import peer

pytestmark = pytest.mark.unit


def _level(matches: int, rounds_per_s: float, server: float | None) -> dict[str, Any]:
    return {
        "matches": matches,
        "rounds_per_s": rounds_per_s,
        "move_ms": {"n": 4, "p50": 1.0, "p95": 2.0, "p99": 3.0},
        "round_ms": {"n": 1, "p50": 4.0, "p95": 5.0, "p99": 6.0},
        "cpu_ms_per_round": {"server": server, "driver": 0.5 if server is not None else None},
    }


def _output(levels: list[dict[str, Any]]) -> str:
    data = {"peer": "boardgame.io", "version": "0.50.2", "levels": levels}
    return "Peer: a table\nside  matches\n----\npeer  1\nPEER-JSON " + json.dumps(data) + "\n"


def test_parse_output_reads_the_json_line_and_keeps_the_tables() -> None:
    text = _output([_level(1, 300.0, 1.0), _level(10, 500.0, 0.8)])
    data = peer.parse_output(text)
    assert [lv["matches"] for lv in data["levels"]] == [1, 10]
    assert data["levels"][1]["rounds_per_s"] == 500.0
    assert "PEER-JSON" not in peer.table_text(text)
    assert peer.table_text(text).startswith("Peer: a table")


@pytest.mark.parametrize(
    "text",
    [
        "no json here\n",
        "PEER-JSON {\"peer\": \"x\"}\n",  # no levels
        "PEER-JSON " + json.dumps({"levels": [{"matches": 1}]}) + "\n",  # a level cut short
    ],
)
def test_parse_output_refuses_output_without_figures(text: str) -> None:
    with pytest.raises(peer.PeerError):
        peer.parse_output(text)


def test_compare_rows_reads_server_cpu_as_ours_less_the_driver() -> None:
    ours = [{
        "config": "single",
        "matches": 10,
        "rounds_per_s": 250.0,
        "submit_reveal_ms": {"p99": 80.0},
        "submit_ack_ms": {"p99": 40.0},
        "cpu_ms_per_round": {"gateway#0": 2.0, "escrow#0": 2.0, "valkey": 1.0, "driver": 1.0},
    }, {  # a level the peer did not run: left out
        "config": "single", "matches": 300, "rounds_per_s": 1.0, "submit_reveal_ms": {},
        "submit_ack_ms": {}, "cpu_ms_per_round": {},
    }]
    rows = peer.compare_rows(ours, {"levels": [_level(10, 500.0, 1.25)]})
    assert len(rows) == 1
    (row,) = rows
    assert row["ours_server_cpu_ms"] == pytest.approx(5.0)
    assert row["ours_total_cpu_ms"] == pytest.approx(6.0)
    assert row["peer_server_cpu_ms"] == pytest.approx(1.25)
    assert row["peer_total_cpu_ms"] == pytest.approx(1.75)
    assert (row["ours_round_p99_ms"], row["peer_round_p99_ms"]) == (80.0, 6.0)
    table = peer.compare_table(rows)
    assert "250 vs 500" in table and "0.50x" in table and "4.00x" in table


@pytest.mark.slow
def test_the_real_peer_plays_and_its_output_parses() -> None:
    why = peer.node_ready()
    if why is not None:
        pytest.skip(why)
    # one match, half a second measured; --max-rate sizes its pool (100 ran out before the
    # window opened on a quiet machine, where the peer plays ~1,500 rounds/s)
    import subprocess

    proc = subprocess.run(
        ["node", str(peer.PEER_DIR / "driver.js"), "--levels", "1", "--window", "0.5",
         "--max-rate", "3000"],
        capture_output=True, text=True, timeout=120, cwd=peer.PEER_DIR, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = peer.parse_output(proc.stdout)
    (lv,) = data["levels"]
    assert data["version"] == "0.50.2"
    assert lv["matches"] == 1 and lv["errors"] == 0
    # 4 moves a round; the moves of the rounds cut by the window's ends land outside it
    assert lv["rounds"] > 0 and lv["move_ms"]["n"] >= 4 * lv["rounds"] - 8
    assert lv["cpu_ms_per_round"]["server"] > 0
    assert "Peer CPU ms per completed round" in peer.table_text(proc.stdout)


def test_lifecycle_table_pairs_ours_with_the_peer_at_the_same_concurrency() -> None:
    ours = [
        {"config": "single", "concurrency": 50, "client_entropy": True, "matches_per_s": 20.0,
         "match_ms": {"p99": 900.0}},
        {"config": "single", "concurrency": 50, "client_entropy": False, "matches_per_s": 30.0,
         "match_ms": {"p99": 700.0}},
        {"config": "single", "concurrency": 10, "client_entropy": True, "matches_per_s": 9.0,
         "match_ms": {"p99": 1.0}},  # the peer ran no lifecycle at 10: left out
    ]
    theirs = {"levels": [], "lifecycle": [{"concurrency": 50, "matches_per_s": 40.0,
                                            "match_ms": {"p99": 300.0}}]}
    lines = peer.lifecycle_table(ours, theirs).splitlines()[2:]
    assert len(lines) == 2
    assert "20.0 vs 40.0" in lines[0] and "0.50x" in lines[0] and "900 vs 300" in lines[0]
    assert "30.0 vs 40.0" in lines[1] and "0.75x" in lines[1]


def test_three_rows_put_both_peers_beside_ours_with_our_ratios() -> None:
    ours = [{"config": "single", "matches": 100, "rounds_per_s": 300.0,
             "submit_reveal_ms": {"p99": 50.0}, "submit_ack_ms": {"p99": 20.0},
             "cpu_ms_per_round": {"escrow#0": 2.0, "valkey": 1.0, "driver": 1.0}}]
    peers = {"memory": {"levels": [_level(100, 1000.0, 0.5)]},
             "postgres": {"levels": [_level(100, 30.0, 40.0)]}}
    (row,) = peer.three_rows(ours, peers)
    assert row["rate_vs_memory"] == pytest.approx(0.3)
    assert row["rate_vs_postgres"] == pytest.approx(10.0)
    assert row["ours_server_cpu_ms"] == pytest.approx(3.0)  # the driver left out
    assert row["postgres_server_cpu_ms"] == 40.0
    text = peer.three_table([row])
    assert "300 / 1000 / 30" in text and "0.30x" in text and "10.00x" in text
    (alone,) = peer.three_rows(ours, {"memory": peers["memory"]})  # the durable one failed
    assert alone["rate_vs_postgres"] is None and alone["postgres_rounds_per_s"] is None
    assert "300 / 1000 / -" in peer.three_table([alone])


def test_long_rows_give_each_side_late_over_early() -> None:
    def lm(early: float, late: float) -> dict[str, Any]:
        return {"bands": [
            {"move": 100, "from": 15, "to": 35, "cpu_ms_per_round": early,
             "wall_ms_per_round": 2 * early},
            {"move": 2000, "from": 490, "to": 510, "cpu_ms_per_round": late,
             "wall_ms_per_round": 2 * late}]}

    rows = peer.long_rows({"ours": lm(4.0, 4.2), "memory": lm(1.0, 1.0),
                           "postgres": lm(25.0, 130.0), "none": None})
    assert [r["side"] for r in rows] == ["ours", "memory", "postgres"]
    assert rows[0]["cpu_ms_per_round_ratio"] == pytest.approx(1.05)
    assert rows[2]["wall_ms_per_round_ratio"] == pytest.approx(5.2)
    text = peer.long_table(rows)
    assert "Empire Hall" in text and "25.00 -> 130.00" in text and "5.20x" in text


def test_the_sides_take_turns_at_running_first() -> None:
    from bench.peer.__main__ import median_rows, order

    sides = ["ours", "memory", "postgres"]
    assert [order(i, sides)[0] for i in range(4)] == ["ours", "memory", "postgres", "ours"]
    assert sorted(order(1, sides)) == sorted(sides)
    rows = median_rows([[{"side": "ours", "x": 1.0, "y": None}],
                        [{"side": "ours", "x": 3.0, "y": 2.0}],
                        [{"side": "ours", "x": 2.0, "y": 4.0}]], ("side",))
    assert rows == [{"side": "ours", "x": 2.0, "y": 3.0}]


def test_band_figures_read_cpu_and_wall_time_between_a_bands_rounds() -> None:
    from bench import longmatch

    # two matches, round r done at r*10 ms (match a) and r*10+5 ms (match b); the server's
    # CPU grows 2 ms per 10 ms of wall time
    marks = [(g, r, r * 0.010 + off) for r in range(1, 41) for g, off in (("a", 0.0),
                                                                          ("b", 0.005))]
    samples = [(t / 1000, 0.0002 * t) for t in range(0, 500, 7)]
    (band,) = longmatch.band_figures(marks, samples, ((100, 15, 35),))
    assert band["wall_ms_per_round"] == pytest.approx(10.0)
    # between the median times of rounds 15 and 35 (0.150 s -> 0.350 s): 40 rounds done by
    # the two matches, 40 ms of CPU
    assert band["rounds"] == 40
    assert band["cpu_ms_per_round"] == pytest.approx(1.0, rel=0.01)
    (late,) = longmatch.band_figures(marks, samples, ((2000, 490, 510),))
    assert late["rounds"] == 0 and late["cpu_ms_per_round"] is None


@pytest.mark.slow
def test_the_durable_peer_plays_on_its_own_database_and_drops_it() -> None:
    """boardgame.io + bgio-postgres on the machine's PostgreSQL (skipped without one): one
    match measured briefly, a 40-round long match, and no bench_peer_ database left."""
    why = peer.node_ready()
    if why is not None:
        pytest.skip(why)
    import subprocess

    def databases() -> set[str]:
        proc = subprocess.run(
            ["node", "-e", "const {Client}=require('pg');const c=new Client({connectionString:"
             f"'{peer.PG_URL}'}});c.connect().then(()=>c.query('select datname from "
             "pg_database')).then(r=>{console.log(r.rows.map(x=>x.datname).join(' '));"
             "return c.end();}).catch(()=>process.exit(3));"],
            capture_output=True, text=True, timeout=60, cwd=peer.PEER_DIR, check=False)
        if proc.returncode != 0:
            pytest.skip("no PostgreSQL at " + peer.PG_URL)
        return {d for d in proc.stdout.split() if d.startswith("bench_peer_")}

    before = databases()
    text, data = peer.run([1], 0.5, store="postgres", long_rounds=40, timeout_s=300)
    assert data["store"] == "postgres" and data["store_version"] == "1.0.16"
    (lv,) = data["levels"]
    assert lv["errors"] == 0 and lv["rounds"] > 0 and lv["cpu_ms_per_round"]["server"] > 0
    (band,) = data["long_match"]["bands"]
    assert band["move"] == 100 and band["rounds"] == 20 and band["cpu_ms_per_round"] > 0
    assert "bgio-postgres" in text
    assert databases() <= before  # its own database dropped
