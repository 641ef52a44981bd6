"""Ratings with openskill's Plackett–Luce model (multiplayer, ties by shared place)."""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()


def rate(places: list[int], prior: list[dict[str, Any] | None]) -> list[dict[str, float]]:
    """New {mu, sigma, ordinal} per seat from final places (1 = first; ties share)."""
    teams = [[_MODEL.rating(mu=p["mu"], sigma=p["sigma"]) if p else _MODEL.rating()]
             for p in prior]
    rated = _MODEL.rate(teams, ranks=[float(x) for x in places])
    return [{"mu": t[0].mu, "sigma": t[0].sigma, "ordinal": t[0].ordinal()} for t in rated]
