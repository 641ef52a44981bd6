"""Helpers that drive Empire through the contract (``next``/``apply``) to a given spot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    JointAction,
    Json,
    Move,
    Rejection,
    Simultaneous,
    Transition,
)
from shared.rules.empire import GAME
from shared.rules.empire.state import EmpireState, Holdings

IDENTITY_ROW = (0, 1, 2, 3, 4, 5)


class Driver:
    game = GAME

    def ok(self, state: EmpireState, move: Move) -> tuple[EmpireState, list[Event]]:
        result = GAME.apply(state, move)
        assert isinstance(result, Transition), result
        return result.state, list(result.events)

    def rejected(self, state: EmpireState, move: Move) -> str:
        result = GAME.apply(state, move)
        assert isinstance(result, Rejection), f"expected a rejection of {move!r}"
        return result.code

    def chance(
        self, state: EmpireState, label: str, values: Sequence[int]
    ) -> tuple[EmpireState, list[Event]]:
        node = GAME.next(state)
        assert isinstance(node, Chance) and node.label == label, node
        return self.ok(state, ChanceOutcome(label=label, values=tuple(values)))

    def start(
        self,
        n: int,
        version: str = "standard",
        start_player: int = 0,
        row: Sequence[int] = IDENTITY_ROW,
        nations: Sequence[int] = (0, 1, 2, 3, 4, 5, 6, 7),
        **options: Json,
    ) -> tuple[EmpireState, list[Event]]:
        """Setup draws answered by hand: claim phase (standard) or round-1 commerce."""
        state = GAME.setup({"version": version, **options}, n)
        state, events = self.chance(state, "setup:start-player", [start_player])
        state, more = self.chance(state, "setup:auction-row", row)
        events += more
        if version == "standard":
            state, more = self.chance(state, "setup:nations", nations)
            events += more
        return state, events

    def joint(
        self, state: EmpireState, picks: Sequence[Json], defaulted: Sequence[str] = ()
    ) -> tuple[EmpireState, list[Event]]:
        node = GAME.next(state)
        assert isinstance(node, Simultaneous), node
        choices = {f"s{s}": c for s, c in enumerate(picks)}
        return self.ok(
            state,
            JointAction(round_id=node.round_id, choices=choices, defaulted=tuple(defaulted)),
        )

    def act(
        self, state: EmpireState, seat: int, action: dict[str, Any]
    ) -> tuple[EmpireState, list[Event]]:
        return self.ok(state, Act(seat=seat, action=action))

    def act_code(self, state: EmpireState, seat: int, action: Any) -> str:
        return self.rejected(state, Act(seat=seat, action=action))

    def with_holdings(self, state: EmpireState, seat: int, **counts: int) -> EmpireState:
        holdings = list(state.holdings)
        holdings[seat] = Holdings(**counts)
        return replace(state, holdings=tuple(holdings))

    def at_commerce(
        self, holdings: Sequence[dict[str, int]], version: str = "beginner", **kw: Any
    ) -> EmpireState:
        """Round-1 commerce of a game whose seats hold exactly ``holdings``."""
        state, _ = self.start(len(holdings), version, **kw)
        if version == "standard":
            state, _ = self.joint(state, list(range(len(holdings))))
        assert state.phase == "commerce"
        for seat, h in enumerate(holdings):
            state = self.with_holdings(state, seat, **h)
        return state

    def at_exploration(
        self, holdings: Sequence[dict[str, int]], version: str = "beginner", **kw: Any
    ) -> EmpireState:
        """The first auction of round 1 (nobody sold anything) with the given holdings."""
        state = self.at_commerce(holdings, version, **kw)
        state, _ = self.joint(state, [0] * len(holdings))
        assert state.phase == "exploration"
        return state

    def pass_all(self, state: EmpireState) -> tuple[EmpireState, list[Event]]:
        """Everyone passes until the current auction closes."""
        events: list[Event] = []
        card = state.auction.card if state.auction else None
        while state.auction is not None and state.auction.card == card:
            state, more = self.act(state, state.auction.to_act, {"type": "pass"})
            events += more
        return state, events

    def finish_exploration(self, state: EmpireState) -> tuple[EmpireState, list[Event]]:
        """Everyone passes every remaining auction: the trade window opens."""
        events: list[Event] = []
        while state.phase == "exploration":
            state, more = self.pass_all(state)
            events += more
        return state, events

    def end_round(self, state: EmpireState) -> tuple[EmpireState, list[Event]]:
        """From the trade window, every seat clicks done: next round's development."""
        events: list[Event] = []
        for seat in range(state.n):
            if not state.done[seat]:
                state, more = self.act(state, seat, {"type": "done"})
                events += more
        return state, events

    @staticmethod
    def of(events: Sequence[Event], kind: str) -> list[dict[str, Json]]:
        return [e.data for e in events if e.type == kind]


@pytest.fixture
def drv() -> Driver:
    return Driver()
