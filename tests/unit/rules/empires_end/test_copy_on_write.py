"""A move changes only its own clone: players and disaster slots are copied on write
(``State.writable``, ``DisasterPhase.writable``), so a rule that changed a player read from
``state.players`` (or a slot from ``slots``) would change the state it was given, and every
state reached before. Every move of whole random games, every seat count and the
variants whose rules take other paths, checks that the state it was applied to still
encodes as it did."""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules._kit.playout import play
from shared.rules.api import Move
from shared.rules.empires_end import GAME
from shared.rules.empires_end.state import DisasterPhase, State

pytestmark = pytest.mark.unit

VARIANTS: list[dict[str, Any]] = [
    {},
    {"random_first_player": False},
    {"low_resources_rule": False},
    {"reshuffle_discards": False},
]


def _stays(n: int, options: dict[str, Any], seed: int) -> int:
    """Play one game; after each move, the state it was applied to encodes as before it.
    Returns the number of moves checked."""
    before: list[tuple[State, Any]] = []

    def on_step(state: State, move: Move) -> None:
        if before:  # the previous move has been applied by now
            prev, encoded = before[-1]
            assert GAME.encode(prev) == encoded, f"seed {seed}: a move changed its input"
        before[:] = [(state, GAME.encode(state))]

    out = play(GAME, n, options, seed=seed, on_step=on_step, log=False)
    prev, encoded = before[-1]
    assert GAME.encode(prev) == encoded, f"seed {seed}: the last move changed its input"
    return out.steps


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_move_never_changes_the_state_it_was_given(n: int, options: dict[str, Any]) -> None:
    assert sum(_stays(n, options, seed) for seed in range(8)) > 0


def test_a_player_changed_without_writable_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the mistake this guards against: a rule changing the player its clone shares
    monkeypatch.setattr(State, "writable", lambda self, seat: self.players[seat])
    with pytest.raises(AssertionError, match="changed its input"):
        _stays(4, {}, 0)


def test_a_slot_changed_without_writable_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DisasterPhase, "writable", lambda self, i: self.slots[i])
    with pytest.raises(AssertionError, match="changed its input"):
        _stays(4, {}, 0)
