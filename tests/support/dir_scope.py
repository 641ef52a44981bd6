"""Session systems stopped with their directory's last test.

A whole system (tests/e2e's ``system``, tests/browser's ``web``, tests/siege's ``siege``...) is
session-scoped so the tests of its directory share it. Left running to the session's end, the
six of them idled side by side through every later directory (each ≈ 6 % of a core: timer
polls, stream reads, metrics samples) on CI's 2 cores. pytest's "package" scope does not help:
these directories are not packages, so it means the session. ``until_directory_ends``
registers a stop with the directory of the conftest that owns the fixture; the root
conftest's ``pytest_runtest_teardown`` runs it after the last test of that directory, and the
fixture's own teardown at the session's end finds it done (the stop runs once).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

_STOPS: dict[Path, list[Callable[[], None]]] = {}


def until_directory_ends(conftest_file: str, stop: Callable[[], None]) -> Callable[[], None]:
    """Register ``stop`` for the directory of ``conftest_file``; returns a once-only stop for
    the fixture's own teardown."""
    done: list[bool] = []

    def once() -> None:
        if not done:
            done.append(True)
            stop()

    _STOPS.setdefault(Path(conftest_file).resolve().parent, []).append(once)
    return once


def _within(path: Path, d: Path) -> bool:
    return path == d or d in path.parents


def after_test(item_path: Path, next_path: Path | None) -> None:
    """Run the stops of every directory the finished test was in and the next one is not."""
    here = item_path.resolve()
    there = next_path.resolve() if next_path is not None else None
    for d in list(_STOPS):
        if _within(here, d) and (there is None or not _within(there, d)):
            for stop in _STOPS.pop(d):
                stop()
