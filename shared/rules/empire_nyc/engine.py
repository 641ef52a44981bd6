"""The Game class of Empire: The Game of New York: dispatch of nodes and moves.

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
    Json,
    Node,
    Outcome,
    Rejection,
    RuleError,
    Terminal,
    Transition,
    Turn,
    reject,
)
from shared.rules.empire_nyc import board, combat, data, stored, turns
from shared.rules.empire_nyc.actions import (
    ACTION,
    Action,
    Attack,
    Defend,
    EndAttack,
    EndTurn,
    Fortify,
    MoveInCubes,
    Place,
    Trade,
)
from shared.rules.empire_nyc.combat import roll_node
from shared.rules.empire_nyc.legal import TURN_PHASES, attacks, default_action, legal_actions
from shared.rules.empire_nyc.scoring import score
from shared.rules.empire_nyc.state import NycOptions, NycState
from shared.rules.empire_nyc.view import view

LABEL_FIRST = "setup:first_player"
LABEL_DEAL = "deal:neighborhoods"
LABEL_MISSIONS = "deal:missions"
MAX_SEATS = 6
TERMINAL = Terminal()
TURNS = tuple(Turn(seats=(seat,)) for seat in range(MAX_SEATS))
NB_INDEX = board.NB_INDEX

# ``Transition(state, events)`` through its slots, as the kit's template builds it
_new = object.__new__
_set_state, _set_events = (getattr(Transition, f).__set__ for f in ("state", "events"))


# ------------------------------------------------------------------ the chance moves


def first_player(state: NycState, first: int, events: Events) -> None:
    seldom = state.own_seldom()
    n = seldom.n_seats
    seldom.first_player = first
    seldom.order = tuple((first + k) % n for k in range(n))
    state.phase = "deal"
    events.add("first_player", {"seat": first, "order": list(seldom.order)})


def deal(state: NycState, perm: Sequence[int], events: Events) -> None:
    """NY-1: deal from the first player on; the earliest seats get the extra cards."""
    seldom = state.own_seldom()
    n, order = seldom.n_seats, seldom.order
    owner = [-1] * board.N_NB
    for k, nb in enumerate(perm):
        owner[nb] = order[k % n]
    start = data.STARTING_CUBES[n]
    state.owner = tuple(owner)
    state.cubes = (1,) * board.N_NB
    seldom.to_place = tuple(start - owner.count(s) for s in range(n))
    state.phase = "deal_missions" if seldom.options.missions else "setup_place"
    state.current = seldom.first_player
    owners: dict[str, Json] = {board.NB_IDS[i]: o for i, o in enumerate(owner)}
    events.add("dealt", {"owners": owners, "to_place": list(seldom.to_place)})


def deal_missions(state: NycState, perm: Sequence[int], events: Events) -> None:
    seldom = state.own_seldom()
    seldom.missions = tuple(board.MISSION_IDS[perm[s]] for s in range(seldom.n_seats))
    state.phase = "setup_place"
    events.add("missions_dealt", {"count": seldom.n_seats})
    for seat, m in enumerate(seldom.missions):
        events.add("mission", {"seat": seat, "mission": m,
                               "boroughs": list(board.MISSION_BOROUGHS[m])}, (seat,))


def chance(state: NycState, values: tuple[int, ...], events: Events) -> None:
    """The answer to the pending Chance node (in place)."""
    phase = state.phase
    if phase == "roll":
        combat.rolled(state, values, events)
    elif phase == "shuffle_deck":
        turns.deck_shuffled(state, values, events)
    elif phase == "first_player":
        first_player(state, values[0], events)
    elif phase == "deal":
        deal(state, values, events)
    else:
        deal_missions(state, values, events)


# ------------------------------------------------------------------ the seats' moves


def _nb(nb: str) -> int | Rejection:
    i = board.NB_INDEX.get(nb)
    return reject("action/malformed", f"no neighborhood {nb!r}") if i is None else i


def _pair(a: str, b: str) -> tuple[int, int] | Rejection:
    i, j = board.NB_INDEX.get(a), board.NB_INDEX.get(b)
    if i is None or j is None:
        return reject("action/malformed", f"no neighborhood {a!r} or {b!r}")
    return i, j


def act(state: NycState, seat: int, action: Action, events: Events) -> Rejection | None:
    """A seat's action in the current phase (in place); a Rejection changes nothing."""
    phase = state.phase
    if phase == "attack":
        if isinstance(action, Attack):
            pair = _pair(action.frm, action.to)
            if isinstance(pair, Rejection):
                return pair
            return combat.attack(state, seat, pair[0], pair[1], action.dice, events)
        if isinstance(action, EndAttack):
            combat.end_attack(state, events)
            return None
    elif phase == "reinforce" or phase == "setup_place":
        if isinstance(action, Place):
            i = _nb(action.nb)
            if isinstance(i, Rejection):
                return i
            if phase == "setup_place":
                return turns.setup_place(state, seat, i, action.n, events)
            return turns.reinforce_place(state, seat, i, action.n, events)
        if isinstance(action, Trade) and phase == "reinforce":
            if any(c not in board.CARD_PEST for c in action.cards):
                return reject("action/malformed", "unknown card id")
            return turns.trade(state, seat, action.cards, events)
    elif phase == "defend":
        if isinstance(action, Defend):
            return combat.defend(state, seat, action.dice, events)
    elif phase == "move_in":
        if isinstance(action, MoveInCubes):
            return combat.move_in(state, seat, action.n, events)
    elif phase == "fortify":
        if isinstance(action, Fortify):
            pair = _pair(action.frm, action.to)
            if isinstance(pair, Rejection):
                return pair
            return turns.fortify(state, seat, pair[0], pair[1], action.n, events)
        if isinstance(action, EndTurn):
            turns.end_turn(state, events)
            return None
    return reject("action/illegal", f"{action.type!r} is not allowed now ({phase})")


