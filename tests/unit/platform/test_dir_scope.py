"""The session systems of a directory stop after its last test (tests/support/dir_scope.py):
the stop runs once, when the next test is elsewhere or there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import dir_scope

pytestmark = pytest.mark.unit


def test_a_directory_stop_runs_once_after_its_last_test(tmp_path: Path) -> None:
    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    calls: list[str] = []
    once = dir_scope.until_directory_ends(str(tmp_path / "a" / "conftest.py"),
                                          lambda: calls.append("a"))
    a1, a2 = tmp_path / "a" / "t1.py", tmp_path / "a" / "deep" / "t2.py"
    b1 = tmp_path / "b" / "t.py"
    dir_scope.after_test(a1, a2)  # still inside a/ (a subdirectory)
    assert calls == []
    dir_scope.after_test(a2, b1)  # a/'s last test: its stop runs
    assert calls == ["a"]
    once()  # the fixture's own teardown at the session's end: done already
    dir_scope.after_test(b1, None)
    assert calls == ["a"]


def test_the_session_end_stops_what_is_left(tmp_path: Path) -> None:
    calls: list[str] = []
    dir_scope.until_directory_ends(str(tmp_path / "conftest.py"), lambda: calls.append("x"))
    dir_scope.after_test(tmp_path / "t.py", None)
    assert calls == ["x"]
