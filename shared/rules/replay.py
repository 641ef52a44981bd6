"""Re-applying a game's move log (pure): the engine state before the first move and after each
one. The log is the adjudicator's (every applied move in order, chance outcomes and joint
actions included), so a replay needs nothing else: no dealer, no escrow.

A log replays only on the engine version it was played with (``rules_version``, recorded in
``game_created`` and bound into the dealer's game key): pass it and another version is refused
with ``RulesVersionMismatch`` before any move is applied, unless the engine still plays that
earlier version (``legacy_rules``: the options that version had implicitly, e.g. no CG-S1/
CG-S2/NY-S1 limits under version "1"); then the log replays under those rules.

Used by the gateway's per-step replay boards (served once a game has ended, when the whole log
is public), the golden playthroughs (tests/golden) and the tests that check a final state
equals a replay of its log.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import ValidationError

from shared.rules import registry
from shared.rules.api import MOVE, Game, Json, Move, Rejection, Transition


class ReplayError(ValueError):
    """The log does not replay: a move is malformed or the engine refuses it."""


class RulesVersionMismatch(ReplayError):
    """The log was played with another version of the game's rules than this engine's."""

    def __init__(self, game: str, logged: str, engine: str) -> None:
        super().__init__(f"{game}: the log was played with rules_version {logged!r}, "
                         f"this engine is {engine!r}")
        self.game, self.logged, self.engine = game, logged, engine


def check_rules_version(game: Game, rules_version: str | None) -> None:
    """Refuse ``rules_version`` unless the engine plays it: its own, or an earlier version it
    keeps (``legacy_rules``). None: not known, not checked."""
    if rules_version is None or rules_version == game.rules_version:
        return
    if rules_version not in getattr(game, "legacy_rules", {}):
        raise RulesVersionMismatch(game.name, rules_version, game.rules_version)


def setup_options(game: Game, options: dict[str, Json], rules_version: str | None
                  ) -> dict[str, Json]:
    """The options a game started under ``rules_version`` was set up with."""
    options_for = getattr(game, "options_for", None)
    return dict(options) if options_for is None else options_for(options, rules_version)  # type: ignore[no-any-return]


def transitions(game_name: str, options: dict[str, Json], n_seats: int,
                log: Sequence[dict[str, Any]], *,
                rules_version: str | None = None) -> Iterator[tuple[Any, Move, Transition]]:
    """Each logged move in order with the state it applies to and its transition."""
    game = registry.get(game_name)
    check_rules_version(game, rules_version)
    state = game.setup(setup_options(game, options, rules_version), n_seats)
    for i, entry in enumerate(log):
        try:
            move = MOVE.validate_python(entry["move"])
        except (KeyError, TypeError, ValidationError) as exc:
            raise ReplayError(f"log entry {i} is not a move: {exc}") from exc
        result = game.apply(state, move)
        if isinstance(result, Rejection):
            raise ReplayError(f"log entry {i} (seq {entry.get('seq')}) refused: {result}")
        yield state, move, result
        state = result.state


def states(game_name: str, options: dict[str, Json], n_seats: int,
           log: Sequence[dict[str, Any]], *, rules_version: str | None = None) -> list[Any]:
    """``[setup, after move 1, ..., after move n]`` for the log's moves in order."""
    out: list[Any] = []
    for before, _, result in transitions(game_name, options, n_seats, log,
                                         rules_version=rules_version):
        if not out:
            out.append(before)
        out.append(result.state)
    return out or [registry.get(game_name).setup(options, n_seats)]


def final_state(game_name: str, options: dict[str, Json], n_seats: int,
                log: Sequence[dict[str, Any]], *, rules_version: str | None = None) -> Any:
    """The engine state after the whole log."""
    return states(game_name, options, n_seats, log, rules_version=rules_version)[-1]
