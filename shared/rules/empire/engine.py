"""The Empire engine: the contract's ``Game`` for Stephenson Games' *Empire*.

Flow (E-16): setup chance draws -> nation claiming (standard) -> round 1 development
(automatic) -> commerce (sealed) -> exploration (five auctions, trades) -> trade window ->
the shortage card moves -> round 2 development ... -> round 6 development -> Terminal.
Development needs no input, so it is applied inside the transition that enters it.

Each move (``play_chance``/``play_joint``/``play_act``) lets the rule modules change the state
in place; the kit's hooks run it on a clone (``state.py``), and the kit's rollout driver
(``_kit.rollout.Rollout``) runs the same moves on one clone for search playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel

from shared.rules._kit.base import GameBase
from shared.rules._kit.model import Events
from shared.rules.api import (
    Chance,
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
from shared.rules.empire import claiming, commerce, exploration, stored
from shared.rules.empire.actions import ACTION, Action
from shared.rules.empire.data import MAX_SEATS, MIN_SEATS, NATIONS, ROUNDS, ROW_LENGTH
from shared.rules.empire.development import development_phase
from shared.rules.empire.scoring import score, standings
from shared.rules.empire.state import EmpireOptions, EmpireState, Holdings
from shared.rules.empire.view import view

TERMINAL = Terminal()
START_LABEL = "setup:start-player"
ROW_LABEL = "setup:auction-row"
NATIONS_LABEL = "setup:nations"
ASSIGN_LABEL = "claim:assign"


def _bidding_turn(n: int, bidder: int) -> Turn:
    """The polled bidder is awaited; the others may answer trade offers meanwhile."""
    return Turn(seats=(bidder,), open_to=tuple(s for s in range(n) if s != bidder))


# the setup draws (seat count -> the start player's draw)
START_NODES = tuple(Chance(label=START_LABEL, draw="below", n=n) for n in range(MAX_SEATS + 1))
ROW_NODE = Chance(label=ROW_LABEL, draw="shuffle", n=ROW_LENGTH)
NATIONS_NODE = Chance(label=NATIONS_LABEL, draw="shuffle", n=len(NATIONS))
SLOT_KEYS = tuple(f"s{s}" for s in range(MAX_SEATS))  # each seat's sealed slot key

# seat count -> polled bidder -> its Turn (built once: ``next`` asks for one every bid)
BIDDING_TURNS: tuple[tuple[Turn, ...], ...] = tuple(
    tuple(_bidding_turn(n, b) for b in range(n)) for n in range(MAX_SEATS + 1))


@cache
def trading_turn(done: tuple[bool, ...]) -> Turn:
    """E-6: the seats not done yet are awaited; the done ones may still answer offers."""
    return Turn(seats=tuple(s for s, d in enumerate(done) if not d),
                     open_to=tuple(s for s, d in enumerate(done) if d))


# -- moves on a fresh clone (in place) -------------------------------------------------------


def draw_start_player(state: EmpireState, seat: int, events: Events) -> None:
    """E-20: the dealer drew the start player; the first auction is polled from its left."""
    state.start_player = state.auction_lead = seat
    events.add("start_player", {"seat": seat})


def deal_row(state: EmpireState, perm: tuple[int, ...], events: Events) -> None:
    claiming.deal_row(state, perm, events)
    if state.options.version == "beginner":  # E-22: no nations to claim
        claiming.beginner_start(state, events)
        start_game(state, events)


def assign_nations(state: EmpireState, perm: tuple[int, ...], events: Events) -> None:
    claiming.resolve_assignment(state, perm, events)
    start_game(state, events)


def claim(state: EmpireState, picks: tuple[int, ...], defaulted: tuple[str, ...],
          events: Events) -> None:
    claiming.resolve_claim(state, picks, defaulted, events)
    if state.claim is None:  # every seat claimed a nation
        start_game(state, events)


def sell(state: EmpireState, sold: tuple[int, ...], defaulted: tuple[str, ...],
         events: Events) -> None:
    """Commerce's reveal, then the first auction of the round (E-17)."""
    commerce.resolve_commerce(state, sold, defaulted, events)
    state.phase = "exploration"
    state.auctions_done = ()
    exploration.open_next_auction(state, events)


