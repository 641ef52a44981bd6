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

Each move (``play_chance``/``play_joint``/``play_act``) runs the module functions below
(``chance``, ``act``, ``joint``), which change the state in place; the kit's hooks run it on
a clone (``state.py``), and the kit's rollout driver (``_kit.rollout.Rollout``) runs the same
moves on one clone for search playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

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
from shared.rules.empires_end import conflict, disaster, economy, industry, stored
from shared.rules.empires_end.actions import ACTION, Action, ActJson
from shared.rules.empires_end.data import (
    CARD_IDS,
    CONFLICT_IDS,
    HAND_SIZE,
    START_RESOURCES,
    TILE_IDS,
    track_for,
)
from shared.rules.empires_end.scoring import score
from shared.rules.empires_end.state import DONE, Player, Res, SeatWork, SubPhase, location
from shared.rules.empires_end.state import Options as GameOptions
from shared.rules.empires_end.state import State as GameState
from shared.rules.empires_end.view import view

SIMULTANEOUS_PHASES = ("economy", "industry", "industry_economy")
DISASTER_PHASES = ("disaster", "double_disaster")
_SETUP_CHANCES: tuple[tuple[str, Literal["shuffle", "below", "dice"], bool], ...] = (
    ("locations:order:shuffle", "shuffle", False),  # EEND-2: one arrangement for all
    ("first_player:below", "below", False),  # EEND-1: random first player
    ("deck:disaster:shuffle:0", "shuffle", True),
    ("deck:conflict:shuffle:0", "shuffle", True),
)


TERMINAL = Terminal()
_CHOOSING = SeatWork("choose")  # every seat's work as an Industry/Economy phase starts
_SETUP_N = {0: len(TILE_IDS), 2: len(CARD_IDS), 3: len(CONFLICT_IDS)}


class EmpiresEnd(GameBase[GameState, GameOptions, Action]):
    State: ClassVar[type[BaseModel]] = stored.State
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
        empire = tuple([location(t, True, ()) for t in TILE_IDS])
        players = tuple(Player(Res(START_RESOURCES, START_RESOURCES, START_RESOURCES,
                                   START_RESOURCES), 0, empire) for _ in range(n_seats))
        return GameState(n=n_seats, options=opts, track=track_for(n_seats), players=players)

    def next(self, state: GameState) -> Node:
        """What the game awaits (the node machine; the kit's memo calls this for every
        move, so its body is here rather than a call away)."""
        index = state.phase_index
        if index < 0:
            label, draw, secret = _SETUP_CHANCES[state.setup_step]
            n = _SETUP_N.get(state.setup_step, state.n)
            return Chance(label=label, draw=draw, n=n, secret=secret)
        track = state.track
        if index >= len(track):
            return TERMINAL
        if not state.deck and state.discard and needs_reshuffle(state):  # EEND-19
            return Chance(label=f"deck:disaster:shuffle:{state.reshuffles + 1}",
                         draw="shuffle", n=len(state.discard), secret=True)
        phase = track[index]
        if phase == "disaster" or phase == "double_disaster":
            dp = state.disaster  # ``disaster.awaited``, written out
            assert dp is not None
            res = dp.resolution
            return _ALONE[res.seat if res is not None else dp.bidder]
        if phase == "conflict":
            return conflict.node(state)
        seats = []  # the seats not done
        for s, w in enumerate(state.work):
            if w.stage != "done":
                seats.append(s)
        awaiting = tuple(seats)
        got = _TURNS.get(awaiting)  # ``_turn``, its look-up written out
        return got if got is not None else _turn(awaiting)

    def legal_actions(self, state: GameState, seat: int) -> Sequence[Json]:
        """Every legal action of ``seat``, none when not awaited (its body here, as
        ``next``'s)."""
        index = state.phase_index
        track = state.track
        if index < 0 or index >= len(track) or (
                not state.deck and state.discard and needs_reshuffle(state)):
            return []
        phase = track[index]
        if phase == "disaster" or phase == "double_disaster":
            return disaster.legal(state, seat)  # (none for a seat not awaited)
        if phase == "conflict" or not 0 <= seat < len(state.work):
            return []
        stage = state.work[seat].stage
        if stage == "industry":
            return industry.legal(state, seat)
        if stage == "economy":
            return economy.legal(state, seat)
        if stage == "choose":
            return list(_CHOOSE)
        return []  # done

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

    def play_chance(self, new: GameState, node: Chance, values: tuple[int, ...],
                    events: Events) -> None:
        chance(new, values, events)

    def play_joint(self, new: GameState, node: Simultaneous, move: JointAction,
                   events: Events) -> None:
        joint(new, node, move, events)

    def play_act(self, new: GameState, node: Turn, seat: int, action: Action,
                 events: Events) -> None:
        # the rules read an action as its JSON: a model's fields are that dict
        act(new, seat, action.__dict__, events)

    def play_listed(self, new: GameState, seat: int, action: Json, events: Events) -> None:
        assert type(action) is dict  # one of legal_actions' dicts
        # ``act``, and ``_act``'s dispatch, written out (a frame less on every move)
        phase = new.track[new.phase_index]
        if phase == "disaster" or phase == "double_disaster":
            disaster.apply(new, seat, action, events)
        elif action["type"] == "choose_order":
            _act(new, seat, action, events)
        else:
            if new.work[seat].stage == "economy":
                done = economy.apply(new, seat, action, events)
            else:
                done = industry.apply(new, seat, action, events)
            if not done:  # the seat goes on: ``_advance`` would stop at its work at once
                return
            _finish_sub(new, seat, events)
        _advance(new, events)

    def start_phase(self, state: GameState, events: Events) -> GameState:
        """A clone of ``state`` at the beginning of the phase after ``state.phase_index``,
        its automatic steps run (used by ``scenario.goto_phase``)."""
        new = state.clone()
        _next_phase(new, events)
        _advance(new, events)
        return new

    # --- storage ------------------------------------------------------------------------

    def to_stored(self, state: GameState) -> BaseModel:
        return stored.to_stored(state)

    def from_stored(self, data: Any) -> GameState:
        return stored.from_stored(data)


