"""The Empire Engine as a contract ``Game``: setup, next, legal_actions, apply, view, score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from shared.rules._kit.base import GameBase
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    JointAction,
    Json,
    Move,
    Node,
    Outcome,
    Rejection,
    RuleError,
    SealedSlot,
    Simultaneous,
    Terminal,
    Transition,
    Turn,
    reject,
)
from shared.rules.empire_engine import execute as ex
from shared.rules.empire_engine.actions import (
    BlockAction,
    LootAction,
    SalvageAction,
    parse_action,
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


def json_equal(a: Json, b: Json) -> bool:
    """JSON equality that, unlike ``==``, tells ``true`` from ``1`` and ``1.0`` from ``1``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


class EmpireEngine(GameBase[EngineState, EngineOptions]):
    State: ClassVar[type[BaseModel]] = EngineState
    Options: ClassVar[type[BaseModel]] = EngineOptions

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

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        return slot.allowed is not None and any(json_equal(choice, a) for a in slot.allowed)

    # ------------------------------------------------------------------ apply

    def apply(self, state: EngineState, move: Move) -> Transition | Rejection:
        try:
            return self._apply(state, move)
        except Exception as exc:  # contract: apply never raises; the checks below should
            # already have rejected every bad move, this is the last line of defence
            return reject("action/malformed", f"{type(exc).__name__}: {exc}")

    def _apply(self, state: EngineState, move: Move) -> Transition | Rejection:
        node = self.next(state)
        if isinstance(move, ChanceOutcome):
            if not isinstance(node, Chance):
                return reject("action/wrong_phase", "no chance draw is pending")
            return self._apply_chance(state, node, move)
        if isinstance(move, JointAction):
            if not isinstance(node, Simultaneous):
                return reject("action/wrong_phase", "no sealed round is pending")
            return self._apply_joint(state, node, move)
        if isinstance(move, Act):
            if not isinstance(node, Turn):
                return reject("action/wrong_phase", "no turn is pending")
            return self._apply_act(state, move)
        return reject("action/malformed", "unknown move kind")

    def _apply_chance(
        self, state: EngineState, node: Chance, move: ChanceOutcome
    ) -> Transition | Rejection:
        if move.label != node.label:
            return reject("action/unknown_round", f"pending draw is {node.label!r}")
        if len(move.values) != node.count or not all(0 <= v < node.n for v in move.values):
            return reject("action/malformed", f"expected {node.count} value(s) in [0, {node.n})")
        start = move.values[0]
        new = state.model_copy(update={"start_player": start, "phase": "plan"})
        return Transition(state=new, events=(Event(type="start_player", data={"seat": start}),))

    def _apply_joint(
        self, state: EngineState, node: Simultaneous, move: JointAction
    ) -> Transition | Rejection:
        if move.round_id != node.round_id:
            return reject("action/unknown_round", f"pending round is {node.round_id!r}")
        keys = {slot.key for slot in node.slots}
        if set(move.choices) != keys:
            return reject("action/malformed", "choices must name every slot exactly once")
        if not set(move.defaulted) <= keys:
            return reject("action/malformed", "defaulted names an unknown slot")
        for slot in node.slots:
            if not self.check_choice(slot, move.choices[slot.key]):
                return reject("action/illegal", f"choice for {slot.key} is not allowed")
        new, events = resolve_plan(state, move.choices)
        new, ev = ex.execute(new)
        return Transition(state=new, events=tuple(events + ev))

    def _apply_act(self, state: EngineState, move: Act) -> Transition | Rejection:
        action = parse_action(move.action)
        if action is None:
            return reject("action/malformed", "not an Empire Engine action")
        if move.seat not in state.awaiting:
            return reject("action/not_your_turn", f"seat {move.seat} is not awaited")
        if not any(action.model_dump() == legal for legal in self.legal_actions(state, move.seat)):
            return reject("action/illegal", f"{move.action!r} is not legal now")
        if isinstance(action, BlockAction):
            new, events = ex.choose_block(state, move.seat, action.attacker)
        elif isinstance(action, LootAction):
            new, events = ex.choose_loot(state, action.take)
        else:
            assert isinstance(action, SalvageAction)
            new, events = ex.choose_salvage(state, move.seat, action.take)
        return Transition(state=new, events=tuple(events))

    # ------------------------------------------------------------------ view / score

    def view(self, state: EngineState, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: EngineState) -> Outcome:
        return score(state)

    def decode(self, data: dict[str, Json]) -> EngineState:
        return EngineState.model_validate(data)

    def encode(self, state: Any) -> dict[str, Json]:
        return state.model_dump(mode="json")  # type: ignore[no-any-return]
