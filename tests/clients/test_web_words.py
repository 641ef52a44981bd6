"""The page's words for clocks, options and the replay's moves (clients/web/duration.js,
schemaform.js, labels.js), run under Node: a duration in minutes, hours or days as the table and
the game clock show it, an option's value through its labels, and a sealed choice in the
replay's move log as the live view names it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shared.protocol.lobby import MAX_CLOCK_MS, CreateTable
from shared.rules import registry
from shared.rules._kit.playout import play

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


@pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")
def test_the_replay_names_an_engine_gear_choice_as_the_live_view_does() -> None:
    """The Empire Engine's sealed gear choices in the replay's move log (labels.js moveText,
    fed the record's public events of the same seq, as replay.js does) read as the live view
    labels them from the round's opening view (games/empire_engine.js): "→ N turns: X on
    top", for a choice the rules replaced (EE-1/EE-2) too, given the component data. Without
    the data, a choice that became its placement still reads in full from the record alone."""
    assert NODE is not None
    from shared.rules import components
    from shared.rules.api import Event, JointAction

    g = registry.get("empire-engine")
    rounds: list[dict[str, Any]] = []

    def step(state: Any, move: Any) -> None:
        if isinstance(move, JointAction) and str(move.round_id).startswith("plan:") \
                and any("gear" in c for c in move.choices.values() if isinstance(c, dict)):
            rounds.append({"round_id": move.round_id, "choices": move.choices,
                           "views": [g.view(state, seat) for seat in range(3)], "events": None})

    def heard(events: list[Event]) -> None:
        if rounds and rounds[-1]["events"] is None:
            rounds[-1]["events"] = [{"type": e.type, "data": e.data} for e in events
                                    if e.visible_to is None]

    play(g, 3, {}, seed=5, on_step=step, on_events=heard, max_steps=400)
    assert len(rounds) >= 2
    players = [{"name": n} for n in ("Ada", "Bob", "Cy")]
    script = f"""
globalThis.document = {{ addEventListener() {{}} }};  // (the boards' modules listen at load)
const l = await import({json.dumps((WEB / "labels.js").as_uri())});
const rounds = {json.dumps(rounds, default=list)};
const players = {json.dumps(players)};
const comp = {json.dumps(components.components("empire-engine"))};
const out = [];
for (const r of rounds) {{
  const move = {{ seq: 7, move: {{ kind: "joint", round_id: r.round_id, choices: r.choices,
                                   defaulted: [] }} }};
  const live = Object.entries(r.choices).map(([key, c]) => {{
    const seat = Number(/^s(\\d+)/.exec(key)[1]);
    const ctx = l.makeCtx("empire-engine", players, seat, {{ view: r.views[seat],
                                                             components: comp }});
    return ctx.choiceLabel(c, {{ key, seat, round_id: r.round_id }});
  }});
  const replay = l.makeCtx("empire-engine", players, null, {{ components: comp }});
  const bare = l.makeCtx("empire-engine", players, null);
  const placements = r.events.find((e) => e.type === "plan_revealed").data.placements;
  const each = (ctx) => Object.entries(r.choices).map(([key, c]) => ctx.choiceLabel(c,
    {{ key, seat: Number(/^s(\\d+)/.exec(key)[1]), round_id: r.round_id, events: r.events }}));
  out.push({{ live, replay: l.moveText(move, replay, r.events), before: l.moveText(move, replay),
             replayEach: each(replay), bareEach: each(bare),
             overridden: placements.filter((p) => p.overridden)
               .map((p) => p.seat + ":" + p.order) }});
}}
console.log(JSON.stringify(out));
"""
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    overridden = 0
    for r, seen in zip(rounds, got, strict=True):
        keys = list(r["choices"])
        assert all(" → " in label and label.endswith(" on top") for label in seen["live"])
        assert seen["replayEach"] == seen["live"]  # the live view's words, choice by choice
        for key, label, bare in zip(keys, seen["live"], seen["bareEach"], strict=True):
            seat, order = key[1:].split(":")
            assert label in seen["replay"], (label, seen["replay"])  # in the move log's line
            base = label.split(" → ")[0]
            assert base in seen["before"] and label not in seen["before"]  # (no events given)
            if f"{seat}:{order}" in seen["overridden"]:
                overridden += 1
                assert bare == base  # the replaced choice's turn needs the component data
            else:
                assert bare == label  # the record alone names it
    assert overridden > 0  # the replaced choices were covered too