# --- the node machine -------------------------------------------------------------------


# Turns are frozen: one per awaited seats, shared by every state that awaits them.
_TURNS: dict[tuple[int, ...], Turn] = {}


def _turn(seats: tuple[int, ...]) -> Turn:
    got = _TURNS.get(seats)
    if got is None:
        got = _TURNS[seats] = Turn(seats=seats)
    return got


_ALONE = tuple(_turn((seat,)) for seat in range(EmpiresEnd.max_seats))  # seat -> its Turn


def awaited(state: GameState) -> tuple[int, ...]:
    """The seats a ``Turn`` awaits now (none outside a Turn)."""
    index = state.phase_index
    if index < 0 or index >= len(state.track) or needs_reshuffle(state):
        return ()
    phase = state.track[index]
    if phase in DISASTER_PHASES:
        return (disaster.awaited(state),)
    if phase == "conflict":
        return ()
    return tuple([s for s, w in enumerate(state.work) if w.stage != "done"])


_CHOOSE: tuple[Json, ...] = tuple({"type": "choose_order", "first": f}
                                  for f in ("economy", "industry"))


# --- moves (in place, on a clone) -------------------------------------------------------


def chance(state: GameState, values: Sequence[int], events: Events) -> None:
    """A draw answered, then the automatic steps up to the next decision."""
    _chance(state, values, events)
    _advance(state, events)


def joint(state: GameState, nd: Simultaneous, move: JointAction, events: Events) -> None:
    """The conflict's fists revealed, then the next phase up to its first decision."""
    conflict.resolve(state, nd, move, events)
    _next_phase(state, events)
    _advance(state, events)


def act(state: GameState, seat: int, action: ActJson, events: Events) -> None:
    """A seat's legal action (its JSON), then the automatic steps up to the next decision."""
    _act(state, seat, action, events)
    _advance(state, events)


def _act(state: GameState, seat: int, action: ActJson, events: Events) -> None:
    phase = state.track[state.phase_index]
    if phase == "disaster" or phase == "double_disaster":
        disaster.apply(state, seat, action, events)
        return
    if action["type"] == "choose_order":  # EEND-22: one sub-phase fully before the other
        first = action["first"]
        events.add("order_chosen", {"seat": seat, "first": first})
        if first == "economy":
            _enter(state, seat, "economy", ("industry",), events)
        else:
            _enter(state, seat, "industry", ("economy",), events)
        return
    if state.work[seat].stage == "economy":
        done = economy.apply(state, seat, action, events)
    else:
        done = industry.apply(state, seat, action, events)
    if done:
        _finish_sub(state, seat, events)


def _enter(state: GameState, seat: int, sub: SubPhase, todo: tuple[SubPhase, ...],
           events: Events) -> None:
    if sub == "industry":
        industry.begin(state, seat, todo)
    elif economy.begin(state, seat, todo, events):
        _finish_sub(state, seat, events)


def _finish_sub(state: GameState, seat: int, events: Events) -> None:
    w = state.work[seat]
    events.add("finished", {"seat": seat, "part": w.stage})
    if w.todo:
        _enter(state, seat, w.todo[0], w.todo[1:], events)
        return
    items = list(state.work)
    items[seat] = DONE
    state.work = tuple(items)


# --- chance -----------------------------------------------------------------------------