def finish_trading(state: EmpireState, seat: int, events: Events) -> None:
    """The seat clicked "done"; once every seat has, the round ends."""
    done = list(state.done)
    done[seat] = True
    state.done = tuple(done)
    events.add("trade_done", {"seat": seat})
    if False not in done:
        end_round(state, events)


def start_game(state: EmpireState, events: Events) -> None:
    state.round, state.shortage = 1, 0
    events.add("round_started", {"round": 1, "shortage": 0})
    develop(state, events)


def end_round(state: EmpireState, events: Events) -> None:
    """E-6: open offers expire once the trade window ends; then the shortage moves."""
    if state.offers:
        ids: list[Json] = [o.id for o in state.offers]
        events.add("trades_expired", {"offers": ids})
    state.shortage += 1
    state.round += 1
    events.add("shortage_moved", {"round": state.round, "shortage": state.shortage,
                                  "covered": state.row[state.shortage]})
    state.offers, state.done, state.auctions_done = (), (), ()
    develop(state, events)


def develop(state: EmpireState, events: Events) -> None:
    development_phase(state, events)
    if state.round >= ROUNDS:  # E-16: the game ends right after the sixth development
        state.phase = "ended"
        events.add("game_ended", {"standings": standings(state)})
    else:
        state.phase = "commerce"


