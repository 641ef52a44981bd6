"""The Game: Empire The Card Game with match play.

One state holds a whole match: hand after hand until an Emperor Overlord (CG-19) or the
``max_hands`` cap. Nodes:
  Chance  "hand:<h>:dealer" (below n; CG-3), "hand:<h>:deal" (secret shuffle),
          "hand:<h>:grab" (below 7, the perfect-deal bonus when enabled; CG-2, CG-S4),
          "hand:<h>:rebuild:<k>" (secret shuffle of the discard piles, CG-18),
          "hand:<h>:turn:<t>:mass_steal:<seat>" (secret index into a hand, CG-17);
  Turn    everything else, one awaited seat except the 3rd-set tribute (every payer).
  Simultaneous "hand:<h>:rps:<k>" (rock-paper-scissors for the dealer, when the table chose
          it; CG-3, CG-S3).
The secret exchanges (trade CG-5, mass trade CG-17) are sequential Turns whose card events are
visible to the two players only.

Each move (``play_chance``/``play_joint``/``play_act``) lets the rule modules change the state
in place; the kit's hooks run it on a clone (``state.py``), and the kit's rollout driver
(``_kit.rollout.Rollout``) runs the same moves on one clone for search playouts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace as _Namespace
from typing import Any, ClassVar, get_args

from pydantic import BaseModel

from shared.rules._kit.base import GameBase
from shared.rules._kit.model import Events
from shared.rules.api import (
    Chance,
    Event,
    JointAction,
    Json,
    Node,
    Outcome,
    Rejection,
    RuleError,
    SealedSlot,
    Simultaneous,
    Terminal,
    Turn,
    reject,
)
from shared.rules.empire_cards import interact, spells, stored, turn
from shared.rules.empire_cards import state as st
from shared.rules.empire_cards.actions import (
    ACTION,
    Action,
    Army,
    Barbarian,
    BattleDeclare,
    BattleGive,
    BattleSet,
    CastSpell,
    Destroy,
    Disband,
    Discard,
    Draw,
    Empire,
    Gift,
    GiftSkip,
    Pass,
    Plunder,
    SabotageNone,
    SabotageSkip,
    SabotageTake,
    Serf,
    SpellGive,
    SpellPick,
    SpellTake,
    SpellTrade,
    Steal,
    TradeOffer,
    TradeReply,
    Tribute,
)
from shared.rules.empire_cards.data import PACKS_BY_SEATS
from shared.rules.empire_cards.legal import awaited, default_action, legal_actions, play_actions
from shared.rules.empire_cards.match import (
    RPS_ROUNDS,
    SHAPES,
    apply_reward,
    choose_dealer,
    deal,
    grab,
    new_match,
    play_rps,
    rps_default,
    rps_seats,
)
from shared.rules.empire_cards.ops import holdings, rebuild_deck, rebuild_pool, runout_refill
from shared.rules.empire_cards.scoring import score
from shared.rules.empire_cards.view import view

# Which action types each phase accepts (anything else: "action/illegal").
_PHASE_ACTIONS: dict[str, tuple[type, ...]] = {
    "play": (Draw, Steal, TradeOffer, BattleDeclare, Army, Empire, Barbarian, Serf, Discard,
             Disband, Pass, CastSpell),
    "trade_reply": (TradeReply,),
    "battle_attack": (BattleSet,),
    "battle_defend": (BattleSet,),
    "battle_give": (BattleGive,),
    "tribute": (Tribute,),
    "gift": (Gift, GiftSkip),
    "sabotage": (SabotageSkip, SabotageTake, SabotageNone),
    "spell": (SpellTake, SpellPick, SpellTrade, SpellGive),
    "reward": (Plunder, Destroy),
}  # fmt: skip


class EmpireCardsGame(GameBase[st.State, st.Options, Action]):
    name = "empire-cards"
    title = "Empire The Card Game"
    rules_version = "2"  # 2: CG-S1/CG-S2 default limits (docs/rulings-server.md)
    # version 1 had no hand limit and no match limit by default (CG-S1, CG-S2 came with 2)
    legacy_rules = {"1": {"max_hands": None, "max_rounds_per_hand": None}}
    legacy_version = "1"
    min_seats = 3
    max_seats = 6
    State: ClassVar[type[BaseModel]] = stored.State
    Options: ClassVar[type[BaseModel]] = st.Options
    Actions = ACTION

    # ------------------------------------------------------------------ contract

    def setup(self, options: dict[str, Json], n_seats: int) -> st.State:
        if n_seats not in PACKS_BY_SEATS:
            raise RuleError(f"Empire The Card Game needs 3-6 players, not {n_seats}")
        opts: st.Options = self.parse_options(options)
        return new_match(opts, n_seats)

    def next(self, state: st.State) -> Node:
        if state.phase == "play" and not state.owed:  # ``node``'s common case, without its call
            return _TURNS[state.active]
        return node(state)

    def legal_actions(self, state: st.State, seat: int) -> Sequence[Json]:
        # ``node`` is a Turn exactly when a seat is ``awaited`` (which ``legal_actions``
        # asks) and no rebuild draw is owed (CG-18)
        if state.owed:
            return []
        if state.phase == "play":  # the common case: ``legal.legal_actions`` asks the same
            return play_actions(state) if seat == state.active else []
        return legal_actions(state, seat)

    def default_action(self, state: st.State, seat: int) -> Json:
        return default_action(state, seat)

    def view(self, state: st.State, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: st.State) -> Outcome:
        return score(state)

    # ------------------------------------------------------------------ moves

    def play_chance(self, state: st.State, pending: Chance, values: tuple[int, ...],
                    events: Events) -> None:
        before = holdings(state)
        chance(state, values, events)
        _refill(before, state, events)

    def play_joint(self, state: st.State, pending: Simultaneous, move: JointAction,
                   events: Events) -> None:
        """CG-S3: a rock-paper-scissors round for the dealer (the kit checked the round, the
        slots and that every shape is allowed)."""
        before = holdings(state)
        play_rps(state, {s.seat: str(move.choices[s.key]) for s in pending.slots}, events)
        _refill(before, state, events)

    def play_act(self, state: st.State, pending: Turn, seat: int, action: Action,
                 events: Events) -> Rejection | None:
        before = holdings(state)
        refused = act(state, seat, action, events)
        if refused is None:
            _refill(before, state, events)
        return refused

    def play_listed(self, state: st.State, seat: int, action: Json, events: Events
                    ) -> Rejection | None:
        """An act that is the very dict ``legal_actions`` listed (the kit has checked the
        seat and that it is legal), played without its action model: the moves that read
        only an action's fields get them from a namespace of the dict (its cards as a tuple,
        as the model holds them), unchecked where a check costs more than a lookup
        (``_UNCHECKED``); the few that tell actions apart by model type get the model."""
        raw: dict[str, Json] = action  # type: ignore[assignment]  # one of the listed dicts
        # the players before the move, for ``ops.holdings`` when a hand ends empty: the kit's
        # fresh clone owns none of them, so the move changes copies (``State.writable``)
        assert not state.owned
        hand_no, players = state.hand_no, state.players
        known = _KNOWN.get(id(raw))  # ``_listed``'s memo, read here: every move asks it
        fields, move, with_seat = known[1] if known is not None and known[0] is raw \
            else _listed(raw)
        if move is None:
            refused = act(state, seat, ACTION.validate_python(raw), events)
        else:
            refused = move(state, seat, fields, events) if with_seat else move(
                state, fields, events)
        if refused is None:
            # CG-12: a hand may have run out, only one the move wrote (``State.owned``): the
            # other players are the very objects of before the move, holding what they held
            # (a new hand's players are new, and ``runout_refill`` skips a new hand)
            after = state.players
            for t in _SEATS_OF[state.owned]:
                if not after[t].hand:
                    runout_refill((hand_no, tuple([bool(q.hand) for q in players])), state,
                                  events)
                    break
        return refused

    def on_act(self, state: st.State, node: Turn, seat: int, action: Action
               ) -> tuple[st.State, list[Event]] | Rejection:
        """``play_act`` on a clone, the holdings before the move read from ``state`` itself
        only when the move leaves a hand empty (seldom)."""
        new, events = state.clone(), Events()
        refused = act(new, seat, action, events)
        if refused is not None:
            return refused
        _refill(state, new, events)
        return new, events.out

    # ------------------------------------------------------------------ storage

    def to_stored(self, state: st.State) -> BaseModel:
        return stored.to_stored(state)

    def from_stored(self, data: Any) -> st.State:
        return stored.from_stored(data)


def _refill(before: tuple[int, tuple[bool, ...]] | st.State, after: st.State, events: Events
            ) -> None:
    """CG-12 run out of cards (``ops.runout_refill``), asked only when a hand is empty.
    ``before``: ``ops.holdings`` of the state before the move, or that state itself, unchanged
    (a move played on a clone), its holdings then read only when needed."""
    if _all_hold(after.players):  # the common case
        return
    for p in after.players:
        if not p.hand:
            if isinstance(before, st.State):
                before = holdings(before)
            runout_refill(before, after, events)
            return


def _all_hold(players: tuple[st.Player, ...]) -> bool:
    """Every player holds cards (a loop: cheaper than ``all`` over a ``map`` for a table)."""
    for p in players:  # noqa: SIM110
        if not p.hand:
            return False
    return True


# a mask of seats (``State.owned``) -> its seats, for every mask of a table
_SEATS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(max(PACKS_BY_SEATS)) if mask >> t & 1)
    for mask in range(1 << max(PACKS_BY_SEATS)))

# id of a listed action dict -> (that dict, its fields as ``play_listed`` reads them, its
# move and whether that takes the acting seat; no move: played through its model): the legal
# lists share their action dicts from state to state (``acts``), and nobody changes one, so
# what is made once serves every move that picks it; emptied at ``_LISTED_MAX`` entries
# (bounded), and each entry holds its dict, so an id there names that very dict
_Listed = tuple[_Namespace | None, Callable[..., Rejection | None] | None, bool]
_KNOWN: dict[int, tuple[Json, _Listed]] = {}
_LISTED_MAX = 4096


def _listed(action: dict[str, Json]) -> _Listed:
    """A listed action's fields as a namespace (its cards as a tuple, as the model holds
    them; read-only like the dict) and its move (``_LISTED``)."""
    known = _KNOWN.get(id(action))
    if known is not None and known[0] is action:
        return known[1]
    move = _LISTED.get(action["type"])
    if move is None:
        found: _Listed = (None, None, False)
    else:
        fields = _Namespace(**action)
        if "cards" in action:
            fields.cards = tuple(fields.cards)
        found = (fields, *move)
    if len(_KNOWN) >= _LISTED_MAX:
        _KNOWN.clear()
    _KNOWN[id(action)] = (action, found)
    return found


def act(state: st.State, seat: int, action: Action, events: Events) -> Rejection | None:
    """Play ``action`` of ``seat`` on ``state`` (in place) without the CG-12 refill."""
    kinds = _PHASE_ACTIONS.get(state.phase, ())
    # an exact type first: isinstance on pydantic models walks the ABC machinery
    if type(action) not in kinds and not isinstance(action, kinds):
        return reject("action/illegal", f"{action.type!r} is not allowed in {state.phase}")
    move = _MOVES.get(type(action))
    if move is None:  # a subclass of an action model: its nearest listed base's move
        move = next((_MOVES[base] for base in type(action).__mro__ if base in _MOVES), None)
        if move is None:
            return reject("action/malformed", "unknown action")
    if move[1]:
        return move[0](state, seat, action, events)  # type: ignore[no-any-return]
    return move[0](state, action, events)  # type: ignore[no-any-return]


def node(state: st.State) -> Node:
    """The pending node of ``state`` (``GAME.next``, which remembers its last answer)."""
    phase = state.phase
    if phase == "play" and not state.owed:  # the common case first
        return _TURNS[state.active]
    if phase == "over":
        return TERMINAL
    if state.owed:  # CG-18: rebuild the deck from the discard piles
        n = len(rebuild_pool(state))
        label = f"hand:{state.hand_no}:rebuild:{state.rebuilds}"
        return Chance(label=label, draw="shuffle", n=n, secret=True)
    if state.phase == "dealer":  # CG-3
        seats = rps_seats(state)
        if state.options.first_dealer == "rps" and state.rps_round < RPS_ROUNDS:  # CG-S3
            k = state.rps_round + 1
            return Simultaneous(
                round_id=f"hand:{state.hand_no}:rps:{k}",
                slots=tuple(SealedSlot(seat=s, key=f"s{s}", allowed=SHAPES,
                                       default=rps_default(s, k),
                                       context={"rps_round": k, "seats": list(seats)})
                            for s in seats))
        return Chance(label=f"hand:{state.hand_no}:dealer", draw="below", n=len(seats))
    if state.phase == "grab":  # CG-2, CG-S4
        return Chance(label=f"hand:{state.hand_no}:grab", draw="below", n=7)
    if state.phase == "shuffle":
        n = len(state.deck)
        return Chance(label=f"hand:{state.hand_no}:deal", draw="shuffle", n=n, secret=True)
    spell = state.spell
    if state.phase == "spell" and spell is not None and spell.stage == "hand":
        assert spell.target is not None
        size = len(state.players[spell.target].hand)
        return Chance(label=spells.steal_label(state), draw="below", n=size, secret=True)
    seats = awaited(state)
    return _TURNS[seats[0]] if len(seats) == 1 else Turn(seats=seats)


TERMINAL = Terminal()
_TURNS = tuple(Turn(seats=(seat,)) for seat in range(max(PACKS_BY_SEATS)))  # one seat's turn


def chance(state: st.State, values: tuple[int, ...], events: Events) -> None:
    """The pending draw's values (in place): the rebuild, the dealer, the grab, the deal or a
    mass steal's card."""
    if state.owed:
        rebuild_deck(state, values, events)
    elif state.phase == "dealer":
        choose_dealer(state, rps_seats(state)[values[0]], events)
    elif state.phase == "grab":
        grab(state, values[0], events)
    elif state.phase == "shuffle":
        deal(state, values, events)
    else:
        spells.resolve_steal(state, values[0], events)


