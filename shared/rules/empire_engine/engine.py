"""The Empire Engine as a contract ``Game``: setup, next, legal_actions, apply, view, score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel

from shared.rules._kit.base import GameBase, Step
from shared.rules._kit.model import event
from shared.rules.api import (
    Chance,
    JointAction,
    Json,
    Node,
    Outcome,
    RuleError,
    Simultaneous,
    Terminal,
    Turn,
)
from shared.rules.empire_engine import execute as ex
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
from shared.rules.empire_engine.planning import plan_slots, resolve_plan, round_id
from shared.rules.empire_engine.scoring import score
from shared.rules.empire_engine.state import Counts, Player
from shared.rules.empire_engine.state import Options as EngineOptions
from shared.rules.empire_engine.state import State as EngineState
from shared.rules.empire_engine.view import GAME_NAME, view

START_LABEL = "start-player"
Action = BlockAction | LootAction | SalvageAction


class EmpireEngine(GameBase[EngineState, EngineOptions, Action]):
    State: ClassVar[type[BaseModel]] = EngineState
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
        ready = Counts(soldiers=SETUP_READY_SOLDIERS, goods=SETUP_READY_GOODS)
        return EngineState(
            options=opts,
            n_seats=n_seats,
            rounds=rounds,
            phase="start" if opts.random_start_player else "plan",
            players=tuple(Player(ready=ready, score=Counts()) for _ in range(n_seats)),
            supplied=Counts(soldiers=ready.soldiers * n_seats, goods=ready.goods * n_seats),
        )

    def next(self, state: EngineState) -> Node:
        if state.phase == "start":
            return Chance(label=START_LABEL, draw="below", n=state.n_seats)
        if state.phase == "plan":
            return Simultaneous(round_id=round_id(state), slots=plan_slots(state), ordered=True)
        if state.phase == "over":
            return Terminal()
        return Turn(seats=state.awaiting)

    # ------------------------------------------------------------------ turns

    def legal_actions(self, state: EngineState, seat: int) -> Sequence[Json]:
        if state.phase not in ("block", "loot", "salvage") or seat not in state.awaiting:
            return []
        if state.phase == "block":  # EE-8: which of the two attacks to block
            return [
                {"type": "block", "attacker": state.attacks[i].attacker}
                for i in ex.incoming(state, seat)
            ]
        if state.phase == "loot":  # EE-4: the attacker chooses
            return [{"type": "loot", "take": "soldier"}, {"type": "loot", "take": "good"}]
        return [{"type": "salvage", "take": t} for t in ("invention", "soldier", "good")]

    def default_action(self, state: EngineState, seat: int) -> Json:
        legal = self.legal_actions(state, seat)
        if not legal:
            raise RuleError(f"seat {seat} is not awaited")
        return legal[0]

    # ------------------------------------------------------------------ moves

    def on_chance(self, state: EngineState, node: Chance, values: tuple[int, ...]
                  ) -> Step[EngineState]:
        start = values[0]
        new = state.model_copy(update={"start_player": start, "phase": "plan"})
        return new, (event(type="start_player", data={"seat": start}),)

    def on_joint(self, state: EngineState, node: Simultaneous, move: JointAction
                 ) -> Step[EngineState]:
        new, events = resolve_plan(state, move.choices)
        new, ev = ex.execute(new)
        return new, events + ev

    def on_act(self, state: EngineState, node: Turn, seat: int, action: Action
               ) -> Step[EngineState]:
        # the kit checked the action is one of legal_actions (acts_enumerated)
        if isinstance(action, BlockAction):  # EE-8
            return ex.choose_block(state, seat, action.attacker)
        if isinstance(action, LootAction):  # EE-4
            return ex.choose_loot(state, action.take)
        return ex.choose_salvage(state, seat, action.take)  # EE-10

    # ------------------------------------------------------------------ view / score

    def view(self, state: EngineState, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: EngineState) -> Outcome:
        return score(state)

