"""The record route's narration (services/gateway/routes/matches.py): each public event of the
record in the live log's words (shared/rules/narrate.py), nothing for the record's other
entries, so the replay's move list reads like the log."""

from __future__ import annotations

import pytest

from services.gateway.routes.matches import narration
from shared.rules.narrate import narrate

pytestmark = pytest.mark.unit

PLAYERS = [{"player_id": "p-a", "name": "Ada"}, {"player_id": "b-1", "name": "Heuristic bot"}]


def test_events_get_the_logs_sentence_and_other_entries_none() -> None:
    rec = [
        {"type": "game_created", "game": "empires-end"},
        {"type": "event", "seq": 3, "event": "bid",
         "data": {"seat": 1, "resource": "axe", "disaster": 0}},
        {"type": "committed", "round_id": "conflict:1", "slot": "s0", "commitment": "ab"},
        {"type": "event", "seq": 4, "event": "no_such_event", "data": {"overridden": False}},
    ]
    out = narration("empires-end", rec, PLAYERS)
    assert out[0] is None and out[2] is None
    assert out[1] == narrate("empires-end", "bid", rec[1]["data"], ["Ada", "Heuristic bot"])
    assert out[1] == "Heuristic bot bids an axe on disaster 1."  # 1-based, as the log shows
    assert isinstance(out[3], str) and out[3]  # a whole sentence even without a narrator
    assert len(out) == len(rec)


def test_a_malformed_event_entry_is_not_narrated() -> None:
    rec = [{"type": "event", "seq": 1, "data": {}}, {"type": "event", "event": "bid", "data": []}]
    assert narration("empires-end", rec, PLAYERS) == [None, None]
