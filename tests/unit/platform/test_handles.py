"""Display handles (shared/identity/handles.py): NFKC, refused characters, one key for
case and confusable look-alikes, bot-like names for bots only."""

from __future__ import annotations

import pytest

from shared.identity import handles
from shared.identity.handles import BadName

pytestmark = pytest.mark.unit


def test_look_alikes_share_one_key() -> None:
    same = ["victim", "Victim", "VICTIM", "v\u0456ctim", "\uff56\uff49\uff43\uff54\uff49\uff4d",
            "v\U0001d422ctim"]  # Cyrillic і, fullwidth, mathematical bold i
    assert {handles.key(handles.check_chosen(n)) for n in same} == {handles.key("victim")}
    assert handles.key("rnary") == handles.key("mary")  # TR39: m ~ rn
    assert handles.key("alice") != handles.key("victim")


@pytest.mark.parametrize("raw", ["victim\u200b", "\u202evictim", "vic\u2066tim", "a\nb",
                                 "   ", "\u200b", "x\u0000", "\u00ad", "a\u2028b",
                                 "x" * 33, "name#1234"])
def test_invisible_control_bidi_blank_long_and_reserved_names_are_refused(raw: str) -> None:
    with pytest.raises(BadName):
        handles.check_chosen(raw)


def test_names_are_nfkc_and_spaces_collapsed() -> None:
    assert handles.check_chosen("  Ann\u00a0\u00a0Lee ") == "Ann Lee"
    assert handles.check_chosen("\ufb01nn") == "finn"  # the ligature ﬁ


@pytest.mark.parametrize("raw", ["bot-heuristic-1a2b", "Bot_x", "[bot] Ann", "Ann [BOT]",
                                 "b0t-x", "bot", "Ann (bot)", "Heuristic bot 2", "Hard bot",
                                 "hard BOT 12"])
def test_humans_may_not_take_bot_like_names(raw: str) -> None:
    assert handles.is_bot_like(raw)
    with pytest.raises(BadName):
        handles.check_chosen(raw)


@pytest.mark.parametrize("raw", ["robot", "Abbott", "Bob", "bottle", "robot 2", "Bob 2"])
def test_ordinary_names_with_bot_inside_are_fine(raw: str) -> None:
    assert handles.check_chosen(raw) == raw


def test_the_suffix_keeps_the_display_within_the_limit() -> None:
    assert handles.with_suffix("victim", 7) == "victim#0007"
    long = handles.with_suffix("x" * 32, 1234)
    assert len(long) == handles.MAX_LEN and long.endswith("#1234")


@pytest.mark.parametrize("raw", [
    "\u3164", "\u3164\u3164", "ab\u3164", "\u2800", "\u2800x", "\uffa0", "\u115f\u1160",
    "x\u034f", "\u0301\u0301", " \u0300 ", "e" + "\u0301" * 6,  # é and five more marks
    "Z\u0336\u0322\u0315\u0358\u0361a"])
def test_names_that_show_as_blank_or_as_zalgo_are_refused(raw: str) -> None:
    with pytest.raises(BadName):
        handles.check_chosen(raw)


@pytest.mark.parametrize("raw", ["Nguyễn", "Ελένη", "שָׁלוֹם", "café", "Zoë ❤️", "ạ\u0302"])
def test_names_with_a_few_accents_per_letter_pass(raw: str) -> None:
    assert handles.check_chosen(raw)
