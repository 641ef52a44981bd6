"""Component data for The Empire Engine (rulebook ``empire-engine.txt``, RULINGS.md §2).

Every value that the rulebook does not print is marked RECONSTRUCTED; those rows can be
replaced by the real card text without touching any rule logic, which only reads the
derived lookups at the bottom of this module.

Only the rulebook's components are modelled: the published editions' per-empire special
abilities are out of scope (EE-16), so every seat gets the same engines and gears.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

Action: TypeAlias = Literal["arm", "produce", "invent", "attack", "defend", "export", "salvage"]
EngineName: TypeAlias = Literal["L", "R"]
Resource: TypeAlias = Literal["soldier", "good", "invention"]
Boost: TypeAlias = Literal["none", "soldier", "good"]

ENGINES: Final[tuple[EngineName, EngineName]] = ("L", "R")
RESOURCES: Final[tuple[Resource, Resource, Resource]] = ("soldier", "good", "invention")

# ----------------------------------------------------------------------------------------
# Engines. RECONSTRUCTED (RULINGS.md §2.2): the four actions of each card in CLOCKWISE EDGE
# ORDER (top, right, bottom, left) in the printed orientation. One row per engine card;
# every player's pair is identical (FOUND). Which four actions sit on each card is FOUND;
# their exact cyclic order is the reconstruction.
# ----------------------------------------------------------------------------------------
ENGINE_ROWS: Final[tuple[tuple[EngineName, Action, Action, Action, Action], ...]] = (
    # engine  top       right      bottom     left
    ("L", "arm", "salvage", "produce", "attack"),  # RECONSTRUCTED
    ("R", "invent", "defend", "export", "attack"),  # RECONSTRUCTED
)

# ----------------------------------------------------------------------------------------
# Gears (RULEBOOK): one row per gear card: (large value, alternate value with a resource on
# the back). The value is the number of clockwise quarter-turns given to the engine.
# ----------------------------------------------------------------------------------------
GEAR_ROWS: Final[tuple[tuple[int, int], ...]] = (
    (1, 0),
    (2, 3),
)

# ----------------------------------------------------------------------------------------
# Quantities (RULEBOOK).
# ----------------------------------------------------------------------------------------
ROUNDS_BY_SEATS: Final[dict[int, int]] = {2: 8, 3: 9, 4: 8}  # EE-14
LONG_GAME_ROUNDS: Final = 12  # EE-14 variant "Playing a longer game"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
SETUP_READY_SOLDIERS: Final = 1
SETUP_READY_GOODS: Final = 1
ARM_SOLDIERS: Final = 2
PRODUCE_GOODS: Final = 2
INVENT_INVENTIONS: Final = 1
MAJORITY_BONUS: Final = 3

# Which group of the Execute phase each action belongs to (RULEBOOK, action summary card).
ACTION_GROUP: Final[dict[Action, int]] = {
    "arm": 1,
    "produce": 1,
    "invent": 1,
    "attack": 2,
    "defend": 2,
    "export": 3,
    "salvage": 3,
}

# Seating: seats are numbered clockwise, so the next seat clockwise sits on a player's LEFT
# (players face the table). The Attack on the L engine hits seat+1, on the R engine seat-1.
LEFT_STEP: Final = 1

# Engine (not rulebook) choice: the action shown by an engine whose round-1 placement had to
# be replaced (see planning.py) and by the round-1 slot defaults applied on a timeout.
ROUND1_DEFAULT_TOP: Final[dict[EngineName, Action]] = {"L": "produce", "R": "invent"}

# ----------------------------------------------------------------------------------------
# Derived lookups (rule logic reads only these).
# ----------------------------------------------------------------------------------------
CYCLE: Final[dict[EngineName, tuple[Action, ...]]] = {row[0]: row[1:] for row in ENGINE_ROWS}
GEAR_TURNS: Final[dict[int, tuple[int, int]]] = {g: (g, alt) for g, alt in GEAR_ROWS}
GEARS: Final[tuple[int, ...]] = tuple(g for g, _ in GEAR_ROWS)


def top_action(engine: EngineName, orientation: int) -> Action:
    """The action on the top edge after ``orientation`` clockwise quarter-turns.

    A clockwise quarter-turn brings the LEFT-edge action to the top (RULINGS.md §2.2):
    ``top(o) = cycle[(-o) mod 4]``.
    """
    return CYCLE[engine][(-orientation) % 4]


def orientation_for(engine: EngineName, action: Action) -> int:
    """The orientation (0..3) that shows ``action`` on top of ``engine``."""
    return (-CYCLE[engine].index(action)) % 4


def other_engine(engine: EngineName) -> EngineName:
    return "R" if engine == "L" else "L"


def other_gear(gear: int) -> int:
    return GEARS[1] if gear == GEARS[0] else GEARS[0]


def gear_turns(gear: int, boosted: bool) -> int:
    """Quarter-turns for a gear: its large value, or the alternate one with a resource on it."""
    large, alt = GEAR_TURNS[gear]
    return alt if boosted else large


# the action on top of each engine by orientation (0..3): ``top_action`` as a table
TOPS: Final[dict[EngineName, tuple[Action, ...]]] = {
    e: tuple(top_action(e, o) for o in range(4)) for e in ENGINES}
