"""Every collected test names its tier.

The tier markers are what the per-tier targets (``make test-unit``, ``make test-e2e``...)
select by; a test without one runs in none of them. The root conftest refuses a collection
holding such a test, so a new file cannot fall out of every tier unnoticed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

TIERS = frozenset(
    {
        "unit",
        "property",
        "service",
        "integration",
        "e2e",
        "browser",
        "reliability",
        "deploy",
        "clients",
        "package",
        "siege",
        "faults",
        "containers",
    }
)


class _Mark(Protocol):
    @property
    def name(self) -> str: ...


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...

    def iter_markers(self) -> Iterable[_Mark]: ...


def untiered(items: Iterable[_Item]) -> list[str]:
    """The node ids of the items that carry no tier marker."""
    return [item.nodeid for item in items if not any(m.name in TIERS for m in item.iter_markers())]


def refusal(missing: list[str]) -> str:
    shown = "\n  ".join(missing[:20])
    more = f"\n  ... and {len(missing) - 20} more" if len(missing) > 20 else ""
    return (
        f"{len(missing)} test(s) carry no tier marker (one of {', '.join(sorted(TIERS))}); "
        f"mark the file (pytestmark = pytest.mark.<tier>) or the test:\n  {shown}{more}"
    )