def _chance(state: GameState, values: Sequence[int], events: Events) -> None:
    if state.phase_index >= 0:  # EEND-19: the discard pile becomes the new deck
        discard = state.discard
        state.deck = tuple([discard[i] for i in values])
        events.add("deck_reshuffled", {"cards": len(state.deck)})
        state.discard = ()
        state.reshuffles += 1
        return
    step = state.setup_step
    if step == 0:
        order = tuple([TILE_IDS[i] for i in values])
        empire = tuple([location(t, True, ()) for t in order])
        for seat in range(state.n):
            state.writable(seat).empire = empire
        events.add("locations_arranged", {"order": list(order)})
        state.order = order
        if not state.options.random_first_player:
            events.add("first_player", {"seat": 0})
            state.setup_step, state.first = 2, 0
            return
    elif step == 1:
        events.add("first_player", {"seat": values[0]})
        state.first = values[0]
    elif step == 2:
        state.deck = tuple([CARD_IDS[i] for i in values])
    else:
        state.conflict_deck = tuple([CONFLICT_IDS[i] for i in values])
        _deal(state, events)
        return
    state.setup_step = step + 1


def _deal(state: GameState, events: Events) -> None:
    deck = state.deck
    for k in range(state.n):
        seat = (state.first + k) % state.n
        hand, deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
        state.writable(seat).hand = hand
        events.add("hand_dealt", {"seat": seat, "cards": list(hand)}, (seat,))
    events.add("hands_dealt", {"cards_each": HAND_SIZE})
    state.deck, state.setup_step, state.phase_index = deck, 4, -1
    _next_phase(state, events)


# --- phase flow -------------------------------------------------------------------------


def _next_phase(state: GameState, events: Events) -> None:
    """Begin the phase after ``state.phase_index`` and its automatic first steps."""
    state.phase_index += 1
    state.disaster, state.work = None, ()
    if state.phase_index >= len(state.track):
        events.add("game_over", {})
        return
    kind = state.phase
    events.add("phase_started", {"number": state.phase_index + 1, "phase": kind})
    if kind in DISASTER_PHASES:
        disaster.start(state, double=kind == "double_disaster")
        return
    if kind == "conflict":
        if not state.conflict_deck:  # never with 11 cards and 3 conflicts
            _next_phase(state, events)
            return
        card = state.conflict_deck[0]
        events.add("conflict_revealed", {"card": card})
        state.conflict_card, state.conflict_deck = card, state.conflict_deck[1:]
        return
    state.work = (_CHOOSING,) * len(state.players)
    if kind == "industry_economy":
        return
    for seat in range(state.n):
        _enter(state, seat, "economy" if kind == "economy" else "industry", (), events)


def _advance(state: GameState, events: Events) -> None:
    """Run every automatic step until a seat, the escrow or the dealer must answer."""
    track = state.track
    while True:
        index = state.phase_index
        if not 0 <= index < len(track) or (
                not state.deck and state.discard and needs_reshuffle(state)):
            return
        kind = track[index]
        if kind == "disaster" or kind == "double_disaster":
            if not disaster.settle(state, events):
                return
            _next_phase(state, events)
            continue
        if kind == "conflict":
            return
        if state.work:
            for w in state.work:
                if w.stage != "done":
                    return
            queue: tuple[int, ...] = ()
            last = index == len(track) - 1
            if kind != "economy" and not last:  # after Industry: draw to 4, clockwise
                queue = tuple([(state.first + k) % state.n for k in range(state.n)])
            state.work, state.draw_queue = (), queue
        if state.draw_queue:
            _draw(state, events)
            if state.draw_queue:
                return
        _next_phase(state, events)


def _draw(state: GameState, events: Events) -> None:
    """Draw for the queued seats until done or until a reshuffle is needed."""
    while state.draw_queue:
        seat = state.draw_queue[0]
        p = state.players[seat]
        if len(p.hand) >= HAND_SIZE:
            state.draw_queue = state.draw_queue[1:]
            continue
        if state.deck:
            card = state.deck[0]
            state.deck = state.deck[1:]
            p = state.writable(seat)
            p.hand = (*p.hand, card)
            events.add("card_drawn", {"seat": seat})
            events.add("card_drawn", {"seat": seat, "card": card}, (seat,))
            continue
        if state.discard and state.options.reshuffle_discards:
            return  # EEND-19: next() asks for a reshuffle
        state.draw_queue = state.draw_queue[1:]


def needs_reshuffle(state: GameState) -> bool:
    """A card must be drawn, the deck is empty and the discard pile can be reshuffled."""
    if state.deck or not state.discard or not state.options.reshuffle_discards:
        return False
    if state.phase in DISASTER_PHASES and state.disaster is not None:
        return disaster.pending_reveal(state.disaster) is not None
    if state.draw_queue and not state.work:
        return any(len(state.players[s].hand) < HAND_SIZE for s in state.draw_queue)
    return False
