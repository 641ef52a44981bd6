"""The Game: Empire The Card Game with match play (issue 7).

One state holds a whole match: hand after hand until an Emperor Overlord (CG-19) or the
``max_hands`` cap. Nodes:
  Chance  "hand:<h>:dealer" (below n; CG-3), "hand:<h>:deal" (secret shuffle),
          "hand:<h>:rebuild:<k>" (secret shuffle of the discard piles, CG-18),
          "hand:<h>:turn:<t>:mass_steal:<seat>" (secret index into a hand, CG-17);
  Turn    everything else, one awaited seat except the 3rd-set tribute (every payer).
There are no Simultaneous rounds: the secret exchanges (trade CG-5, mass trade CG-17) are
sequential Turns whose card events are visible to the two players only.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from shared.rules._kit.base import GameBase
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Json,
    Move,
    Node,
    Outcome,
    Rejection,
    RuleError,
    Terminal,
    Transition,
    Turn,
    reject,
)
from shared.rules.empire_cards import interact, spells, turn
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
from shared.rules.empire_cards.legal import awaited, default_action, legal_actions
from shared.rules.empire_cards.match import apply_reward, choose_dealer, deal, new_match
from shared.rules.empire_cards.ops import Events, rebuild_deck, rebuild_pool, runout_refill
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


class EmpireCardsGame(GameBase[st.State, st.Options]):
    name = "empire-cards"
    title = "Empire The Card Game"
    rules_version = "1"
    min_seats = 3
    max_seats = 6
    State = st.State
    Options = st.Options

    # ------------------------------------------------------------------ contract

    def setup(self, options: dict[str, Json], n_seats: int) -> st.State:
        if n_seats not in PACKS_BY_SEATS:
            raise RuleError(f"Empire The Card Game needs 3-6 players, not {n_seats}")
        return new_match(self.parse_options(options), n_seats)

    def next(self, state: st.State) -> Node:
        if state.phase == "over":
            return Terminal()
        if state.owed:  # CG-18: rebuild the deck from the discard piles
            n = len(rebuild_pool(state))
            label = f"hand:{state.hand_no}:rebuild:{state.rebuilds}"
            return Chance(label=label, draw="shuffle", n=n, secret=True)
        if state.phase == "dealer":  # CG-3
            return Chance(label=f"hand:{state.hand_no}:dealer", draw="below", n=state.n_seats)
        if state.phase == "shuffle":
            n = len(state.deck)
            return Chance(label=f"hand:{state.hand_no}:deal", draw="shuffle", n=n, secret=True)
        spell = state.spell
        if state.phase == "spell" and spell is not None and spell.stage == "hand":
            assert spell.target is not None
            size = len(state.players[spell.target].hand)
            return Chance(label=spells.steal_label(state), draw="below", n=size, secret=True)
        return Turn(seats=awaited(state))

    def legal_actions(self, state: st.State, seat: int) -> Sequence[Json]:
        if isinstance(self.next(state), Turn):
            return legal_actions(state, seat)
        return []

    def default_action(self, state: st.State, seat: int) -> Json:
        return default_action(state, seat)

    def view(self, state: st.State, seat: int | None) -> dict[str, Json]:
        return view(state, seat)

    def score(self, state: st.State) -> Outcome:
        return score(state)

    def apply(self, state: st.State, move: Move) -> Transition | Rejection:
        node = self.next(state)
        events: Events = []
        result: st.State | Rejection
        if isinstance(move, ChanceOutcome):
            result = self._chance(state, node, move, events)
        elif isinstance(move, JointAction):  # this game has no sealed rounds
            return reject("action/wrong_phase", "no simultaneous round is pending")
        elif isinstance(move, Act):
            result = self._act(state, node, move, events)
        else:  # pragma: no cover - the Move union is closed
            return reject("action/malformed", "unknown move kind")
        if isinstance(result, Rejection):
            return result
        result = runout_refill(state, result, events)  # CG-12 run out of cards
        return Transition(state=result, events=tuple(events))

    # ------------------------------------------------------------------ moves

    def _chance(
        self, state: st.State, node: Node, move: ChanceOutcome, events: Events
    ) -> st.State | Rejection:
        if not isinstance(node, Chance):
            return reject("action/wrong_phase", "no chance draw is pending")
        if move.label != node.label:
            return reject("action/unknown_round", f"pending draw is {node.label}")
        values = move.values
        if node.draw == "shuffle":
            if sorted(values) != list(range(node.n)):
                return reject("action/malformed", f"expected a permutation of range({node.n})")
        elif len(values) != node.count or not all(0 <= v < node.n for v in values):
            return reject("action/malformed", f"expected {node.count} value(s) below {node.n}")
        if state.owed:
            return rebuild_deck(state, values, events)
        if state.phase == "dealer":
            return choose_dealer(state, values[0], events)
        if state.phase == "shuffle":
            return deal(state, values, events)
        return spells.resolve_steal(state, values[0], events)

    def _act(self, state: st.State, node: Node, move: Act, events: Events) -> st.State | Rejection:
        if not isinstance(node, Turn):
            return reject("action/wrong_phase", f"the game awaits a {node.kind}, not an action")
        if move.seat not in node.seats:
            return reject("action/not_your_turn", f"seat {move.seat} may not act now")
        try:
            action = ACTION.validate_python(move.action)
        except ValidationError as exc:
            return reject("action/malformed", str(exc.errors(include_url=False))[:500])
        if not isinstance(action, _PHASE_ACTIONS.get(state.phase, ())):
            return reject("action/illegal", f"{action.type!r} is not allowed in {state.phase}")
        return self._dispatch(state, move.seat, action, events)

    def _dispatch(
        self, state: st.State, seat: int, action: Action, events: Events
    ) -> st.State | Rejection:
        match action:
            case Draw():
                return turn.do_draw(state, action, events)
            case Steal():
                return turn.do_steal(state, action, events)
            case TradeOffer():
                return interact.do_trade(state, action, events)
            case TradeReply():
                return interact.do_trade_reply(state, action, events)
            case BattleDeclare():
                return interact.do_battle(state, action, events)
            case BattleSet():
                return interact.do_battle_set(state, seat, action, events)
            case BattleGive():
                return interact.do_battle_give(state, action, events)
            case Army():
                return turn.do_army(state, action, events)
            case Empire():
                return turn.do_empire(state, action, events)
            case Barbarian() | Serf():
                return turn.do_special(state, action, events)
            case Discard() | Disband() | Pass():
                return turn.do_discard(state, action, events)
            case Tribute():
                return turn.do_tribute(state, seat, action, events)
            case Gift() | GiftSkip():
                return turn.do_gift(state, action, events)
            case SabotageSkip() | SabotageTake() | SabotageNone():
                return turn.do_sabotage(state, action, events)
            case CastSpell():
                return spells.do_cast(state, action, events)
            case SpellTake() | SpellPick() | SpellTrade():
                return spells.do_spell_step(state, action, events)
            case SpellGive():
                return spells.do_spell_give(state, seat, action, events)
            case Plunder() | Destroy():
                return apply_reward(state, action, events)
        return reject("action/malformed", "unknown action")  # pragma: no cover
