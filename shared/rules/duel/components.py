"""Duel (the test game) has no printed components."""

from __future__ import annotations

from shared.rules.api import Json


def components() -> dict[str, Json]:
    return {"game": "duel", "reconstructed": []}
