"""Seeded random games digest to committed values: every move, event, final stored state and
outcome of ``_kit.playout.play`` for seeds 0..49, both versions, at 2, 3, 4 and 6 seats.

The digests were taken from the engine as it was before its state became a plain object
(frozen pydantic states then); the engine on its slotted state must play the same games
(``legal_actions`` and slots in the same order, the same events, ``encode`` the same JSON). A
change of rules or of what the log shows changes them: then say why in the commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.support.seeded import seeded_records

pytestmark = pytest.mark.unit

SEEDS = range(50)
DIGESTS = {  # (version, seats) -> (sha256 of the games' JSON, their moves)
    ("beginner", 2): ("fc10debcd8a4e7e394764bc2baa230c84de9f3bd06a23b5e77d1e758e1d56a16", 5542),
    ("beginner", 3): ("d4d0ecf2b8d3c033ff2d674ab75dd643292f32a0e9c14fd1b0a323719d651e5a", 9341),
    ("beginner", 4): ("beda67da08fcc0f84c657f9b011b1844c96ee18acc6c876382056a82d9b4cc3a", 13612),
    ("beginner", 6): ("faee9deefb156bf5c01755c268ae1d8b329131d37d789a28c169c6e1493ed8e4", 22540),
    ("standard", 2): ("7870f55903521cc006f9858b6b59e781773696fb83a85f1adb3e6feccb353457", 6150),
    ("standard", 3): ("c5c32da99817e01ca956e1a264bd8db5cd5dba947e968e49352b666b7d1e88da", 9828),
    ("standard", 4): ("f058d2f600d80758a8d4cb6800c9ccb5c4ba1a2e79895d03620fc3023fa13e52", 14325),
    ("standard", 6): ("7b110c47b61815bb6a4def1e0d7385bd9c55774f2ac3e322e9c0f04ff1d62a10", 25909),
}


@pytest.mark.parametrize(("version", "seats"), sorted(DIGESTS))
def test_seeded_random_games_are_the_recorded_ones(version: str, seats: int) -> None:
    records = list(seeded_records("empire", seats, {"version": version}, SEEDS))
    games = [r for r, _ in records]
    moves = sum(n for _, n in records)
    text = json.dumps(games, sort_keys=True, separators=(",", ":"))
    assert (hashlib.sha256(text.encode()).hexdigest(), moves) == DIGESTS[version, seats]
