"""Ruling P-S1 on a real game (tests/fixtures/records/empire-engine-idle.json, captured by
tests/fixtures/records/capture.py): seat 0 of a 3-seat Empire Engine game idles through plan:1,
a fixed-order round. Only seat 0's slots default; the bots after it in the order keep their
own choices, and every later round has no default at all. (Under one deadline for the whole
order, every slot after seat 0's first would have defaulted too.)"""

from __future__ import annotations

import pytest

from shared.fairness.verify import verify
from tests.support import tamper

pytestmark = pytest.mark.unit


def test_an_idle_seat_defaults_alone_in_a_real_engine_game() -> None:
    doc = tamper.load("empire-engine-idle")
    problems, _ = verify(doc)
    assert problems == []
    closed = {e["round_id"]: e["defaulted"] for e in tamper.entries(doc, "round_closed")}
    assert closed["plan:1"] == ["s0:1", "s0:2"]
    assert all(d == [] for rid, d in closed.items() if rid != "plan:1")
    timed = [(e["slot"], e["seat"]) for e in tamper.entries(doc, "slot_timed_out")]
    assert timed == [("s0:1", 0), ("s0:2", 0)]
    opened = tamper.one(doc, "round_opened", round_id="plan:1")
    assert opened["slot_timeout_ms"] == 1500
    # the later seats' choices stand: committed, and revealed as theirs
    rev = tamper.one(doc, "round_revealed", round_id="plan:1")
    later = [s["key"] for s in opened["slots"] if s["seat"] != 0]  # in the round's fixed order
    assert sorted(later) == ["s1:1", "s1:2", "s2:1", "s2:2"]
    assert [o["slot"] for o in rev["openings"] if not o["defaulted"]] == later
