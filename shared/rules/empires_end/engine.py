"""The Empire's End game: setup, the node machine, move dispatch and phase flow.

Modelling choices (details in the phase modules):
* Disaster phases are a ``Turn`` for one seat at a time (the bidder, or the taker while a
  take is resolved).
* Economy, Industry and the combined Industry/Economy phase are one ``Turn`` awaiting every
  seat that has not finished (EEND-22). Each seat acts on its own empire only, so the
  interleaving of seats never matters; token events are private (EEND-21). This is simpler
  and safer than one sealed "whole plan" choice: ``legal_actions`` enumerates every step
  (authoritative, no plan language to validate in ``check_choice``) and no slot needs the
  seat's private stash as context.
* The Conflict fist bid is one ``Simultaneous`` round through the escrow.
* Randomness: the location order (public), the first player (EEND-1), the disaster and
  conflict decks (secret) and every reshuffle of the discard pile (secret, EEND-19) are
  ``Chance`` requests; drawing from the shuffled deck is then deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel

from shared.rules._kit.base import GameBase, Step
from shared.rules._kit.model import event
from shared.rules.api import (
    Chance,
    Event,
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
from shared.rules.empires_end import conflict, disaster, economy, industry
from shared.rules.empires_end.actions import ACTION, Action, ChooseOrder
from shared.rules.empires_end.data import (
    CARD_IDS,
    CONFLICT_IDS,
    HAND_SIZE,
    START_RESOURCES,
    TILE_IDS,
    track_for,
)
from shared.rules.empires_end.scoring import score
from shared.rules.empires_end.state import Location, Player, Res, SeatWork, SubPhase
from shared.rules.empires_end.state import Options as GameOptions
from shared.rules.empires_end.state import State as GameState
from shared.rules.empires_end.view import view

SIMULTANEOUS_PHASES = ("economy", "industry", "industry_economy")
DISASTER_PHASES = ("disaster", "double_disaster")
_SETUP_CHANCES: tuple[tuple[str, str, bool], ...] = (
    ("locations:order:shuffle", "shuffle", False),  # EEND-2: one arrangement for all
    ("first_player:below", "below", False),  # EEND-1: random first player
    ("deck:disaster:shuffle:0", "shuffle", True),
    ("deck:conflict:shuffle:0", "shuffle", True),
)


class EmpiresEnd(GameBase[GameState, GameOptions, Action]):
    State: ClassVar[type[BaseModel]] = GameState
    Options: ClassVar[type[BaseModel]] = GameOptions
    Actions = ACTION
    acts_enumerated = True  # legal_actions lists every step of every phase (EEND-22)
    name = "empires-end"
    title = "Empire's End"
    rules_version = "1"
    min_seats = 2
    max_seats = 4

    # --- contract ---------------------------------------------------------------------

    def setup(self, options: dict[str, Json], n_seats: int) -> GameState:
        opts = self.parse_options(options)
        if not isinstance(n_seats, int) or not self.min_seats <= n_seats <= self.max_seats:
            raise RuleError(f"Empire's End needs 2-4 seats, got {n_seats!r}")
        stash = Res(**{r: START_RESOURCES for r in ("wheat", "hammer", "axe", "coin")})
        empire = tuple(Location(tile=t) for t in TILE_IDS)
        players = tuple(Player(res=stash, empire=empire) for _ in range(n_seats))
        return GameState(n=n_seats, options=opts, track=track_for(n_seats), players=players)

    def next(self, state: GameState) -> Node:
        if state.phase_index < 0:
            label, draw, secret = _SETUP_CHANCES[state.setup_step]
            n = {0: len(TILE_IDS), 1: state.n, 2: len(CARD_IDS), 3: len(CONFLICT_IDS)}
            return Chance(label=label, draw=draw, n=n[state.setup_step], secret=secret)  # type: ignore[arg-type]
        if state.phase_index >= len(state.track):
            return Terminal()
        if needs_reshuffle(state):  # EEND-19
            return Chance(
                label=f"deck:disaster:shuffle:{state.reshuffles + 1}",
                draw="shuffle",
                n=len(state.discard),
                secret=True,
            )
        if state.phase in DISASTER_PHASES:
            return Turn(seats=(disaster.awaited(state),))
        if state.phase == "conflict":
            return conflict.node(state)
        return Turn(seats=tuple(s for s, w in enumerate(state.work) if w.stage != "done"))

    def legal_actions(self, state: GameState, seat: int) -> Sequence[Json]:
        node = self.next(state)
        if not isinstance(node, Turn) or seat not in node.seats:
            return []
        if state.phase in DISASTER_PHASES:
            return disaster.legal(state, seat)
        w = state.work[seat]
        if w.stage == "choose":
            return [{"type": "choose_order", "first": f} for f in ("economy", "industry")]
        if w.stage == "economy":
            return economy.legal(state, seat)
        return industry.legal(state, seat)

    def default_action(self, state: GameState, seat: int) -> Json:
        legal = self.legal_actions(state, seat)
        if not legal:
            return {"type": "end_turn"}
        if state.phase in DISASTER_PHASES:
            return disaster.default(state, seat)
        stage = state.work[seat].stage
        if stage == "choose":
            return {"type": "choose_order", "first": "economy"}
        if stage == "economy":
            return {"type": "end_economy"}
        return industry.default(state, seat)

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        return conflict.check(slot, choice)

    def view(self, state: GameState, seat: int | None) -> dict[str, Json]:
        return view(state, seat, self.next(state))

    def score(self, state: GameState) -> Outcome:
        return score(state)

    # --- moves (the kit checked the node, the draw, the slots, the seat and the act) ----

    def on_chance(self, state: GameState, node: Chance, values: tuple[int, ...]
                  ) -> Step[GameState]:
        events: list[Event] = []
        return self._advance(self._chance(state, values, events), events), events

    def on_joint(self, state: GameState, node: Simultaneous, move: JointAction
                 ) -> Step[GameState]:
        events: list[Event] = []
        state = self._next_phase(conflict.resolve(state, node, move, events), events)
        return self._advance(state, events), events

    def on_act(self, state: GameState, node: Turn, seat: int, action: Action
               ) -> Step[GameState]:
        events: list[Event] = []
        return self._advance(self._act(state, seat, action, events), events), events

    def start_phase(self, state: GameState, events: list[Event]) -> GameState:
        """Begin the phase after ``state.phase_index`` and run its automatic steps (used by
        the game itself and by ``scenario.goto_phase``)."""
        return self._advance(self._next_phase(state, events), events)

    # --- dispatch -----------------------------------------------------------------------

    def _act(self, state: GameState, seat: int, action: Action, events: list[Event]) -> GameState:
        if state.phase in DISASTER_PHASES:
            return disaster.apply(state, seat, action, events)
        if isinstance(action, ChooseOrder):  # EEND-22: one sub-phase fully before the other
            events.append(event(type="order_chosen", data={"seat": seat, "first": action.first}))
            if action.first == "economy":
                return self._enter(state, seat, "economy", ("industry",), events)
            return self._enter(state, seat, "industry", ("economy",), events)
        if state.work[seat].stage == "economy":
            state, done = economy.apply(state, seat, action, events)
        else:
            state, done = industry.apply(state, seat, action, events)
        return self._finish_sub(state, seat, events) if done else state

    def _enter(
        self,
        state: GameState,
        seat: int,
        sub: SubPhase,
        todo: tuple[SubPhase, ...],
        events: list[Event],
    ) -> GameState:
        if sub == "industry":
            return industry.begin(state, seat, todo)
        state, done = economy.begin(state, seat, todo, events)
        return self._finish_sub(state, seat, events) if done else state

    def _finish_sub(self, state: GameState, seat: int, events: list[Event]) -> GameState:
        w = state.work[seat]
        events.append(event(type="finished", data={"seat": seat, "part": w.stage}))
        if w.todo:
            return self._enter(state, seat, w.todo[0], w.todo[1:], events)
        return state.with_work(seat, SeatWork(stage="done"))

    # --- chance -------------------------------------------------------------------------

    def _chance(self, state: GameState, values: tuple[int, ...], events: list[Event]) -> GameState:
        if state.phase_index >= 0:  # EEND-19: the discard pile becomes the new deck
            deck = tuple(state.discard[i] for i in values)
            events.append(event(type="deck_reshuffled", data={"cards": len(deck)}))
            return state.model_copy(
                update={"deck": deck, "discard": (), "reshuffles": state.reshuffles + 1}
            )
        step = state.setup_step
        if step == 0:
            order = tuple(TILE_IDS[i] for i in values)
            empire = tuple(Location(tile=t) for t in order)
            players = tuple(p.model_copy(update={"empire": empire}) for p in state.players)
            events.append(event(type="locations_arranged", data={"order": list(order)}))
            state = state.model_copy(update={"order": order, "players": players})
            if not state.options.random_first_player:
                events.append(event(type="first_player", data={"seat": 0}))
                return state.model_copy(update={"setup_step": 2, "first": 0})
        elif step == 1:
            events.append(event(type="first_player", data={"seat": values[0]}))
            state = state.model_copy(update={"first": values[0]})
        elif step == 2:
            state = state.model_copy(update={"deck": tuple(CARD_IDS[i] for i in values)})
        else:
            state = state.model_copy(
                update={"conflict_deck": tuple(CONFLICT_IDS[i] for i in values)}
            )
            return self._deal(state, events)
        return state.model_copy(update={"setup_step": step + 1})

    def _deal(self, state: GameState, events: list[Event]) -> GameState:
        deck = state.deck
        players = list(state.players)
        for k in range(state.n):
            seat = (state.first + k) % state.n
            hand, deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
            players[seat] = players[seat].model_copy(update={"hand": hand})
            events.append(
                event(
                    type="hand_dealt", data={"seat": seat, "cards": list(hand)}, visible_to=(seat,)
                )
            )
        events.append(event(type="hands_dealt", data={"cards_each": HAND_SIZE}))
        state = state.model_copy(
            update={"deck": deck, "players": tuple(players), "setup_step": 4, "phase_index": -1}
        )
        return self._next_phase(state, events)

    # --- phase flow ---------------------------------------------------------------------

    def _next_phase(self, state: GameState, events: list[Event]) -> GameState:
        state = state.model_copy(
            update={"phase_index": state.phase_index + 1, "disaster": None, "work": ()}
        )
        if state.phase_index >= len(state.track):
            events.append(event(type="game_over", data={}))
            return state
        kind = state.phase
        events.append(
            event(type="phase_started", data={"number": state.phase_index + 1, "phase": kind})
        )
        if kind in DISASTER_PHASES:
            return disaster.start(state, double=kind == "double_disaster")
        if kind == "conflict":
            if not state.conflict_deck:  # never with 11 cards and 3 conflicts
                return self._next_phase(state, events)
            card = state.conflict_deck[0]
            events.append(event(type="conflict_revealed", data={"card": card}))
            return state.model_copy(
                update={"conflict_card": card, "conflict_deck": state.conflict_deck[1:]}
            )
        state = state.model_copy(
            update={"work": tuple(SeatWork(stage="choose") for _ in state.players)}
        )
        if kind == "industry_economy":
            return state
        for seat in range(state.n):
            state = self._enter(
                state, seat, "economy" if kind == "economy" else "industry", (), events
            )
        return state

    def _advance(self, state: GameState, events: list[Event]) -> GameState:
        """Run every automatic step until a seat, the escrow or the dealer must answer."""
        while 0 <= state.phase_index < len(state.track) and not needs_reshuffle(state):
            kind = state.phase
            if kind in DISASTER_PHASES:
                state, over = disaster.settle(state, events)
                if not over:
                    return state
                state = self._next_phase(state, events)
                continue
            if kind == "conflict":
                return state
            if state.work:
                if any(w.stage != "done" for w in state.work):
                    return state
                queue: tuple[int, ...] = ()
                last = state.phase_index == len(state.track) - 1
                if kind != "economy" and not last:  # after Industry: draw to 4, clockwise
                    queue = tuple((state.first + k) % state.n for k in range(state.n))
                state = state.model_copy(update={"work": (), "draw_queue": queue})
            if state.draw_queue:
                state = _draw(state, events)
                if state.draw_queue:
                    return state
            state = self._next_phase(state, events)
        return state


def _draw(state: GameState, events: list[Event]) -> GameState:
    """Draw for the queued seats until done or until a reshuffle is needed."""
    while state.draw_queue:
        seat = state.draw_queue[0]
        p = state.players[seat]
        if len(p.hand) >= HAND_SIZE:
            state = state.model_copy(update={"draw_queue": state.draw_queue[1:]})
            continue
        if state.deck:
            card = state.deck[0]
            state = state.model_copy(update={"deck": state.deck[1:]})
            state = state.with_player(seat, p.model_copy(update={"hand": (*p.hand, card)}))
            events.append(event(type="card_drawn", data={"seat": seat}))
            events.append(
                event(type="card_drawn", data={"seat": seat, "card": card}, visible_to=(seat,))
            )
            continue
        if state.discard and state.options.reshuffle_discards:
            return state  # EEND-19: next() asks for a reshuffle
        state = state.model_copy(update={"draw_queue": state.draw_queue[1:]})
    return state


def needs_reshuffle(state: GameState) -> bool:
    """A card must be drawn, the deck is empty and the discard pile can be reshuffled."""
    if state.deck or not state.discard or not state.options.reshuffle_discards:
        return False
    if state.phase in DISASTER_PHASES and state.disaster is not None:
        return disaster.pending_reveal(state.disaster) is not None
    if state.draw_queue and not state.work:
        return any(len(state.players[s].hand) < HAND_SIZE for s in state.draw_queue)
    return False
