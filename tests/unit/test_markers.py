"""The tier-marker guard (tests/support/tiers.py, run by the root conftest) refuses a collection
holding a test without a tier marker, and only then."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.tiers import TIERS, untiered

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class _Mark:
    name: str


@dataclass
class _Item:
    nodeid: str
    marks: list[str] = field(default_factory=list)

    def iter_markers(self) -> list[_Mark]:
        return [_Mark(m) for m in self.marks]


def test_only_the_items_without_a_tier_are_named() -> None:
    items = [
        _Item("a::tiered", ["unit"]),
        _Item("b::bare"),
        _Item("c::slow_only", ["slow", "parametrize"]),
        _Item("d::two", ["e2e", "slow"]),
    ]
    assert untiered(items) == ["b::bare", "c::slow_only"]
    assert untiered([_Item(f"t::{t}", [t]) for t in TIERS]) == []


def _collect(directory: Path) -> subprocess.CompletedProcess[str]:
    """pytest's collection of ``directory`` with the root conftest loaded as a plugin."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(directory),
         "-p", "tests.conftest", "-p", "no:cacheprovider", "--collect-only", "-q", str(directory)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_collection_fails_on_a_test_without_a_tier(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(
        "import pytest\n\npytestmark = pytest.mark.unit\n\n\ndef test_marked():\n    pass\n"
    )
    passed = _collect(tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "test_marked.py::test_marked" in passed.stdout

    (tmp_path / "test_bare.py").write_text("def test_bare():\n    pass\n")
    refused = _collect(tmp_path)
    out = refused.stdout + refused.stderr
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR, out
    assert "1 test(s) carry no tier marker" in out
    assert "test_bare.py::test_bare" in out
    assert "test_marked.py::test_marked\n" not in out.split("carry no tier marker")[1]
