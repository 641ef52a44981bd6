"""Expert Wizard spells behind ``options.expert_spells`` (CG-17).

Casting is an end-of-turn double discard: a Wizard, then the other card on top of it. The
CG-12 win check comes first; then the spell resolves against each opponent in turn order from
the caster's left; then the turn ends. A whole army protected by four 2s and the Holy Grail
are immune to spells (CG-14 protection; Berserker included). No spells in the first round
(CG-1: no steal/trade/battle then, and spells are their mass forms).
"""

from __future__ import annotations

from collections.abc import Callable

from shared.rules.api import Json, Rejection, reject
from shared.rules.empire_cards.actions import CastSpell, SpellGive, SpellPick, SpellTake, SpellTrade
from shared.rules.empire_cards.cards import (
    distinct_by_label,
    is_wizard,
    rank_of,
    regime_of,
    remove_cards,
    sorted_cards,
)
from shared.rules.empire_cards.data import SPELL_BY_TOP, WIZARD, SpellKind
from shared.rules.empire_cards.match import end_turn, hand_won, has_won_condition
from shared.rules.empire_cards.ops import (
    Events,
    add_to_hand,
    opponents_from_left,
    private,
    public,
    set_player,
)
from shared.rules.empire_cards.sets import plunderable_sets
from shared.rules.empire_cards.state import Spell, State
from shared.rules.empire_cards.turn import disband


def spell_of(top: str) -> SpellKind:
    regime = regime_of(top)
    return SPELL_BY_TOP[regime if regime is not None else rank_of(top)]


def can_cast(state: State, card: str) -> bool:
    if not state.options.expert_spells or not state.drawn or state.first_round:
        return False
    hand = state.players[state.active].hand
    wizards = [c for c in hand if is_wizard(c) and c != card]
    return card in hand and bool(wizards)


def do_cast(state: State, action: CastSpell, events: Events) -> State | Rejection:
    if not can_cast(state, action.card):
        return reject("action/illegal", "a spell needs a Wizard plus that card, after drawing")
    seat = state.active
    hand = state.players[seat].hand
    wizard = next(c for c in hand if is_wizard(c) and c != action.card)
    pile = (*state.players[seat].discard, wizard, action.card)
    state = set_player(state, seat, hand=remove_cards(hand, (wizard, action.card)), discard=pile)
    kind = spell_of(action.card)
    events.append(public("spell", seat=seat, spell=kind, cards=[wizard, action.card]))
    p = state.players[seat]
    if not p.hand and has_won_condition(p):  # CG-12 before the spell resolves
        return hand_won(state, seat, events)
    if kind == "rise_of_the_dead":
        return end_turn(_rise_of_the_dead(state, events), events)
    stage = {"mass_steal": "hand", "mass_trade": "count"}.get(kind, "pick")
    spell = Spell(kind=kind, caster=seat, stage=stage)  # type: ignore[arg-type]
    return advance(state.model_copy(update={"spell": spell, "phase": "spell"}), events)


def _rise_of_the_dead(state: State, events: Events) -> State:
    """Every discard pile's cards except 2s and Wizards go to the caster's hand."""
    taken: list[str] = []
    for seat, p in enumerate(state.players):
        keep = tuple(c for c in p.discard if rank_of(c) in ("2", WIZARD))
        taken += [c for c in p.discard if rank_of(c) not in ("2", WIZARD)]
        state = set_player(state, seat, discard=keep)
    state = add_to_hand(state, state.active, tuple(taken))
    events.append(public("rise_of_the_dead", seat=state.active, count=len(taken)))
    events.append(private("risen_cards", (state.active,), cards=list(sorted_cards(taken))))
    return state


def _qualifies(state: State, spell: Spell) -> Callable[[int], bool]:
    caster = state.players[spell.caster]
    if spell.stage == "hand":
        return lambda t: bool(state.players[t].hand)
    if spell.stage == "count":
        return lambda t: bool(state.players[t].hand) and bool(caster.hand)
    return lambda t: bool(plunderable_sets(state.players[t].army))


def advance(state: State, events: Events) -> State:
    """Point the spell at its next opponent, move to the next stage, or end the turn."""
    spell = state.spell
    assert spell is not None
    while True:
        if spell.stage in ("give", "return"):
            return state.model_copy(update={"spell": spell})
        ok = _qualifies(state, spell)
        todo = [t for t in opponents_from_left(state, spell.caster) if t not in spell.done]
        target = next((t for t in todo if ok(t)), None)
        if target is not None:
            return state.model_copy(update={"spell": spell.model_copy(update={"target": target})})
        if spell.stage != "hand":
            events.append(public("spell_done", seat=spell.caster, spell=spell.kind))
            return end_turn(state.model_copy(update={"spell": None}), events)
        spell = spell.model_copy(update={"stage": "army", "done": (), "target": None})


def _done(state: State, events: Events) -> State:
    spell = state.spell
    assert spell is not None and spell.target is not None
    spell = spell.model_copy(update={"done": (*spell.done, spell.target), "target": None})
    return advance(state.model_copy(update={"spell": spell}), events)


# ---------------------------------------------------------------- mass steal


