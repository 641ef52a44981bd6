"""Seeded random games digest to committed values: every move, event, final stored state and
outcome of ``_kit.playout.play`` for seeds 0..49 at 2, 3 and 4 seats.

The digests were taken from the engine as it was before its state became a plain object
(frozen pydantic states then); the engine on its slotted state must play the same games
(``legal_actions`` and slots in the same order, the same events, ``encode`` the same JSON). A
change of rules or of what the log shows changes them: then say why in the commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from shared.rules import registry
from shared.rules._kit.playout import play

pytestmark = pytest.mark.unit

SEEDS = range(50)
DIGESTS = {  # seats -> (sha256 of the games' JSON, their moves)
    2: ("f2329e34be46c439b33abc7c251b146bdffe8153be02eb89c6492d97e73e21a8", 5039),
    3: ("a87bcae2f70d348b1d683bf70069265977dc64f33c1d2e7a1186729d2cbae53b", 7367),
    4: ("b3da07ada1b0643fb126801c00a9f843f39f9c65f2c582c61e7ed10004d89728", 8737),
}


@pytest.mark.parametrize("seats", sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(seats: int) -> None:
    game = registry.get("empires-end")
    games = []
    moves = 0
    for seed in SEEDS:
        p = play(game, seats, {}, seed=seed)
        assert p.finished
        moves += p.steps
        games.append({"moves": [m.model_dump(mode="json") for m in p.moves],
                      "events": [e.model_dump(mode="json") for e in p.events],
                      "state": game.encode(p.state),
                      "outcome": game.score(p.state).model_dump(mode="json")})
    text = json.dumps(games, sort_keys=True, separators=(",", ":"))
    assert (hashlib.sha256(text.encode()).hexdigest(), moves) == DIGESTS[seats]
