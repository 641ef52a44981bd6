"""Seeded random games digest to committed values: every move, event, final stored state and
outcome of ``_kit.playout.play`` for seeds 0..49: 3 seats with the default options, 5 seats
with a 10-round limit and 4 seats with every variant flag away from its default.

The digests were taken from the engine as it was before its state became a plain object
(frozen pydantic states then); the engine on its slotted state must play the same games
(``legal_actions`` in the same order, the same events, ``encode`` the same JSON). Random
seats finish: the round limit (NY-S1; 30 rounds by default) ends every game. A change of rules
or of what the log shows changes them: then say why in the commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from shared.rules.api import Json
from tests.support.seeded import seeded_records

pytestmark = pytest.mark.unit

SEEDS = range(50)
VARIANTS: dict[str, dict[str, Json]] = {
    "default": {},
    "short": {"max_rounds": 10},
    "variants": {"missions": True, "extra_links": True, "eliminated_cards": "discard",
                 "forced_trade": True, "defender_chooses_dice": False, "max_rounds": 12},
}
DIGESTS = {  # (seats, variant) -> (sha256 of the games' JSON, their moves)
    (3, "default"): ("498d3a9aaee4f9f85f4dc45180dda668945c2bdbbfdc4b8f9590728a8c5c606e", 113682),
    (5, "short"): ("626230a917977ca63bb5643637e11ac52622096bf92f612b431dea0551bd1833", 51220),
    (4, "variants"): ("5026d19cf58ced5b3a2b06e36de7056bf4786ad66e345953611ad91ea803c9fb", 51078),
}


@pytest.mark.parametrize(("seats", "variant"), sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(seats: int, variant: str) -> None:
    digest = hashlib.sha256()
    moves = 0
    for record, n in seeded_records("empire-nyc", seats, VARIANTS[variant], SEEDS):
        moves += n
        digest.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode())
    assert (digest.hexdigest(), moves) == DIGESTS[seats, variant]
