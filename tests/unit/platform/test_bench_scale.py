"""The scale benchmark's figures and model (bench/scale.py) on made-up runs: the
arithmetic only (the runs themselves are `make bench-scale`, never a test; no timing here)."""

from __future__ import annotations

from typing import Any

import pytest

from bench import scale

pytestmark = pytest.mark.unit


def _run(rps: float, per_round: dict[str, float]) -> dict[str, Any]:
    return {"rounds_per_s": rps, "cpu_ms_per_round": per_round, "machine_cpu_pct": 90.0,
            "other_cpu_pct": 10.0}


ONE = _run(100.0, {"adjudicator#0": 2.0, "escrow#0": 3.0, "gateway#0": 3.0, "valkey": 2.0,
                   "driver": 4.0})
TWO = _run(90.0, {"adjudicator#0": 1.2, "adjudicator#1": 1.2, "escrow#0": 1.7,
                  "escrow#1": 1.7, "gateway#0": 2.0, "gateway#1": 2.0, "valkey": 2.2,
                  "driver": 4.0})
CLUSTER = _run(80.0, {"adjudicator#0": 2.0, "escrow#0": 3.0, "gateway#0": 3.0,
                      "valkey#0": 1.0, "valkey#1": 1.0, "valkey#2": 1.0, "driver": 4.0})


def test_figures_split_valkey_python_and_leave_the_driver_out() -> None:
    f = scale.figures("hot1", ONE)
    assert (f.server_ms, f.valkey_ms, f.python_ms) == (10.0, 2.0, 8.0)
    assert f.by_service["escrow"] == 3.0 and f.valkey_share == pytest.approx(0.2)
    two = scale.figures("hot2", TWO)
    assert two.by_service["adjudicator"] == pytest.approx(2.4)  # replicas summed
    c = scale.figures("cluster3", CLUSTER)
    assert c.valkey_ms == 3.0 and c.python_ms == 8.0  # the nodes summed as Valkey
    assert c.valkey_max_node_ms == 1.0 and f.valkey_max_node_ms == 2.0


def test_added_is_per_round_over_the_first_configuration() -> None:
    rows = [scale.figures("hot1", ONE), scale.figures("hot2", TWO)]
    a = scale.added(rows)
    assert a[0] == {"config": "hot1", "server_ms": 0.0, "valkey_ms": 0.0, "python_ms": 0.0}
    assert a[1]["server_ms"] == pytest.approx(2.0) and a[1]["valkey_ms"] == pytest.approx(0.2)
    assert scale.added([]) == []


def test_the_model_is_1000_ms_over_the_cpu_per_round() -> None:
    f = scale.figures("hot1", ONE)
    m = scale.model(f, cores=2)
    assert m["per_valkey_shard"] == 500.0  # 2 ms of Valkey a round: 500 rounds/s a shard
    assert m["per_added_core"] == 125.0  # 8 ms of Python a round: 125 rounds/s a core
    assert m["this_machine"] == 200.0 and m["efficiency"] == 0.5  # measured 100 of 200
    assert scale.predict(f, 8, 1) == 500.0  # Valkey-bound
    assert scale.predict(f, 2, 3) == 250.0  # core-bound
    c = scale.figures("cluster3", CLUSTER)  # 3 shards at 1 ms each: the busiest bounds them
    assert scale.model(c)["valkey_as_spread"] == 1000.0
    assert scale.model(c)["per_valkey_shard"] == pytest.approx(333.3)
    empty = scale.figures("none", _run(0.0, {}))
    assert scale.model(empty)["per_valkey_shard"] == float("inf")


def test_the_report_states_the_model_and_its_assumptions() -> None:
    result = {"matches": 100, "window_s": 8.0, "cores": 2, "load_avg_start": (1.0, 2.0, 3.0),
              "runs": [ONE | {"config": "hot1"}, TWO | {"config": "hot2"}],
              "failed": [{"config": "cluster3", "error": "boom"}]}
    text = scale.report(result)
    assert "MODEL, not a measurement" in text and "MODEL from hot1" in text
    assert "hot2" in text and "+2.00" in text and "FAILED cluster3: boom" in text
    assert all(a.split(" ")[0] in text for a in scale.ASSUMPTIONS)


def test_the_plan_arguments() -> None:
    args = scale.parse(["--replicas", "1,2", "--clusters", ""])
    assert args.replicas == [1, 2] and args.clusters == []
    assert scale.hot_replicas(1) == {} and scale.hot_replicas(4) == dict.fromkeys(scale.HOT, 4)


def test_the_model_is_fed_by_the_runs_at_the_level_of_a_peer_or_bench_result(
        tmp_path: Any) -> None:
    import json

    at100 = {**ONE, "matches": 100, "config": "single", "window_s": 8.0}
    at10 = {**TWO, "matches": 10, "config": "single"}
    peer_doc = {"runs": [{"ours": [at10, at100]}, {"ours": [at100]}]}
    bench_doc = {"throughput": [at100]}
    (tmp_path / "peer-x.json").write_text(json.dumps(peer_doc))
    (tmp_path / "bench-y.json").write_text(json.dumps(bench_doc))
    result = scale.fed([tmp_path / "peer-x.json", tmp_path / "bench-y.json"], 100)
    assert [r["config"] for r in result["runs"]] == ["peer-x#1", "peer-x#2", "bench-y#1"]
    assert all(r["matches"] == 100 for r in result["runs"])
    text = scale.report(result)
    assert "MODEL" in text and "~125 rounds/s" in text  # 8 ms of Python a round
    assert scale.fed([tmp_path / "bench-y.json"], 300)["runs"] == []
