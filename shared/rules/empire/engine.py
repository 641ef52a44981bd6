"""The Empire engine: the contract's ``Game`` for Stephenson Games' *Empire*.

Flow (E-16): setup chance draws -> nation claiming (standard) -> round 1 development
(automatic) -> commerce (sealed) -> exploration (five auctions, trades) -> trade window ->
the shortage card moves -> round 2 development ... -> round 6 development -> Terminal.
Development needs no input, so it is applied inside the transition that enters it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.rules._kit.base import GameBase
from shared.rules._kit.model import event
from shared.rules.api import (
    Chance,
    Event,
    JointAction,
    Json,
    Node,
    Rejection,
    RuleError,
    SealedSlot,
    Simultaneous,
    Terminal,
    Turn,
    reject,
)
from shared.rules.empire import claiming, commerce, exploration
from shared.rules.empire.actions import ACTION, BID_TYPES, Action, Raise
from shared.rules.empire.data import MAX_SEATS, MIN_SEATS, NATIONS, ROUNDS, ROW_LENGTH
from shared.rules.empire.development import development_phase
from shared.rules.empire.scoring import score, standings
from shared.rules.empire.state import EmpireOptions, EmpireState, Holdings
from shared.rules.empire.view import view

Step = tuple[EmpireState, list[Event]]


class EmpireGame(GameBase[EmpireState, EmpireOptions, Action]):
    name = "empire"
    title = "Empire"
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    State = EmpireState
    Options = EmpireOptions
    Actions = ACTION

    # -- setup ----------------------------------------------------------------------------

    def setup(self, options: dict[str, Json], n_seats: int) -> EmpireState:
        opts = self.parse_options(options or {})
        if isinstance(n_seats, bool) or not isinstance(n_seats, int):
            raise RuleError("n_seats must be an integer")
        if not MIN_SEATS <= n_seats <= MAX_SEATS:  # E-18: 2-6 (six selection sets)
            raise RuleError(f"Empire needs {MIN_SEATS}-{MAX_SEATS} players, not {n_seats}")
        return EmpireState(
            options=opts,
            n=n_seats,
            holdings=(Holdings(),) * n_seats,
            nations=(None,) * n_seats,
        )

    # -- what happens next ----------------------------------------------------------------

    def next(self, state: EmpireState) -> Node:
        phase = state.phase
        if phase == "setup":
            if state.start_player is None:  # E-20: a random start player
                return Chance(label="setup:start-player", draw="below", n=state.n)
            if not state.row:
                return Chance(label="setup:auction-row", draw="shuffle", n=ROW_LENGTH)
            return Chance(label="setup:nations", draw="shuffle", n=len(NATIONS))
        if phase == "claim":
            claim = state.claim
            assert claim is not None
            if claim.assign_seats:  # E-14 cap reached
                return Chance(label="claim:assign", draw="shuffle", n=len(claim.assign_nations))
            return claiming.claim_node(state)
        if phase == "commerce":
            return commerce.commerce_node(state)
        if phase == "exploration":
            assert state.auction is not None
            bidder = state.auction.to_act
            others = tuple(s for s in range(state.n) if s != bidder)
            return Turn(seats=(bidder,), open_to=others)
        if phase == "trade_window":
            waiting = tuple(s for s in range(state.n) if not state.done[s])
            finished = tuple(s for s in range(state.n) if state.done[s])
            return Turn(seats=waiting, open_to=finished)
        return Terminal()

    def legal_actions(self, state: EmpireState, seat: int) -> Sequence[Json]:
        if not 0 <= seat < state.n:
            return []
        if state.phase == "exploration":
            return exploration.bid_actions(state, seat) + exploration.trade_responses(state, seat)
        if state.phase == "trade_window":
            own: list[Json] = [] if state.done[seat] else [{"type": "done"}]
            return own + exploration.trade_responses(state, seat)
        return []

    def default_action(self, state: EmpireState, seat: int) -> Json:
        if state.phase == "trade_window" and 0 <= seat < state.n and not state.done[seat]:
            return {"type": "done"}
        if state.auction is not None and state.auction.to_act == seat:
            return {"type": "pass"}  # the polled bidder's timeout is a pass (E-1)
        # Not awaited: never accept anything on someone's behalf; decline at most.
        legal = self.legal_actions(state, seat)
        declines = [a for a in legal if isinstance(a, dict) and a.get("type") == "decline"]
        return declines[0] if declines else {"type": "pass"}

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        # Selection cards are integers: reject JSON true/1.0 that compare equal to 1.
        if isinstance(choice, bool) or not isinstance(choice, int):
            return False
        return slot.allowed is not None and choice in slot.allowed

    # -- moves (the kit checked the node, the draw's values, the slots and the seat) -----

    def on_chance(self, state: EmpireState, node: Chance, values: tuple[int, ...]) -> Step:
        if node.label == "setup:start-player":
            start = values[0]
            new = state.model_copy(update={"start_player": start, "auction_lead": start})
            return new, [event(type="start_player", data={"seat": start})]
        if node.label == "setup:auction-row":
            new, events = claiming.deal_row(state, values)
            if state.options.version == "beginner":  # E-22: no nations to claim
                new, more = claiming.beginner_start(new)
                new, more2 = self._start_game(new)
                return new, events + more + more2
            return new, events
        if node.label == "setup:nations":
            return claiming.deal_nations(state, values)
        new, events = claiming.resolve_assignment(state, values)  # "claim:assign"
        new, more = self._start_game(new)
        return new, events + more

    def on_joint(self, state: EmpireState, node: Simultaneous, move: JointAction) -> Step:
        picks = tuple(int(move.choices[f"s{s}"]) for s in range(state.n))  # type: ignore[arg-type]
        if state.phase == "claim":
            new, events = claiming.resolve_claim(state, picks, move.defaulted)
            if new.claim is None:  # every seat claimed a nation
                new, more = self._start_game(new)
                events += more
            return new, events
        new, events = commerce.resolve_commerce(state, picks, move.defaulted)
        new = new.model_copy(update={"phase": "exploration", "auctions_done": ()})
        new, more = exploration.open_next_auction(new)
        return new, events + more

    def on_act(self, state: EmpireState, node: Turn, seat: int, action: Action
               ) -> Step | Rejection:
        kind = action.type
        if kind in BID_TYPES:
            if state.phase != "exploration":
                return reject("action/illegal", "no auction is open")
            return exploration.apply_bid(
                state, seat, kind, action if isinstance(action, Raise) else None
            )
        if kind == "done":
            if state.phase != "trade_window":
                return reject("action/illegal", "the trade window opens after the last auction")
            if state.done[seat]:
                return reject("action/illegal", "you are already done")
            done = tuple(d or s == seat for s, d in enumerate(state.done))
            new = state.model_copy(update={"done": done})
            events = [event(type="trade_done", data={"seat": seat})]
            if all(done):
                new, more = self._end_round(new)
                events += more
            return new, events
        return exploration.apply_trade(state, seat, action)  # type: ignore[arg-type]

    # -- round structure (E-16) -----------------------------------------------------------

    def _start_game(self, state: EmpireState) -> Step:
        new = state.model_copy(update={"round": 1, "shortage": 0})
        events = [event(type="round_started", data={"round": 1, "shortage": 0})]
        return self._develop(new, events)

    def _end_round(self, state: EmpireState) -> Step:
        """E-6: open offers expire once the trade window ends; then the shortage moves."""
        events: list[Event] = []
        if state.offers:
            ids: list[Json] = [o.id for o in state.offers]
            events.append(event(type="trades_expired", data={"offers": ids}))
        shortage = state.shortage + 1
        rnd = state.round + 1
        events.append(
            event(
                type="shortage_moved",
                data={"round": rnd, "shortage": shortage, "covered": state.row[shortage]},
            )
        )
        new = state.model_copy(
            update={
                "offers": (),
                "done": (),
                "shortage": shortage,
                "round": rnd,
                "auctions_done": (),
            }
        )
        return self._develop(new, events)

    def _develop(self, state: EmpireState, events: list[Event]) -> Step:
        new, more = development_phase(state)
        events = events + more
        if new.round >= ROUNDS:  # E-16: the game ends right after the sixth development
            new = new.model_copy(update={"phase": "ended"})
            data: dict[str, Json] = {"standings": standings(new)}
            return new, [*events, event(type="game_ended", data=data)]
        return new.model_copy(update={"phase": "commerce"}), events

    # -- the rest of the contract ---------------------------------------------------------

    def view(self, state: EmpireState, seat: int | None) -> dict[str, Json]:
        return view(self, state, seat)

    def score(self, state: EmpireState) -> Any:
        return score(state)
