"""The bot ladder's plumbing (bench/ladder.py): entrant variants and result files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import ladder
from shared.ai.search import LEVELS
from shared.rules.api import Simultaneous

pytestmark = pytest.mark.unit


def test_an_entrant_is_a_level_with_field_overrides() -> None:
    assert ladder.search_level("hard") is LEVELS["hard"]
    shaped = ladder.search_level("normal~iterations=400~time_s=2~prior_bias=0.1")
    assert (shaped.iterations, shaped.time_s, shaped.prior_bias) == (400, 2.0, 0.1)
    assert isinstance(shaped.iterations, int) and shaped.tree_depth == LEVELS["normal"].tree_depth
    fast = ladder.search_level("normal+fast30*2~tree_depth=1")
    assert (fast.fast_depth, fast.iterations, fast.tree_depth) == (30, 200, 1)
    with pytest.raises(AssertionError):
        ladder.search_level("normal~depth=3")  # not a Level field


def test_a_games_blunders_follow_the_plain_level_and_a_variant_sets_its_own() -> None:
    """``SearchSpec.blunders``: the ladder's plain ``easy`` in the Card Game is the
    easy a host picks (two in five of its moves random); a variant is its own level."""
    from shared.ai import registry as ai

    def blunder(game: str, who: str) -> float:
        return float(ai.get_search_bot(game, ladder.search_level(who), 1).level.blunder)

    assert blunder("empire-cards", "easy") == 0.4
    assert blunder("empire-cards", "normal") == 0.2
    assert blunder("empire", "easy") == 0.0
    assert blunder("empire-cards", "easy~iterations=80") == 0.0
    assert blunder("empire-cards", "easy~blunder=0.1") == 0.1


def test_two_runs_started_in_one_second_write_two_files(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    """Two ladders started in the same second wrote over each other's lines in one file."""
    monkeypatch.setattr(ladder, "RESULTS", tmp_path)
    monkeypatch.setattr(ladder.time, "strftime", lambda fmt: "20261128-101010")
    first_stamp, first = ladder._new_log()
    second_stamp, second = ladder._new_log()
    with first, second:
        first.write("a\n")
        second.write("b\n")
    assert (first_stamp, second_stamp) == ("20261128-101010", "20261128-101010-2")
    assert (tmp_path / "ladder-20261128-101010.jsonl").read_text() == "a\n"
    assert (tmp_path / "ladder-20261128-101010-2.jsonl").read_text() == "b\n"


def test_a_later_run_adds_new_games_instead_of_repeating_them() -> None:
    first = ladder.schedule(["empire"], [2], [("hard", "normal")], 3)
    more = ladder.schedule(["empire"], [2], [("hard", "normal")], 3, first=3)
    assert [m.index for m in first] == [0, 1, 2] and [m.index for m in more] == [3, 4, 5]


def test_a_lone_entrant_plays_one_rotating_seat_among_the_others() -> None:
    """The multi-player target is one hard seat among heuristic seats; with A and B
    alternating, two A seats at a table take first places from each other."""
    plan = ladder.schedule(["empire-engine"], [3], [("hard", "heuristic")], 4, lone=True)
    tables = [[m.entrant_of(s) for s in range(3)] for m in plan]
    assert tables == [["hard", "heuristic", "heuristic"], ["heuristic", "hard", "heuristic"],
                      ["heuristic", "heuristic", "hard"], ["hard", "heuristic", "heuristic"]]
    alternate = ladder.schedule(["empire-engine"], [3], [("hard", "heuristic")], 2)
    assert [[m.entrant_of(s) for s in range(3)] for m in alternate] == [
        ["hard", "heuristic", "hard"], ["heuristic", "hard", "heuristic"]]


