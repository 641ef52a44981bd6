"""The deviation judge (bench/search_deviation.py): a move played out from the true
state, the same figure for the same seed, a win share."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bench import search_deviation
from shared.ai import registry as ai
from shared.ai.search import SearchBot
from shared.rules import registry
from shared.rules.api import Turn

pytestmark = pytest.mark.unit


def test_the_judge_plays_a_move_out_from_the_true_state(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    game = registry.get("empire")
    cases = [c for c in search_deviation.positions("empire", 12) if isinstance(c[1], Turn)]
    state, _, seat, _ = cases[0]
    legal = list(game.legal_actions(state, seat))
    spec = ai.get_search_spec("empire")

    def never(*_: object) -> object:  # the judge knows the state: it never samples one
        raise AssertionError("the judge determinized")

    blind = dataclasses.replace(spec, determinize=never)
    monkeypatch.setattr(search_deviation.ai, "get_search_spec", lambda name: blind)
    first = search_deviation.judge("empire", state, seat, legal[0], 3, seed=7)
    assert 0.0 <= first <= 1.0
    assert search_deviation.judge("empire", state, seat, legal[0], 3, seed=7) == first
    monkeypatch.undo()

    # a variant that leaves the heuristic's move is judged, and the figures printed
    n = search_deviation.deviations("empire", "easy~prior_bias=0~caution=0", cases[:4], 2)
    out = capsys.readouterr().out
    assert n >= 1 and f"judged {n} deviations (2 playouts a move)" in out


def test_the_bots_observe_the_events_so_far_unless_told_not_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cases = search_deviation.positions("empire-cards", 3, seats=3, options={"max_hands": 1})
    assert all(len(c[3]) > 0 for c in cases)
    seen: list[int] = []

    class Watching(SearchBot):
        def observe(self, events: Any, seat: int) -> None:
            seen.append(len(events))
            super().observe(events, seat)

    monkeypatch.setattr(search_deviation, "SearchBot", Watching)
    search_deviation.deviations("empire-cards", "easy~iterations=2", cases[:2])
    assert len(seen) == 2 and all(n > 0 for n in seen)
    search_deviation.deviations("empire-cards", "easy~iterations=2", cases[:2], memory=False)
    assert len(seen) == 2


def test_the_random_yardstick_always_leaves_the_heuristics_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    cases = [c for c in search_deviation.positions("empire", 12) if isinstance(c[1], Turn)]
    n = search_deviation.deviations("empire", "random", cases[:3], 2)
    assert n == 3 and "judged 3 deviations (2 playouts a move)" in capsys.readouterr().out
