"""The style tuner (bench/tune_style.py): a style's numbers by path and back, a
tuning run's record, and a game's tuned style checked against its plain heuristic."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from bench import tune_style
from shared.ai.empires_end.bot import TUNED, Style

pytestmark = pytest.mark.unit


def test_a_style_is_its_numbers_by_path_and_back() -> None:
    base = dataclasses.asdict(Style())
    flat = tune_style.flatten(base)
    assert flat["token_value.coin"] == 1.2 and flat["axe_cost#1"] == 0.3
    assert flat["take_margin"] == 0.0 and "poor_tokens" in flat
    assert tune_style.unflatten(base, flat) == base
    # at the mean with no spread: the default itself, integers kept integers
    same = tune_style.realize(flat, dict.fromkeys(flat, 0.0), dict.fromkeys(flat, 0.4), None)
    assert same == flat and isinstance(same["poor_tokens"], int)
    moved = tune_style.realize(flat, dict.fromkeys(flat, 0.0), dict.fromkeys(flat, 0.4),
                               random.Random(1))
    assert moved != flat and isinstance(moved["poor_tokens"], int)
    assert Style(**tune_style.unflatten(base, moved)) != Style()
    offsets = tune_style.log_offsets(flat, tune_style.flatten(dataclasses.asdict(TUNED)))
    back = tune_style.realize(flat, offsets, dict.fromkeys(flat, 0.0), None)
    assert Style(**tune_style.unflatten(base, back)) == TUNED
    given = json.loads(json.dumps({"token_value": {"coin": 2.0}, "axe_cost": [0.5, 0.2]}))
    style = tune_style.merged(base, given)
    assert style["token_value"]["coin"] == 2.0 and style["token_value"]["wheat"] == 0.8
    assert style["axe_cost"] == (0.5, 0.2)
    assert tune_style.changed(base, style) == {"token_value": style["token_value"],
                                               "axe_cost": (0.5, 0.2)}


def test_a_run_writes_each_generation_and_the_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tune_style, "RESULTS", str(tmp_path))
    tune_style.main(["--game", "empires-end", "--generations", "1", "--population", "2",
                     "--games", "2", "--validate", "2", "--workers", "1"])
    files = list(tmp_path.glob("tune-empires-end-*.jsonl"))
    assert len(files) == 1
    lines = [json.loads(x) for x in files[0].read_text().splitlines()]
    assert lines[0]["game"] == "empires-end" and lines[0]["options"] == {}
    assert lines[1]["generation"] == 0 and lines[1]["games"] == [100_000, 100_002]
    assert all(0.0 <= x <= 1.0 for x in lines[1]["best"])
    check = lines[2]
    assert check["validate"] == [100_002, 100_004] and check["fair"] == 0.333
    assert 0.0 <= check["tuned"] <= 1.0 and 0.0 <= check["plain"] <= 1.0
    assert "wrote" in capsys.readouterr().out


def test_the_lone_seat_scores_its_share_of_first_place() -> None:
    """A game played by three plain heuristics: the lone seat's share is 1, 1/k or 0 as it
    wins alone, ties k ways, or loses; the same game number gives the same figure."""
    shares = [tune_style.play_one(("empires-end", 3, {}, None, i)) for i in range(6)]
    assert all(s in (0.0, 1.0, 0.5, 1 / 3) for s in shares)
    assert shares == [tune_style.play_one(("empires-end", 3, {}, None, i)) for i in range(6)]
    assert 0 < sum(shares) < 6


def test_a_given_styles_switches_survive_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--style`` with switches (booleans, which are not tuned) checks that style, not the
    default with its numbers: the Card Game's ``TUNED`` is switches only."""
    from shared.ai.empire_cards.bot import TUNED as CARDS_TUNED

    monkeypatch.setattr(tune_style, "RESULTS", str(tmp_path))
    tune_style.main(["--game", "empire-cards", "--generations", "0", "--validate", "1",
                     "--workers", "1", "--style", "tuned"])
    lines = [json.loads(x) for x in next(tmp_path.glob("tune-empire-cards-*.jsonl"))
             .read_text().splitlines()]
    assert lines[-1]["style"] == {"finish": True, "barbarian_seats": 3, "barb_keep": 8,
                                  "endgame_steal": True, "hold_two": 4, "avoid": 2, "take": True}
    assert lines[-1]["style"] == tune_style.changed(
        dataclasses.asdict(type(CARDS_TUNED)()), dataclasses.asdict(CARDS_TUNED))


def test_two_runs_in_the_same_second_write_two_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tune_style, "RESULTS", str(tmp_path))
    monkeypatch.setattr(tune_style.time, "strftime", lambda fmt: "20261130-120000")
    (a, pa), (b, pb) = tune_style.new_record("empire-cards"), tune_style.new_record("empire-cards")
    with a, b:
        assert pa != pb and pb.endswith("-20261130-120000-1.jsonl")
