"""Seeded random games as records, for the digests that pin each game's rules
(tests/unit/rules/<game>/test_seeded_playouts.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Json, to_json


def seeded_records(name: str, seats: int, options: dict[str, Json],
                   seeds: Iterable[int]) -> Iterator[tuple[dict[str, Any], int]]:
    """(record, moves) of ``_kit.playout.play`` for each seed: every move and event, the final
    stored state and the outcome, as JSON values; each game must end."""
    game = registry.get(name)
    for seed in seeds:
        p = play(game, seats, dict(options), seed=seed)
        assert p.finished, f"{name} seed {seed} did not end"
        yield ({"moves": [to_json(m) for m in p.moves],
                "events": [to_json(e) for e in p.events],
                "state": game.encode(p.state),
                "outcome": game.score(p.state).model_dump(mode="json")}, p.steps)
