"""Re-applying a game's move log (pure): the engine state before the first move and after each
one. The log is the adjudicator's (every applied move in order, chance outcomes and joint
actions included), so a replay needs nothing else: no dealer, no escrow.

Used by the gateway's per-step replay boards (served once a game has ended, when the whole log
is public) and by the tests that check a final state equals a replay of its log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from shared.rules import registry
from shared.rules.api import Json, Move, Rejection

MOVE: TypeAdapter[Move] = TypeAdapter(Annotated[Move, Field(discriminator="kind")])


class ReplayError(ValueError):
    """The log does not replay: a move is malformed or the engine refuses it."""


def states(game_name: str, options: dict[str, Json], n_seats: int,
           log: Sequence[dict[str, Any]]) -> list[Any]:
    """``[setup, after move 1, ..., after move n]`` for the log's moves in order."""
    game = registry.get(game_name)
    state = game.setup(options, n_seats)
    out = [state]
    for i, entry in enumerate(log):
        try:
            move = MOVE.validate_python(entry["move"])
        except (KeyError, TypeError, ValidationError) as exc:
            raise ReplayError(f"log entry {i} is not a move: {exc}") from exc
        result = game.apply(state, move)
        if isinstance(result, Rejection):
            raise ReplayError(f"log entry {i} (seq {entry.get('seq')}) refused: {result}")
        state = result.state
        out.append(state)
    return out


def final_state(game_name: str, options: dict[str, Json], n_seats: int,
                log: Sequence[dict[str, Any]]) -> Any:
    """The engine state after the whole log."""
    return states(game_name, options, n_seats, log)[-1]
