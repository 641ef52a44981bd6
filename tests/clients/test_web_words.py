"""The page's words for clocks and options (clients/web/duration.js, schemaform.js), run under
Node: a duration in minutes, hours or days as the table and the game clock show it, and an
option's value through its labels."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from shared.protocol.lobby import MAX_CLOCK_MS, CreateTable

pytestmark = pytest.mark.clients

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")
def test_durations_and_option_values_in_words() -> None:
    assert NODE is not None
    script = f"""
const d = await import({json.dumps((WEB / "duration.js").as_uri())});
const f = await import({json.dumps((WEB / "schemaform.js").as_uri())});
const ms = [45_000, 119_000, 180_000, 5_400_000, 7_200_000, 86_400_000, 431_998_000, -5];
console.log(JSON.stringify({{
  words: ms.map(d.durationWords),
  units: d.UNITS, range: [d.MIN_MS, d.MAX_MS, d.MAX_TURN_BASED_MS],
  values: [f.valueWords({{labels: {{rps: "rock-paper-scissors"}}}}, "rps"),
           f.valueWords({{}}, "rank_suit"), f.valueWords({{}}, true), f.valueWords({{}}, null)],
}}));
"""
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["words"] == ["45 seconds", "119 seconds", "3 minutes", "1 hour 30 minutes",
                            "2 hours", "1 day", "4 days 23 hours", "0 seconds"]
    assert got["units"] == [["minutes", 60_000], ["hours", 3_600_000], ["days", 86_400_000]]
    # the API's own bounds hold the picker's: 1 minute (its floor) to each pace's most
    api = CreateTable.model_json_schema()["properties"]["turn_timeout_ms"]["anyOf"][0]
    low, real_time, turn_based = got["range"]
    assert api["minimum"] <= low < real_time == MAX_CLOCK_MS["real-time"]
    assert real_time < turn_based == MAX_CLOCK_MS["turn-based"] == api["maximum"]
    assert got["values"] == ["rock-paper-scissors", "rank suit", "on", "none"]
