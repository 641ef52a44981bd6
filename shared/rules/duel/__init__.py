"""Duel: the reference game of the contract (and the benchmark workload).

Two to four seats, ``rounds`` rounds. A round: the caller (seats in turn) calls a stake 1-3
(a Turn); every seat picks a number 0-9 in secret (a Simultaneous round through the escrow);
a die is rolled (a Chance node from the dealer): the highest unique pick scores the stake,
doubled on a 4+. With ``with_turns`` and ``with_dice`` off it is the peer benchmark's
commit-reveal game. Small on purpose: it shows every node kind in ~150 lines.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from shared.rules._kit.base import GameBase, Step
from shared.rules._kit.model import Frozen, event
from shared.rules.api import (
    Chance,
    JointAction,
    Json,
    Node,
    Outcome,
    Rejection,
    RuleError,
    SealedSlot,
    SeatResult,
    Simultaneous,
    Terminal,
    Turn,
    reject,
)


class DuelOptions(Frozen):
    # up to 1,000: the bench's long match (bench/longmatch.py) plays 512 rounds of one game
    rounds: int = Field(3, ge=1, le=1000, title="Rounds", description="Rounds to play.")
    with_turns: bool = Field(True, title="Called stakes",
                             description="A seat calls the stake (1-3) before each round.")
    with_dice: bool = Field(True, title="Dice",
                            description="A die roll of 4 or more doubles the round's points.")


class DuelState(Frozen):
    options: DuelOptions
    n: int
    first: int | None = None
    round: int = 1
    phase: Literal["setup", "call", "pick", "dice", "over"] = "setup"
    stake: int = 1
    picks: tuple[int, ...] = ()
    points: tuple[int, ...]


class Call(Frozen):
    type: Literal["call"] = "call"
    stake: int


DuelAction = Annotated[Call, Field(discriminator="type")]
ACTION: TypeAdapter[DuelAction] = TypeAdapter(DuelAction)
PICKS = tuple(range(10))


@functools.lru_cache(maxsize=8)
def _pick_slots(n: int) -> tuple[SealedSlot, ...]:
    """Every pick round's slots (frozen models: built once per seat count, not per call of
    ``next``; validating them was 8% of the adjudicator's CPU in the benchmark's duel)."""
    return tuple(SealedSlot(seat=i, key=f"s{i}", allowed=PICKS, default=0) for i in range(n))


class Duel(GameBase[DuelState, DuelOptions, Call]):
    name = "duel"
    title = "Duel (reference game)"
    rules_version = "1"
    min_seats = 2
    max_seats = 4
    State = DuelState
    Options = DuelOptions
    Actions = ACTION

    def setup(self, options: dict[str, Json], n_seats: int) -> DuelState:
        if not self.min_seats <= n_seats <= self.max_seats:
            raise RuleError("duel takes 2-4 seats")
        return DuelState(options=self.parse_options(options), n=n_seats, points=(0,) * n_seats)

    def caller(self, s: DuelState) -> int:
        return ((s.first or 0) + s.round - 1) % s.n

    def next(self, s: DuelState) -> Node:
        if s.phase == "setup":
            return Chance(label="setup:first", draw="below", n=s.n)
        if s.phase == "call":
            return Turn(seats=(self.caller(s),))
        if s.phase == "pick":
            return Simultaneous(round_id=f"pick:{s.round}", slots=_pick_slots(s.n))
        if s.phase == "dice":
            return Chance(label=f"dice:round:{s.round}", draw="dice", n=6)
        return Terminal()

    def legal_actions(self, s: DuelState, seat: int) -> Sequence[Json]:
        if s.phase != "call" or seat != self.caller(s):
            return []
        return [{"type": "call", "stake": k} for k in (1, 2, 3)]

    def default_action(self, s: DuelState, seat: int) -> Json:
        return {"type": "call", "stake": 1}

    def _after_pick(self, s: DuelState) -> DuelState:
        return s.model_copy(update={"phase": "dice"}) if s.options.with_dice else self._score(s, 0)

    def _score(self, s: DuelState, die: int) -> DuelState:
        counts = {p: s.picks.count(p) for p in s.picks}
        unique = [p for p, c in counts.items() if c == 1]
        points = list(s.points)
        if unique:
            winner = s.picks.index(max(unique))
            points[winner] += s.stake * (2 if die >= 4 else 1)
        last = s.round >= s.options.rounds
        return s.model_copy(update={
            "points": tuple(points), "picks": (), "stake": 1, "round": s.round + (0 if last else 1),
            "phase": "over" if last else ("call" if s.options.with_turns else "pick")})

    def on_chance(self, s: DuelState, node: Chance, values: tuple[int, ...]) -> Step[DuelState]:
        v = values[0]  # the kit checked it: a seat below n, or a die 1-6
        if s.phase == "setup":
            nxt = s.model_copy(update={"first": v, "phase": "call" if s.options.with_turns
                                       else "pick"})
            return nxt, (event(type="first_seat", data={"seat": v}),)
        nxt = self._score(s, v)
        return nxt, (event(type="round_scored", data={
            "round": s.round, "die": v, "points": list(nxt.points)}),)

    def on_joint(self, s: DuelState, node: Simultaneous, move: JointAction) -> Step[DuelState]:
        picks = [int(move.choices[slot.key]) for slot in node.slots]  # type: ignore[arg-type]
        ev = event(type="picks_revealed", data={"round": s.round, "picks": picks})
        after = self._after_pick(s.model_copy(update={"picks": tuple(picks)}))
        if s.options.with_dice:
            return after, (ev,)
        return after, (ev, event(type="round_scored", data={
            "round": s.round, "points": list(after.points)}))

    def on_act(self, s: DuelState, node: Turn, seat: int, action: Call
               ) -> Step[DuelState] | Rejection:
        if action.stake not in (1, 2, 3):
            return reject("action/illegal", "the stake is 1, 2 or 3")
        nxt = s.model_copy(update={"stake": action.stake, "phase": "pick"})
        return nxt, (event(type="called", data={
            "seat": seat, "stake": action.stake, "round": s.round}),)

    def view(self, s: DuelState, seat: int | None) -> dict[str, Json]:
        return {"game": self.name, "phase": s.phase, "seat": seat, "round": s.round,
                "rounds": s.options.rounds, "stake": s.stake, "points": list(s.points),
                "first": s.first, "options": s.options.model_dump(mode="json"),
                "picks": list(s.picks)}

    def score(self, s: DuelState) -> Outcome:
        order = sorted(set(s.points), reverse=True)
        places = [1 + sum(1 for p in s.points if p > mine) for mine in s.points]
        del order
        return Outcome(results=tuple(SeatResult(seat=i, place=places[i],
                                                figures={"points": s.points[i]})
                                     for i in range(s.n)),
                       tiebreak="most points; ties share the place")


GAME = Duel()