class EmpireGame(GameBase[EmpireState, EmpireOptions, Action]):
    name = "empire"
    title = "Empire"
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    State: ClassVar[type[BaseModel]] = stored.EmpireState
    Options: ClassVar[type[BaseModel]] = EmpireOptions
    Actions = ACTION

    # -- setup ----------------------------------------------------------------------------

    def setup(self, options: dict[str, Json], n_seats: int) -> EmpireState:
        opts: EmpireOptions = self.parse_options(options or {})
        if isinstance(n_seats, bool) or not isinstance(n_seats, int):
            raise RuleError("n_seats must be an integer")
        if not MIN_SEATS <= n_seats <= MAX_SEATS:  # E-18: 2-6 (six selection sets)
            raise RuleError(f"Empire needs {MIN_SEATS}-{MAX_SEATS} players, not {n_seats}")
        return EmpireState(
            options=opts,
            n=n_seats,
            holdings=tuple(Holdings() for _ in range(n_seats)),
            nations=(None,) * n_seats,
        )

    # -- what happens next ----------------------------------------------------------------

    def next(self, state: EmpireState) -> Node:
        phase = state.phase
        if phase == "exploration":
            assert state.auction is not None
            return BIDDING_TURNS[state.n][state.auction.to_act]
        if phase == "trade_window":
            return trading_turn(state.done)
        if phase == "commerce":
            return commerce.commerce_node(state)
        if phase == "setup":
            if state.start_player is None:  # E-20: a random start player
                return START_NODES[state.n]
            if not state.row:
                return ROW_NODE
            return NATIONS_NODE
        if phase == "claim":
            c = state.claim
            assert c is not None
            if c.assign_seats:  # E-14 cap reached
                return Chance(label=ASSIGN_LABEL, draw="shuffle",
                                 n=len(c.assign_nations))
            return claiming.claim_node(state)
        return TERMINAL

    def legal_actions(self, state: EmpireState, seat: int) -> Sequence[Json]:
        """The seat's bids (when polled), trade answers and "done" (a new list; the bid and
        "done" actions in it are shared, never changed)."""
        if not 0 <= seat < state.n:
            return []
        phase = state.phase
        if phase == "exploration":
            a = state.auction
            if a is None or a.to_act != seat:  # not polled: trade answers only
                return exploration.trade_responses(state, seat) if state.offers else []
            bids = exploration.bid_actions(a, seat, state.holdings[seat].gold)
            return bids + exploration.trade_responses(state, seat) if state.offers else bids
        if phase == "trade_window":
            own: list[Json] = [] if state.done[seat] else [exploration.DONE]
            return own + exploration.trade_responses(state, seat) if state.offers else own
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

    def check_joint(self, node: Simultaneous, move: JointAction) -> bool:
        """``check_choice`` of every slot, in one loop."""
        choices = move.choices
        for slot in node.slots:
            choice, allowed = choices[slot.key], slot.allowed
            if (isinstance(choice, bool) or not isinstance(choice, int) or allowed is None
                    or choice not in allowed):
                return False
        return True

    # -- moves (the kit checked the node, the draw's values, the slots and the seat) -----

    def play_chance(self, new: EmpireState, node: Chance, values: tuple[int, ...],
                    events: Events) -> None:
        label = node.label
        if label == START_LABEL:
            draw_start_player(new, values[0], events)
        elif label == ROW_LABEL:
            deal_row(new, values, events)
        elif label == NATIONS_LABEL:
            claiming.deal_nations(new, values, events)
        else:  # ASSIGN_LABEL
            assign_nations(new, values, events)

    def play_joint(self, new: EmpireState, node: Simultaneous, move: JointAction,
                   events: Events) -> None:
        choices = move.choices
        picks = tuple([int(choices[k]) for k in SLOT_KEYS[:new.n]])  # type: ignore[arg-type]
        if new.phase == "claim":
            claim(new, picks, move.defaulted, events)
        else:
            sell(new, picks, move.defaulted, events)

    def play_act(self, new: EmpireState, node: Turn, seat: int, action: Action,
                 events: Events) -> Rejection | None:
        """A seat's bid, trade or "done" (the kit checked the seat may act now)."""
        kind = action.type
        if kind == "pass" or kind == "raise" or kind == "withdraw":
            if new.phase != "exploration":
                return reject("action/illegal", "no auction is open")
            if kind == "pass":
                return exploration.pass_bid(new, seat, events)
            if kind == "raise":
                return exploration.raise_bid(new, seat, action.bid, events)  # type: ignore[union-attr]
            return exploration.withdraw_bid(new, seat, events)
        if kind == "done":
            if new.phase != "trade_window":
                return reject("action/illegal", "the trade window opens after the last auction")
            if new.done[seat]:
                return reject("action/illegal", "you are already done")
            finish_trading(new, seat, events)
            return None
        return exploration.apply_trade(new, seat, action, events)  # type: ignore[arg-type]

    def play_listed(self, new: EmpireState, seat: int, action: Json, events: Events
                    ) -> Rejection | None:
        """An act ``legal_actions`` listed for this state and seat, as its JSON: legal, so the
        phase and the bid's polling, gold and tie hold (the moves' own checks stay cheap)."""
        assert isinstance(action, dict)
        kind = action["type"]
        if kind == "pass":
            return exploration.pass_bid(new, seat, events)
        if kind == "raise":
            return exploration.raise_bid(new, seat, action["bid"], events)  # type: ignore[arg-type]
        if kind == "done":
            finish_trading(new, seat, events)
            return None
        if kind == "withdraw":
            exploration.withdraw(new.auction, seat, events)  # type: ignore[arg-type]
            return None
        return exploration.answer_offer(new, seat, kind, action["offer"], events)  # type: ignore[arg-type]

    # -- the rest of the contract ---------------------------------------------------------

    def view(self, state: EmpireState, seat: int | None) -> dict[str, Json]:
        return view(self, state, seat)

    def score(self, state: EmpireState) -> Any:
        return score(state)

    # -- storage --------------------------------------------------------------------------

    def to_stored(self, state: EmpireState) -> BaseModel:
        return stored.to_stored(state)

    def from_stored(self, data: Any) -> EmpireState:
        return stored.from_stored(data)
