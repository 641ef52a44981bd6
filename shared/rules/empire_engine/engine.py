"""The Empire Engine as a contract ``Game``: setup, next, legal_actions, apply, view, score.

Each move (``play_chance``/``play_joint``/``play_act``) lets the rule modules change the state
in place; the kit's hooks run it on a clone (``state.py``), and the kit's rollout driver
(``_kit.rollout.Rollout``) runs the same moves on one clone for search playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from shared.rules._kit.base import GameBase
from shared.rules._kit.model import Events
from shared.rules.api import (
    Chance,
    JointAction,
    Json,
    Node,
    Outcome,
    RuleError,
    SealedSlot,
    Simultaneous,
    Terminal,
    Turn,
)
from shared.rules.empire_engine import execute as ex
from shared.rules.empire_engine import stored
from shared.rules.empire_engine.actions import (
    ACTION_ADAPTER,
    BlockAction,
    LootAction,
    SalvageAction,
)
from shared.rules.empire_engine.data import (
    LONG_GAME_ROUNDS,
    MAX_SEATS,
    MIN_SEATS,
    ROUNDS_BY_SEATS,
    SETUP_READY_GOODS,
    SETUP_READY_SOLDIERS,
)
from shared.rules.empire_engine.planning import (
    LISTED,
    listed_choices,
    plan_node,
    resolve_plan,
)
from shared.rules.empire_engine.scoring import score
from shared.rules.empire_engine.state import Counts, Player
from shared.rules.empire_engine.state import Options as EngineOptions
from shared.rules.empire_engine.state import State as EngineState
from shared.rules.empire_engine.view import GAME_NAME, view

START_LABEL = "start-player"
Action = BlockAction | LootAction | SalvageAction
TERMINAL = Terminal()
TURNS: dict[tuple[int, ...], Turn] = {}  # the Turn awaiting each seat tuple, made once (frozen)


def start(state: EngineState, seat: int, events: Events) -> None:
    """The dealer drew the start player (in place)."""
    state.start_player, state.phase = seat, "plan"
    events.add("start_player", {"seat": seat})


def plan(state: EngineState, choices: dict[str, Json], events: Events) -> None:
    """The Plan phase's revealed choices, then the Execute phase up to its first decision
    (in place)."""
    resolve_plan(state, choices, events)
    ex.execute(state, events)


class EmpireEngine(GameBase[EngineState, EngineOptions, Action]):
    State: ClassVar[type[BaseModel]] = stored.State
    Options: ClassVar[type[BaseModel]] = EngineOptions
    Actions = ACTION_ADAPTER
    acts_enumerated = True  # every block/loot/salvage choice is listed

    name = GAME_NAME
    title = "The Empire Engine"
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    # ------------------------------------------------------------------ setup / next

    def setup(self, options: dict[str, Json], n_seats: int) -> EngineState:
        opts: EngineOptions = self.parse_options(options)
        if not isinstance(n_seats, int) or not MIN_SEATS <= n_seats <= MAX_SEATS:
            raise RuleError(f"The Empire Engine needs {MIN_SEATS}-{MAX_SEATS} players")
        rounds = LONG_GAME_ROUNDS if opts.long_game else ROUNDS_BY_SEATS[n_seats]
        return EngineState(
            options=opts,
            n_seats=n_seats,
            rounds=rounds,
            phase="start" if opts.random_start_player else "plan",
            players=tuple(Player(Counts(SETUP_READY_SOLDIERS, SETUP_READY_GOODS), Counts())
                          for _ in range(n_seats)),
            supplied=Counts(SETUP_READY_SOLDIERS * n_seats, SETUP_READY_GOODS * n_seats),
        )

    def next(self, state: EngineState) -> Node:
        phase = state.phase
        if phase == "start":
            return Chance(label=START_LABEL, draw="below", n=state.n_seats)
        if phase == "plan":
            return plan_node(state)
        if phase == "over":
            return TERMINAL
        awaiting = state.awaiting
        turn = TURNS.get(awaiting)
        if turn is None:  # a few dozen seat tuples at most (subsets of up to four seats)
            turn = TURNS[awaiting] = Turn(seats=awaiting)
        return turn

    # ------------------------------------------------------------------ turns

    def legal_actions(self, state: EngineState, seat: int) -> Sequence[Json]:
        return ex.legal(state, seat)

    def default_action(self, state: EngineState, seat: int) -> Json:
        legal = self.legal_actions(state, seat)
        if not legal:
            raise RuleError(f"seat {seat} is not awaited")
        return legal[0]

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        """A choice that is one of its slot's listed values itself is allowed at once
        (``planning.LISTED``); any other is checked by the kit's membership test."""
        listed = LISTED.get(id(slot.allowed))
        if listed is not None and id(choice) in listed:
            return True
        return super().check_choice(slot, choice)

    # ------------------------------------------------------------------ moves

    def check_joint(self, node: Simultaneous, move: JointAction) -> bool:
        """The Plan's choices that are each one of their slot's listed values itself, in the
        slots' order (``planning.listed_choices``), pass at once; any other choices are
        checked slot by slot."""
        return listed_choices(node, move.choices) or super().check_joint(node, move)

    def play_listed(self, new: EngineState, seat: int, action: Json, events: Events
                    ) -> None:
        """A listed block, loot or salvage act as its JSON (the kit checked it is listed)."""
        took = id(action)
        if took in ex.LISTED_LOOT:  # EE-4
            ex.choose_loot(new, ex.LISTED_LOOT[took], events)
        elif took in ex.LISTED_SALVAGE:  # EE-10
            ex.choose_salvage(new, seat, ex.LISTED_SALVAGE[took], events)
        else:  # EE-8: the listed blocks (execute.BLOCKS)
            assert isinstance(action, dict) and action["type"] == "block"
            attacker = action["attacker"]
            assert isinstance(attacker, int)
            ex.choose_block(new, seat, attacker, events)

    def play_chance(self, new: EngineState, node: Chance, values: tuple[int, ...],
                    events: Events) -> None:
        start(new, values[0], events)

    def play_joint(self, new: EngineState, node: Simultaneous, move: JointAction,
                   events: Events) -> None:
        plan(new, move.choices, events)

    def play_act(self, new: EngineState, node: Turn, seat: int, action: Action,
                 events: Events) -> None:
        # the kit checked the action is one of legal_actions (acts_enumerated)
        if isinstance(action, BlockAction):  # EE-8
            ex.choose_block(new, seat, action.attacker, events)
        elif isinstance(action, LootAction):  # EE-4
            ex.choose_loot(new, action.take, events)
        else:  # EE-10
            ex.choose_salvage(new, seat, action.take, events)

    # ------------------------------------------------------------------ view / score

    def view(self, state: EngineState, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: EngineState) -> Outcome:
        return score(state)

    # ------------------------------------------------------------------ storage

    def to_stored(self, state: EngineState) -> BaseModel:
        return stored.to_stored(state)

    def from_stored(self, data: Any) -> EngineState:
        return stored.from_stored(data)
