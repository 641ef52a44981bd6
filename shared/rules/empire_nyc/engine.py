"""The Game class of Empire: The Game of New York: dispatch of nodes and moves."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shared.rules._kit.base import GameBase
from shared.rules._kit.model import event
from shared.rules.api import (
    Chance,
    Event,
    Json,
    Node,
    Outcome,
    Rejection,
    RuleError,
    Terminal,
    Turn,
    reject,
)
from shared.rules.empire_nyc import board, combat, data, turns
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
from shared.rules.empire_nyc.legal import awaited, default_action, legal_actions
from shared.rules.empire_nyc.scoring import score
from shared.rules.empire_nyc.state import NycOptions, NycState
from shared.rules.empire_nyc.view import view

Result = tuple[NycState, list[Event]]
LABEL_FIRST = "setup:first_player"
LABEL_DEAL = "deal:neighborhoods"
LABEL_MISSIONS = "deal:missions"


class EmpireNyc(GameBase[NycState, NycOptions, Action]):
    name = "empire-nyc"
    title = "Empire: The Game of New York"
    rules_version = "2"  # 2: NY-S1 round limit (docs/rulings-server.md)
    legacy_rules = {"1": {"max_rounds": None}}
    legacy_version = "1"
    min_seats = 3  # NY-13
    max_seats = 6
    State = NycState
    Options = NycOptions
    Actions = ACTION

    # ------------------------------------------------------------------ setup and nodes

    def setup(self, options: dict[str, Json], n_seats: int) -> NycState:
        opts = self.parse_options(options)
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
        p = state.phase
        if p == "over":
            return Terminal()
        if p == "first_player":  # NY-1: random first player
            return Chance(label=LABEL_FIRST, draw="below", n=state.n_seats)
        if p == "deal":  # the deal is placed face up on the map: public
            return Chance(label=LABEL_DEAL, draw="shuffle", n=board.N_NB)
        if p == "deal_missions":  # NY-12: secret missions
            return Chance(label=LABEL_MISSIONS, draw="shuffle", n=len(data.MISSIONS), secret=True)
        if p == "shuffle_deck":  # NY-2: the draw pile is hidden
            n = len(board.CARD_IDS) if state.turn == 0 else len(state.discard)
            return Chance(
                label=f"deck:draw:shuffle:{state.deck_shuffles}", draw="shuffle", n=n, secret=True
            )
        if p == "roll":
            label, count = combat.roll_request(state)
            return Chance(label=label, draw="dice", n=6, count=count)
        seat = awaited(state)
        assert seat is not None
        return Turn(seats=(seat,))

    def legal_actions(self, state: NycState, seat: int) -> Sequence[Json]:
        return legal_actions(state, seat)

    def default_action(self, state: NycState, seat: int) -> Json:
        return default_action(state, seat)

    def view(self, state: NycState, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: NycState) -> Outcome:
        return score(state)

    # ------------------------------------------------------------------ moves

    def on_chance(self, state: NycState, node: Chance, values: tuple[int, ...]
                  ) -> Result | Rejection:
        if state.phase == "first_player":
            return self._first_player(state, values[0])
        if state.phase == "deal":
            return self._deal(state, values)
        if state.phase == "deal_missions":
            return self._deal_missions(state, values)
        if state.phase == "shuffle_deck":
            return turns.deck_shuffled(state, values)
        return combat.rolled(state, values)

    def _first_player(self, state: NycState, first: int) -> Result:
        n = state.n_seats
        order = tuple((first + k) % n for k in range(n))
        s = state.model_copy(update={"first_player": first, "order": order, "phase": "deal"})
        return s, [event(type="first_player", data={"seat": first, "order": list(order)})]

    def _deal(self, state: NycState, perm: tuple[int, ...]) -> Result:
        """NY-1: deal from the first player on; the earliest seats get the extra cards."""
        owner = [-1] * board.N_NB
        for k, nb in enumerate(perm):
            owner[nb] = state.order[k % state.n_seats]
        start = data.STARTING_CUBES[state.n_seats]
        to_place = tuple(start - owner.count(s) for s in range(state.n_seats))
        phase = "deal_missions" if state.options.missions else "setup_place"
        s = state.model_copy(
            update={
                "owner": tuple(owner),
                "cubes": (1,) * board.N_NB,
                "to_place": to_place,
                "phase": phase,
                "current": state.first_player,
            }
        )
        owners: dict[str, Json] = {board.NB_IDS[i]: o for i, o in enumerate(owner)}
        return s, [event(type="dealt", data={"owners": owners, "to_place": list(to_place)})]

    def _deal_missions(self, state: NycState, perm: tuple[int, ...]) -> Result:
        missions = tuple(board.MISSION_IDS[perm[s]] for s in range(state.n_seats))
        s = state.model_copy(update={"missions": missions, "phase": "setup_place"})
        events = [event(type="missions_dealt", data={"count": state.n_seats})]
        for seat, m in enumerate(missions):
            d: dict[str, Json] = {
                "seat": seat,
                "mission": m,
                "boroughs": list(board.MISSION_BOROUGHS[m]),
            }
            events.append(event(type="mission", data=d, visible_to=(seat,)))
        return s, events

    def on_act(self, state: NycState, node: Turn, seat: int, action: Action) -> Result | Rejection:
        match (state.phase, action):
            case ("setup_place", Place(nb=nb, n=n)):
                return self._nb(nb, lambda i: turns.setup_place(state, seat, i, n))
            case ("reinforce", Place(nb=nb, n=n)):
                return self._nb(nb, lambda i: turns.reinforce_place(state, seat, i, n))
            case ("reinforce", Trade(cards=cards)):
                if any(c not in board.CARD_PEST for c in cards):
                    return reject("action/malformed", "unknown card id")
                return turns.trade(state, seat, cards)
            case ("attack", Attack(frm=frm, to=to, dice=dice)):
                return self._pair(frm, to, lambda i, j: combat.attack(state, seat, i, j, dice))
            case ("attack", EndAttack()):
                return combat.end_attack(state)
            case ("defend", Defend(dice=dice)):
                return combat.defend(state, seat, dice)
            case ("move_in", MoveInCubes(n=n)):
                return combat.move_in(state, seat, n)
            case ("fortify", Fortify(frm=frm, to=to, n=n)):
                return self._pair(frm, to, lambda i, j: turns.fortify(state, seat, i, j, n))
            case ("fortify", EndTurn()):
                return turns.end_turn(state)
        return reject("action/illegal", f"{action.type!r} is not allowed now ({state.phase})")

    @staticmethod
    def _nb(nb: str, then: Callable[[int], Result | Rejection]) -> Result | Rejection:
        if nb not in board.NB_INDEX:
            return reject("action/malformed", f"no neighborhood {nb!r}")
        return then(board.NB_INDEX[nb])

    @staticmethod
    def _pair(a: str, b: str, then: Callable[[int, int], Result | Rejection]) -> Result | Rejection:
        if a not in board.NB_INDEX or b not in board.NB_INDEX:
            return reject("action/malformed", f"no neighborhood {a!r} or {b!r}")
        return then(board.NB_INDEX[a], board.NB_INDEX[b])