# action type -> its move and whether the move takes the acting seat (``act`` looks it up by
# exact type, one dict lookup)
_MOVES: dict[type, tuple[Callable[..., Rejection | None], bool]] = {
    Draw: (turn.do_draw, False),
    Army: (turn.do_army, False),
    Discard: (turn.do_discard, False),
    Disband: (turn.do_discard, False),
    Pass: (turn.do_discard, False),
    BattleDeclare: (interact.do_battle, False),
    BattleSet: (interact.do_battle_set, True),
    TradeOffer: (interact.do_trade, False),
    TradeReply: (interact.do_trade_reply, False),
    Steal: (turn.do_steal, False),
    SabotageSkip: (turn.do_sabotage, False),
    SabotageTake: (turn.do_sabotage, False),
    SabotageNone: (turn.do_sabotage, False),
    Empire: (turn.do_empire, False),
    BattleGive: (interact.do_battle_give, False),
    Barbarian: (turn.do_special, False),
    Serf: (turn.do_special, False),
    Tribute: (turn.do_tribute, True),
    Gift: (turn.do_gift, False),
    GiftSkip: (turn.do_gift, False),
    CastSpell: (spells.do_cast, False),
    SpellTake: (spells.do_spell_step, False),
    SpellPick: (spells.do_spell_step, False),
    SpellTrade: (spells.do_spell_step, False),
    SpellGive: (spells.do_spell_give, True),
    Plunder: (apply_reward, False),
    Destroy: (apply_reward, False),
}


def _tag(model: type[BaseModel]) -> str:
    """The ``"type"`` an action model's JSON carries (its ``Literal``)."""
    tag: str = get_args(model.model_fields["type"].annotation)[0]
    return tag


# an action's tag -> its move, for the moves that read only the action's fields
# (``play_listed``); the others (``isinstance`` on the model, ``model_dump``) are not listed.
# A listed act is legal, so the moves that check more than a lookup play it unchecked.
_BY_MODEL = (SpellTake, SpellPick, SpellTrade, Plunder, Destroy)
_UNCHECKED: dict[type, Callable[..., Rejection | None]] = {
    Army: turn.build_army, Steal: turn.steal, TradeOffer: interact.offer_trade,
    BattleDeclare: interact.declare_battle}
_LISTED: dict[Json, tuple[Callable[..., Rejection | None], bool]] = {
    _tag(model): (_UNCHECKED.get(model, move[0]), move[1])
    for model, move in _MOVES.items() if model not in _BY_MODEL}
