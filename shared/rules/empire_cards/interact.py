"""Hidden trades (CG-5) and battles (CG-6 .. CG-8, CG-20)."""

from __future__ import annotations

from shared.rules.api import Rejection, reject
from shared.rules.empire_cards.actions import (
    BattleDeclare,
    BattleGive,
    BattleSet,
    TradeOffer,
    TradeReply,
)
from shared.rules.empire_cards.cards import distinct_by_label, rank_of, remove_cards, suit_of
from shared.rules.empire_cards.combat import battle_sets, battle_winner
from shared.rules.empire_cards.data import RANKS, SUITS, WIZARD
from shared.rules.empire_cards.ops import Events, add_to_hand, private, public
from shared.rules.empire_cards.state import Battle, State, Trade
from shared.rules.empire_cards.turn import interaction_allowed, use_interaction, valid_seat

# ---------------------------------------------------------------- trade (CG-5)


def do_trade(state: State, action: TradeOffer, events: Events) -> Rejection | None:
    """Pass a card face down; it moves into the target's hand at once. The public only learns
    that A traded with B; the card is visible to the two traders alone."""
    seat, t = state.active, action.target
    if not interaction_allowed(state, "trade"):
        return reject("action/illegal", "no trade available this turn")
    if not valid_seat(state, t) or t == seat:
        return reject("action/illegal", "trade with another player")
    if not state.players[t].hand:
        return reject("action/illegal", "cannot trade with a player whose hand is empty (CG-5)")
    if action.card not in state.players[seat].hand:
        return reject("action/illegal", "card not in your hand")
    offer_trade(state, action, events)
    return None


def offer_trade(state: State, action: TradeOffer, events: Events) -> None:
    """``do_trade`` of a listed act (``engine.play_listed``: its checks hold)."""
    seat, t = state.active, action.target
    p = state.writable(seat)
    p.hand = remove_cards(p.hand, (action.card,))
    use_interaction(state, "trade")
    add_to_hand(state, t, (action.card,))
    events.add("trade", {"seat": seat, "target": t})
    private(events, "trade_card", (seat, t), seat=seat, to=t, card=action.card)
    state.phase, state.trade = "trade_reply", Trade(seat, t, action.card)


def do_trade_reply(state: State, action: TradeReply, events: Events) -> Rejection | None:
    """The target answers with any card from hand, even the one just received (CG-5)."""
    trade = state.trade
    assert trade is not None
    p = state.writable(trade.target)
    if action.card not in p.hand:
        return reject("action/illegal", "card not in your hand")
    p.hand = remove_cards(p.hand, (action.card,))
    add_to_hand(state, trade.initiator, (action.card,))
    events.add("trade_done", {"seat": trade.target, "to": trade.initiator})
    private(events, "trade_card", (trade.initiator, trade.target), seat=trade.target,
            to=trade.initiator, card=action.card)
    state.phase, state.trade = "play", None
    return None


# ---------------------------------------------------------------- battle (CG-6 .. CG-8)


def matches_demand(card: str, rank: str, suit: str | None) -> bool:
    return rank_of(card) == rank and (suit is None or suit_of(card) == suit)


def valid_demand(state: State, rank: str, suit: str | None) -> bool:
    """CG-6: a rank 2..A or "W" (Wizard); with the rank_suit option also a suit."""
    if rank == WIZARD:
        return suit is None
    if rank not in RANKS:
        return False
    if state.options.battle_demand == "rank_suit":
        return suit in SUITS
    return suit is None


def do_battle(state: State, action: BattleDeclare, events: Events) -> Rejection | None:
    seat, t = state.active, action.target
    if not interaction_allowed(state, "battle"):
        return reject("action/illegal", "no battle available this turn")
    if not valid_seat(state, t) or t == seat:
        return reject("action/illegal", "battle another player")
    options = battle_sets(state.players[seat].army)
    if not options:  # CG-7
        return reject("action/illegal", "you need a battle set in your army to attack")
    if not valid_demand(state, action.rank, action.suit):
        return reject("action/illegal", "demand a rank (2..A or W) as the options require")
    declare_battle(state, action, events)
    return None


