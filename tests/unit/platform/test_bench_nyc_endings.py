"""New York's endings report (bench/nyc_endings.py): the knock-out cases read from
the engine's own record, the same deals and lone seat as the style tuner, and a bad style
refused before any game."""

from __future__ import annotations

import dataclasses

import pytest

from bench import nyc_endings, tune_style
from shared.ai.empire_nyc.bot import TUNED, Style
from shared.rules import registry
from shared.rules.empire_nyc.state import Elimination, NycState

pytestmark = pytest.mark.unit


def _with(eliminated: tuple[Elimination, ...]) -> NycState:
    state = registry.get("empire-nyc").setup({}, 3)
    assert isinstance(state, NycState)
    return dataclasses.replace(state, eliminated=eliminated)


def test_the_first_knockout_decides_the_case() -> None:
    assert nyc_endings.first_knockout(_with(()), 1) == "nobody knocked out"
    # the earliest turn counts, not the order of the record
    late, early = Elimination(seat=2, by=0, turn=30), Elimination(seat=1, by=0, turn=12)
    assert nyc_endings.first_knockout(_with((late, early)), 1) == "lone seat knocked out first"
    assert nyc_endings.first_knockout(_with((late, early)), 0) == (
        "a plain seat knocked out first by the lone seat")
    assert nyc_endings.first_knockout(_with((late, early)), 2) == (
        "a plain seat knocked out first by the other plain seat")


def test_games_are_the_tuners_deals_and_the_summary_adds_up() -> None:
    rows = [nyc_endings.play_one((3, "TUNED", i)) for i in range(4)]
    for row in rows:
        assert row["finished"] and row["lone"] == row["index"] % 3
        # the same game, seat and style as one game of bench.tune_style
        assert row["share"] == tune_style.play_one(
            ("empire-nyc", 3, {}, dataclasses.asdict(TUNED), row["index"]))
    lines = nyc_endings.summary(rows)
    assert lines[0].endswith("of first places in 4 games")
    counts = [int(line.split(": ")[1].split(" games")[0]) for line in lines[2:]]
    assert sum(counts) == 4


def test_a_style_is_tuned_plain_or_tuned_with_overrides() -> None:
    assert nyc_endings.style_of("TUNED") == TUNED
    assert nyc_endings.style_of("plain") == Style()
    assert nyc_endings.style_of('{"prey": 0.5}') == dataclasses.replace(TUNED, prey=0.5)
    with pytest.raises(TypeError):
        nyc_endings.style_of('{"no_such_field": 1}')
    with pytest.raises(TypeError):
        nyc_endings.main(["--style", '{"no_such_field": 1}', "--games", "1"])
