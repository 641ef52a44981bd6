"""Seeded random games digest to committed values: every move, event, final stored state and
outcome of ``_kit.playout.play`` for seeds 0..49 at 3, 4 and 6 seats, on the capped tables
of the property tests (two hands of at most 40 turns).

The digests were taken from the engine as it was before its state became a plain object
(frozen pydantic states then); the engine on its slotted state must play the same games
(``legal_actions`` and chance requests in the same order, the same events, ``encode`` the
same JSON). A change of rules or of what the log shows changes them: then say why in the
commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.support.seeded import seeded_records

pytestmark = pytest.mark.unit

SEEDS = range(50)
OPTIONS = {"max_hands": 2, "max_turns_per_hand": 40}
DIGESTS = {  # seats -> (sha256 of the games' JSON, their moves)
    3: ("880029acd48070aafc845591305108b2cfe2a2b998c869f44a79be39ab8aecbf", 17849),
    4: ("b5426fcf399ad2b8402f15f25a253e29419474949b3188d4811edb07bfc15fea", 17982),
    6: ("86955bb010a87e036df9f1e616e3bc3ccae822f40a222d625b45ee82a1683495", 17979),
}


@pytest.mark.parametrize("seats", sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(seats: int) -> None:
    records = list(seeded_records("empire-cards", seats, OPTIONS, SEEDS))
    games = [r for r, _ in records]
    moves = sum(n for _, n in records)
    text = json.dumps(games, sort_keys=True, separators=(",", ":"))
    assert (hashlib.sha256(text.encode()).hexdigest(), moves) == DIGESTS[seats]
