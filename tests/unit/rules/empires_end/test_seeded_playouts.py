"""Seeded random games digest to committed values: every move, event, final stored state and
outcome of ``_kit.playout.play`` for seeds 0..49 at 2, 3 and 4 seats.

The digests were taken from the engine as it was before its state became a plain object
(frozen pydantic states then); the engine on its slotted state must play the same games
(``legal_actions`` and slots in the same order, the same events, ``encode`` the same JSON,
keys in the same order). A
change of rules or of what the log shows changes them: then say why in the commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.support.seeded import seeded_records

pytestmark = pytest.mark.unit

SEEDS = range(50)
DIGESTS = {  # seats -> (sha256 of the games' JSON, their moves)
    2: ("636c96808fa7086dfe0d08ff62f8c5768aaf01e70e9510457aa20be689d95dcc", 5039),
    3: ("ed50dd90e52b7b47e61d6dd75f86c37c547fd7ae71736a3ad672b331f737ad7f", 7367),
    4: ("037300bacb1ed8f615792bcdb4c48d0e9a0c024df318dc4d98e760cb118e55a5", 8737),
}


@pytest.mark.parametrize("seats", sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(seats: int) -> None:
    records = list(seeded_records("empires-end", seats, {}, SEEDS))
    games = [r for r, _ in records]
    moves = sum(n for _, n in records)
    text = json.dumps(games, separators=(",", ":"))  # key order too: encode's is kept
    assert (hashlib.sha256(text.encode()).hexdigest(), moves) == DIGESTS[seats]