def declare_battle(state: State, action: BattleDeclare, events: Events) -> None:
    """``do_battle`` of a listed act (``engine.play_listed``: its checks hold)."""
    seat, t = state.active, action.target
    options = battle_sets(state.players[seat].army)
    # CG-20: the defender's answer is computed by the engine, so it is always honest.
    hand = state.players[t].hand
    if action.suit is None:  # (the common demand: a rank, looked for in C)
        has = action.rank in map(rank_of, hand)
    else:
        has = any(matches_demand(c, action.rank, action.suit) for c in hand)
    use_interaction(state, "battle")
    events.add("battle", {"seat": seat, "target": t, "rank": action.rank, "suit": action.suit})
    events.add("battle_answer", {"seat": t, "has": has})
    if not has:
        return
    if len(options) == 1:
        state.battle = Battle(seat, t, action.rank, action.suit, options[0])
        _after_attack_set(state, events)
    else:
        state.battle = Battle(seat, t, action.rank, action.suit)
        state.phase = "battle_attack"


def do_battle_set(state: State, seat: int, action: BattleSet, events: Events
                  ) -> Rejection | None:
    battle = state.battle
    assert battle is not None
    if action.set not in battle_sets(state.players[seat].army):
        return reject("action/illegal", "not a battle set of your army")
    if state.phase == "battle_attack":
        state.battle = Battle(battle.attacker, battle.defender, battle.rank, battle.suit,
                              action.set)  # (every field: cheaper than ``replace``)
        _after_attack_set(state, events)
    else:
        _resolve(state, action.set, events)
    return None


def _after_attack_set(state: State, events: Events) -> None:
    """The attacker has chosen; the defender chooses next (automatic with 0 or 1 option)."""
    battle = state.battle
    assert battle is not None
    options = battle_sets(state.players[battle.defender].army)
    if len(options) <= 1:
        _resolve(state, options[0] if options else None, events)
    else:
        state.phase = "battle_defend"


def _resolve(state: State, defend_set: int | None, events: Events) -> None:
    battle = state.battle
    assert battle is not None and battle.attack_set is not None
    attack = state.players[battle.attacker].army[battle.attack_set]
    defence = None if defend_set is None else state.players[battle.defender].army[defend_set]
    winner = battle_winner(attack, defence)  # CG-8 (CG-7: no defence set loses)
    public(events, "battle_result", seat=battle.attacker, target=battle.defender,
           attack=list(attack), defence=None if defence is None else list(defence),
           winner=winner)
    if winner == "defender":
        state.battle, state.phase = None, "play"
        return
    candidates = battle_candidates(state)
    if len(distinct_by_label(candidates)) == 1:
        _give(state, candidates[0], events)
    else:
        state.phase = "battle_give"


def battle_candidates(state: State) -> tuple[str, ...]:
    battle = state.battle
    assert battle is not None
    hand = state.players[battle.defender].hand
    return tuple(c for c in hand if matches_demand(c, battle.rank, battle.suit))


def do_battle_give(state: State, action: BattleGive, events: Events) -> Rejection | None:
    """CG-6: the losing defender gives one card of the demanded rank of their choice."""
    if action.card not in battle_candidates(state):
        return reject("action/illegal", "give a card of the demanded rank")
    _give(state, action.card, events)
    return None


def _give(state: State, card: str, events: Events) -> None:
    battle = state.battle
    assert battle is not None
    a, d = battle.attacker, battle.defender
    loser = state.writable(d)
    loser.hand = remove_cards(loser.hand, (card,))
    add_to_hand(state, a, (card,))
    events.add("battle_spoils", {"seat": d, "to": a, "rank": battle.rank})
    private(events, "battle_card", (a, d), seat=d, to=a, card=card)
    state.battle, state.phase = None, "play"