class EmpireNyc(GameBase[NycState, NycOptions, Action]):
    name = "empire-nyc"
    title = "Empire: The Game of New York"
    rules_version = "2"  # 2: NY-S1 round limit (docs/rulings-server.md)
    legacy_rules = {"1": {"max_rounds": None}}
    legacy_version = "1"
    min_seats = 3  # NY-13
    max_seats = MAX_SEATS
    State: ClassVar[type[BaseModel]] = stored.NycState
    Options: ClassVar[type[BaseModel]] = NycOptions
    Actions = ACTION

    # ------------------------------------------------------------------ setup and nodes

    def setup(self, options: dict[str, Json], n_seats: int) -> NycState:
        opts: NycOptions = self.parse_options(options)
        if not self.min_seats <= n_seats <= self.max_seats:
            raise RuleError(f"empire-nyc is for 3 to 6 players, not {n_seats} (NY-13)")
        return NycState(
            n_seats=n_seats,
            options=opts,
            phase="first_player",
            owner=(-1,) * board.N_NB,
            cubes=(0,) * board.N_NB,
            to_place=(0,) * n_seats,
            hands=((),) * n_seats,
        )

    def next(self, state: NycState) -> Node:
        """What the state waits for (the kit's memo wraps it; a rollout asks this function
        itself, as it changes one state in place)."""
        p = state.phase
        if p == "roll":  # the instigator's dice first, then the defender's
            b = state.battle
            assert b is not None and b.def_dice is not None
            if b.inst_roll is None:
                return roll_node(state.turn, state.attacks, "instigator", b.dice)
            return roll_node(state.turn, state.attacks, "defender", b.def_dice)
        if p in TURN_PHASES:
            return TURNS[state.current]
        if p == "defend":
            assert state.battle is not None
            return TURNS[state.battle.defender]
        if p == "over":
            return TERMINAL
        if p == "first_player":  # NY-1: random first player
            return Chance(label=LABEL_FIRST, draw="below", n=state.seldom.n_seats)
        if p == "deal":  # the deal is placed face up on the map: public
            return Chance(label=LABEL_DEAL, draw="shuffle", n=board.N_NB)
        if p == "deal_missions":  # NY-12: secret missions
            return Chance(label=LABEL_MISSIONS, draw="shuffle", n=len(data.MISSIONS), secret=True)
        # "shuffle_deck", NY-2: the draw pile is hidden
        seldom = state.seldom
        n = len(board.CARD_IDS) if state.turn == 0 else len(seldom.discard)
        return Chance(label=f"deck:draw:shuffle:{seldom.deck_shuffles}",
                      draw="shuffle", n=n, secret=True)

    def legal_actions(self, state: NycState, seat: int) -> Sequence[Json]:
        if state.phase == "attack" and state.current == seat:  # (most lists: no second call)
            return attacks(state, seat)
        return legal_actions(state, seat)

    def default_action(self, state: NycState, seat: int) -> Json:
        return default_action(state, seat)

    def view(self, state: NycState, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: NycState) -> Outcome:
        return score(state)

    # ------------------------------------------------------------------ moves

    def play_listed(self, state: NycState, seat: int, action: Json, events: Events
                    ) -> Rejection | None:
        """``act`` of an action ``legal_actions`` listed for this state and seat (its JSON,
        read without building the action model): a listed action is well formed, fits the
        phase and is legal, so it goes straight to the move past ``act``'s checks."""
        raw: dict[str, Any] = action  # type: ignore[assignment]  # one of the listed dicts
        t = raw["type"]
        if t == "attack":
            combat.declare(state, seat, NB_INDEX[raw["from"]], NB_INDEX[raw["to"]],
                           raw["dice"], events)
        elif t == "place":
            if state.phase == "setup_place":
                turns.setup_placed(state, seat, NB_INDEX[raw["nb"]], events)
            else:
                turns.placed(state, seat, NB_INDEX[raw["nb"]], raw["n"], events)
        elif t == "defend":
            assert state.battle is not None
            combat.defended(state, seat, state.battle, raw["dice"], events)
        elif t == "end_attack":
            combat.end_attack(state, events)
        elif t == "move_in":
            assert state.move_in is not None
            combat.moved_in(state, seat, state.move_in, raw["n"], events)
        elif t == "fortify":
            turns.fortified(state, seat, NB_INDEX[raw["from"]], NB_INDEX[raw["to"]],
                            raw["n"], events)
        elif t == "end_turn":
            turns.end_turn(state, events)
        else:  # "trade"
            a, b, c = raw["cards"]
            turns.traded(state, seat, (a, b, c), events)
        return None

    def play_chance(self, new: NycState, node: Chance, values: tuple[int, ...],
                    events: Events) -> None:
        if new.phase == "roll":  # (most draws: ``chance`` and ``rolled`` without their calls)
            b = new.battle
            assert b is not None
            if b.inst_roll is None:
                combat.instigator_rolled(new, b, values, events)
            else:
                combat.resolve(new, b, b.inst_roll, values, events)
        else:
            chance(new, values, events)

    def play_act(self, new: NycState, node: Turn, seat: int, action: Action, events: Events
                 ) -> Rejection | None:
        return act(new, seat, action, events)

    # ------------------------------------------------------------------ storage

    def to_stored(self, state: NycState) -> BaseModel:
        return stored.to_stored(state)

    def from_stored(self, data: Any) -> NycState:
        return stored.from_stored(data)