def test_the_default_run_also_seats_one_hard_bot_among_heuristics_at_3_or_more_seats() -> None:
    """``make bots`` measures the multi-player target: besides the alternating
    pairings, hard alone among heuristic seats at every table of 3 or more seats."""
    plan = ladder.plan_of(["empire", "empire-engine"], None, "", 2, {})
    lone = {(m.game, m.seats, m.a, m.b) for m in plan if m.lone}
    assert lone == {("empire", 4, "hard", "heuristic"), ("empire-engine", 3, "hard", "heuristic")}
    assert len(plan) == 2 * len(ladder.PAIRS) * 4 + 2 * 2
    assert not any(m.lone for m in ladder.plan_of(["empire"], None, "hard:normal", 2, {}))
    assert all(m.lone for m in ladder.plan_of(["empire"], [4], "", 2, {}, lone=True))
    quick = ladder.plan_of(["empire"], [2], "", 20, {}, quick=True)
    assert len(quick) == 4 and not any(m.lone for m in quick)


def test_the_summary_gives_first_places_per_a_seat_against_the_fair_share() -> None:
    def record(entrants: list[str], winners: list[int], lone: bool) -> dict[str, object]:
        score = sum(entrants[w] == "hard" for w in winners) / len(winners)
        return {"game": "g", "seats": 3, "a": "hard", "b": "heuristic", "lone": lone,
                "finished": True, "winners": winners, "entrants": entrants, "score_a": score,
                "all_way_tie": len(winners) == 3, "decision_s": {}}

    two_a = [record(["hard", "heuristic", "hard"], [0], False),
             record(["heuristic", "hard", "heuristic"], [0], False)]
    one_a = [record(["hard", "heuristic", "heuristic"], [0], True),
             record(["heuristic", "hard", "heuristic"], [1, 2], True)]
    rows = {m["lone"]: m for m in ladder.summarize(two_a + one_a)["matches"]}
    assert (rows[False]["score_a"], rows[False]["first_per_a_seat"]) == (0.5, round(1 / 3, 3))
    assert (rows[True]["score_a"], rows[True]["first_per_a_seat"]) == (0.75, 0.75)
    assert rows[True]["fair_share"] == round(1 / 3, 3)


def test_an_oracle_entrant_searches_from_the_true_state() -> None:
    """``oracle-<level>`` (a diagnostic: what perfect information is worth to the same
    search) hands the search the true state, hidden score piles included (EE-12), instead of
    a determinization of the view; the view the bot is given is still the seat's own."""
    import random

    from shared.ai import registry as ai
    from shared.rules import registry
    from shared.rules._kit.playout import default_actor, default_chooser, play

    game = registry.get("empire-engine")
    seen: list[Any] = []  # plan rounds with something in the score piles

    def keep(state: Any, move: Any) -> None:
        if state.phase == "plan" and state.round >= 4:
            seen.append(state)

    play(game, 3, {}, seed=5, actors=dict.fromkeys(range(3), default_actor),
         choosers=dict.fromkeys(range(3), default_chooser), on_step=keep)
    state = seen[0]
    node = game.next(state)
    assert isinstance(node, Simultaneous)
    slots = [s for s in node.slots if s.seat == 0]
    timed = ladder._Timed(ai.get_search_bot("empire-engine", "easy", 1), None)
    _act, choose = ladder.oracle_players(timed)
    choice = choose(game, state, slots[0], random.Random(0), {})
    assert choice in slots[0].allowed
    view = game.view(state, 0)
    assert view["players"][1]["score"] is None  # the seat's view hides it ...
    assert timed.bot.spec.determinize(view, 0, random.Random(0)) is state  # ... the oracle not
    plan = ladder.plan_of(["empire-engine"], [3], "oracle-hard:heuristic", 1, {}, lone=True)
    assert plan[0].a == "oracle-hard"


def test_a_seat_count_the_game_does_not_allow_is_refused_before_any_game() -> None:
    """New York and the Card Game are for 3-6 players (NY-13): a 2-seat run of either ran
    the ladder's workers up and then failed in the first game's setup."""
    with pytest.raises(SystemExit, match="empire-nyc plays 3 to 6 seats"):
        ladder.plan_of(["empire-nyc"], [2], "hard:heuristic", 1, {})
    assert ladder.plan_of(["empire-nyc"], [3], "hard:heuristic", 1, {})
