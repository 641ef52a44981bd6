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
import random

import pytest

from shared.rules import registry
from shared.rules._kit.playout import play
from tests.support.seeded import seeded_records

pytestmark = pytest.mark.unit

SEEDS = range(50)
DIGESTS = {  # seats -> (sha256 of the games' JSON, their moves)
    2: ("06e4ac71a6255535699e51b2aa1f2b038ea9944d3d7f03aa12f3d704d10520de", 660),
    3: ("04df3eae15958f8eb43045ae040e30ca1e10ce594842e3dea3e8b327875b02ea", 852),
    4: ("400288061aff521230dda26c468619a6c90217ca10d52b13749dca9085e60b8c", 852),
}


@pytest.mark.parametrize("seats", sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(seats: int) -> None:
    records = list(seeded_records("empire-engine", seats, {}, SEEDS))
    games = [r for r, _ in records]
    moves = sum(n for _, n in records)
    text = json.dumps(games, sort_keys=True, separators=(",", ":"))
    assert (hashlib.sha256(text.encode()).hexdigest(), moves) == DIGESTS[seats]


def test_apply_never_changes_the_state_it_is_given() -> None:
    """``apply`` changes only its own clone: every state of a game (and of the rollout
    adapter's starting point) still encodes as it did when it was reached."""
    game = registry.get("empire-engine")
    for seats in (2, 3, 4):
        seen: list[tuple[object, dict[str, object]]] = []
        p = play(game, seats, {"long_game": True}, seed=seats,
                 on_step=lambda s, m, seen=seen: seen.append((s, game.encode(s))))
        assert p.finished and len(seen) == p.steps
        for state, encoded in seen:
            assert game.encode(state) == encoded
        start = seen[len(seen) // 2][0]
        before = game.encode(start)
        fast = registry.get_rollout("empire-engine")
        out = fast.playout(fast.from_state(start), random.Random(1), bytes(32))
        assert out.finished and game.encode(start) == before
