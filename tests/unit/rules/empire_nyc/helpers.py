"""Builders for hand-made Empire NYC positions used by the unit tests."""

from __future__ import annotations

from typing import Any

from shared.rules.api import Act, Chance, ChanceOutcome, Event, Json, Rejection, Transition
from shared.rules.empire_nyc import GAME, board
from shared.rules.empire_nyc.state import NycOptions, NycState


def make(
    n_seats: int = 3,
    *,
    owners: dict[str, int] | None = None,
    cubes: dict[str, int] | None = None,
    fill_owner: int = 1,
    fill_cubes: int = 1,
    options: dict[str, Any] | None = None,
    **update: Any,
) -> NycState:
    """A mid-game position: every neighborhood not in ``owners`` belongs to ``fill_owner``."""
    owner = [fill_owner] * board.N_NB
    cube = [fill_cubes] * board.N_NB
    for nb, s in (owners or {}).items():
        owner[board.NB_INDEX[nb]] = s
    for nb, c in (cubes or {}).items():
        cube[board.NB_INDEX[nb]] = c
    base: dict[str, Any] = {
        "n_seats": n_seats,
        "options": NycOptions(**(options or {})),
        "phase": "attack",
        "first_player": 0,
        "order": tuple(range(n_seats)),
        "owner": tuple(owner),
        "cubes": tuple(cube),
        "to_place": (0,) * n_seats,
        "hands": ((),) * n_seats,
        "deck": board.CARD_IDS,
        "current": 0,
        "turn": 5,
    }
    if (options or {}).get("missions"):
        base["missions"] = tuple(board.MISSION_IDS[s] for s in range(n_seats))
    base.update(update)
    return NycState(**base)


def ok(state: NycState, move: Any) -> tuple[NycState, tuple[Event, ...]]:
    result = GAME.apply(state, move)
    assert isinstance(result, Transition), result
    return result.state, result.events


def act(state: NycState, seat: int, action: Json) -> tuple[NycState, tuple[Event, ...]]:
    return ok(state, Act(seat=seat, action=action))


def rejected(state: NycState, seat: int, action: Json) -> str:
    result = GAME.apply(state, Act(seat=seat, action=action))
    assert isinstance(result, Rejection), f"accepted {action}"
    return result.code


def deal(state: NycState, values: list[int]) -> tuple[NycState, tuple[Event, ...]]:
    """Answer the pending Chance node with ``values``."""
    node = GAME.next(state)
    assert isinstance(node, Chance), node
    return ok(state, ChanceOutcome(label=node.label, values=tuple(values)))


def types(events: tuple[Event, ...]) -> list[str]:
    return [e.type for e in events]


def cubes_of(state: NycState, nb: str) -> int:
    return state.cubes[board.NB_INDEX[nb]]


def owner_of(state: NycState, nb: str) -> int:
    return state.owner[board.NB_INDEX[nb]]


def legal(state: NycState, seat: int) -> list[Any]:
    """``legal_actions`` as plain dicts (untyped JSON for terse assertions)."""
    return list(GAME.legal_actions(state, seat))


def view_of(state: NycState, seat: int | None) -> Any:
    return GAME.view(state, seat)