def steal_label(state: State) -> str:
    assert state.spell is not None
    return f"hand:{state.hand_no}:turn:{state.turn_no}:mass_steal:{state.spell.target}"


def resolve_steal(state: State, index: int, events: Events) -> State:
    """A random card (the dealer's draw) from the target's hand."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    t = spell.target
    card = state.players[t].hand[index]
    state = set_player(state, t, hand=remove_cards(state.players[t].hand, (card,)))
    state = add_to_hand(state, spell.caster, (card,))
    events.append(public("mass_steal_hand", seat=spell.caster, target=t))
    events.append(private("mass_steal_card", (spell.caster, t), target=t, card=card))
    return _done(state, events)


# ---------------------------------------------------------------- caster's choices


def spell_actions(state: State) -> list[Json]:
    spell = state.spell
    if spell is None or spell.target is None:
        return []
    t = spell.target
    army = state.players[t].army
    if spell.stage == "army":
        return [
            {"type": "spell_take", "target": t, "set": i, "card": c}
            for i in plunderable_sets(army)
            for c in distinct_by_label(army[i])
        ]
    if spell.stage == "pick":
        return [{"type": "spell_pick", "target": t, "set": i} for i in plunderable_sets(army)]
    if spell.stage == "count":
        most = min(len(state.players[spell.caster].hand), len(state.players[t].hand))
        return [{"type": "spell_trade", "target": t, "n": n} for n in range(most + 1)]
    return give_actions(state)


def do_spell_step(
    state: State, action: SpellTake | SpellPick | SpellTrade, events: Events
) -> State | Rejection:
    spell = state.spell
    assert spell is not None and spell.target is not None
    t, caster = spell.target, spell.caster
    army = state.players[t].army
    if action.target != t:
        return reject("action/illegal", f"the spell now targets seat {t}")
    if isinstance(action, SpellTrade):
        if spell.stage != "count" or action.model_dump() not in spell_actions(state):
            return reject("action/illegal", "not a valid number of cards to trade")
        if action.n == 0:
            return _done(state, events)
        events.append(public("mass_trade", seat=caster, target=t, n=action.n))
        update = {"stage": "give", "n": action.n, "moved": 0}
        return state.model_copy(update={"spell": spell.model_copy(update=update)})
    if spell.stage not in ("army", "pick") or action.set not in plunderable_sets(army):
        return reject("action/illegal", "that army set cannot be taken")
    if isinstance(action, SpellTake):
        if spell.stage != "army" or action.card not in army[action.set]:
            return reject("action/illegal", "take one card of that army set")
        state = add_to_hand(disband(state, t, action.set, action.card), caster, (action.card,))
        events.append(public("mass_steal_army", seat=caster, target=t, card=action.card))
        return _done(state, events)
    if spell.stage != "pick":
        return reject("action/illegal", "pick a whole set only for Berserker/Mass sabotage")
    cards = army[action.set]
    state = set_player(state, t, army=tuple(s for i, s in enumerate(army) if i != action.set))
    if spell.kind == "berserker":  # the set goes to that player's discard pile
        state = set_player(state, t, discard=(*state.players[t].discard, *cards))
    else:  # mass sabotage: the set joins the caster's army
        state = set_player(state, caster, army=(*state.players[caster].army, cards))
    events.append(public(spell.kind, seat=caster, target=t, cards=list(cards)))
    return _done(state, events)


# ---------------------------------------------------------------- mass trade


def trader(state: State) -> int:
    """Who gives now: the caster in the "give" stage, the target in the "return" stage."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    return spell.caster if spell.stage == "give" else spell.target


def give_actions(state: State) -> list[Json]:
    hand = state.players[trader(state)].hand
    return [{"type": "spell_give", "card": c} for c in distinct_by_label(hand)]


def do_spell_give(state: State, seat: int, action: SpellGive, events: Events) -> State | Rejection:
    """Mass trade as N-card hidden trades (CG-5 style): the caster hands over N cards, then
    the target hands back N cards of its choice (it may return cards just received). Only
    the two players see the cards. Not a sealed round: the escrow's public record would
    reveal the choices and the slots' hand contexts to everyone."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    giver = trader(state)
    taker = spell.target if giver == spell.caster else spell.caster
    hand = state.players[giver].hand
    if seat != giver or action.card not in hand:
        return reject("action/illegal", "give a card from your hand")
    state = set_player(state, giver, hand=remove_cards(hand, (action.card,)))
    state = add_to_hand(state, taker, (action.card,))
    events.append(public("mass_trade_give", seat=giver, to=taker))
    events.append(
        private("mass_trade_card", (giver, taker), seat=giver, to=taker, card=action.card)
    )
    moved = spell.moved + 1
    if moved < spell.n:
        spell = spell.model_copy(update={"moved": moved})
        return state.model_copy(update={"spell": spell})
    if spell.stage == "give":
        spell = spell.model_copy(update={"stage": "return", "moved": 0})
        return state.model_copy(update={"spell": spell})
    spell = spell.model_copy(update={"stage": "count", "n": 0, "moved": 0})
    return _done(state.model_copy(update={"spell": spell}), events)
