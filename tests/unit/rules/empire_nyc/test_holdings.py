"""The holdings cached on a state (``turns.held``: kept by clones, derived at each conquest
by ``Holdings.after_conquest``) equal holdings made from scratch for the state's owners."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.empire_nyc import GAME, board
from shared.rules.empire_nyc.holdings import Holdings
from shared.rules.empire_nyc.turns import held

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("seats", "options"), [(3, {}), (5, {"extra_links": True})])
def test_cached_holdings_equal_fresh_ones_after_every_move(
        seats: int, options: dict[str, Any]) -> None:
    checked = 0

    def check(state: Any, move: Any) -> None:
        nonlocal checked
        if state.owner[0] < 0:
            return
        got, fresh = held(state), Holdings(state.owner, state.options.extra_links)
        assert got.owner is state.owner
        for seat in range(seats):
            assert got.owned(seat) == fresh.owned(seat)
        for nb in range(board.N_NB):
            assert got.enemies(nb) == fresh.enemies(nb)
            assert got.friends(nb) == fresh.friends(nb)
        checked += 1

    for seed in range(2):
        p = play(GAME, seats, dict(options), seed=seed, on_step=check)
        check(p.state, None)
    assert checked > 1000
