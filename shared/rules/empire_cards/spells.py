"""Expert Wizard spells behind ``options.expert_spells`` (CG-17).

Casting is an end-of-turn double discard: a Wizard, then the other card on top of it. The
CG-12 win check comes first; then the spell resolves against each opponent in turn order from
the caster's left; then the turn ends. A whole army protected by four 2s and the Holy Grail
are immune to spells (CG-14 protection; Berserker included). No spells in the first round
(CG-1: no steal/trade/battle then, and spells are their mass forms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

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


def do_cast(state: State, action: CastSpell, events: Events) -> Rejection | None:
    if not can_cast(state, action.card):
        return reject("action/illegal", "a spell needs a Wizard plus that card, after drawing")
    seat = state.active
    p = state.writable(seat)
    wizard = next(c for c in p.hand if is_wizard(c) and c != action.card)
    p.hand = remove_cards(p.hand, (wizard, action.card))
    p.discard = (*p.discard, wizard, action.card)
    kind = spell_of(action.card)
    public(events, "spell", seat=seat, spell=kind, cards=[wizard, action.card])
    if not p.hand and has_won_condition(p):  # CG-12 before the spell resolves
        hand_won(state, seat, events)
    elif kind == "rise_of_the_dead":
        _rise_of_the_dead(state, events)
        end_turn(state, events)
    else:
        stage = {"mass_steal": "hand", "mass_trade": "count"}.get(kind, "pick")
        state.spell = Spell(kind, seat, stage)  # type: ignore[arg-type]
        state.phase = "spell"
        advance(state, events)
    return None


def _rise_of_the_dead(state: State, events: Events) -> None:
    """Every discard pile's cards except 2s and Wizards go to the caster's hand."""
    taken: list[str] = []
    for seat, p in enumerate(state.players):
        keep = tuple(c for c in p.discard if rank_of(c) in ("2", WIZARD))
        if len(keep) < len(p.discard):
            taken += [c for c in p.discard if rank_of(c) not in ("2", WIZARD)]
            state.writable(seat).discard = keep
    add_to_hand(state, state.active, tuple(taken))
    public(events, "rise_of_the_dead", seat=state.active, count=len(taken))
    private(events, "risen_cards", (state.active,), cards=list(sorted_cards(taken)))


def _qualifies(state: State, spell: Spell) -> Callable[[int], bool]:
    caster = state.players[spell.caster]
    if spell.stage == "hand":
        return lambda t: bool(state.players[t].hand)
    if spell.stage == "count":
        return lambda t: bool(state.players[t].hand) and bool(caster.hand)
    return lambda t: bool(plunderable_sets(state.players[t].army))


def advance(state: State, events: Events) -> None:
    """Point the spell at its next opponent, move to the next stage, or end the turn."""
    spell = state.spell
    assert spell is not None
    while True:
        if spell.stage in ("give", "return"):
            state.spell = spell
            return
        ok = _qualifies(state, spell)
        todo = [t for t in opponents_from_left(state, spell.caster) if t not in spell.done]
        target = next((t for t in todo if ok(t)), None)
        if target is not None:
            state.spell = replace(spell, target=target)
            return
        if spell.stage != "hand":
            public(events, "spell_done", seat=spell.caster, spell=spell.kind)
            state.spell = None
            end_turn(state, events)
            return
        spell = replace(spell, stage="army", done=(), target=None)


def _done(state: State, events: Events) -> None:
    spell = state.spell
    assert spell is not None and spell.target is not None
    state.spell = replace(spell, done=(*spell.done, spell.target), target=None)
    advance(state, events)


# ---------------------------------------------------------------- mass steal


def steal_label(state: State) -> str:
    assert state.spell is not None
    return f"hand:{state.hand_no}:turn:{state.turn_no}:mass_steal:{state.spell.target}"


def resolve_steal(state: State, index: int, events: Events) -> None:
    """A random card (the dealer's draw) from the target's hand."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    t = spell.target
    victim = state.writable(t)
    card = victim.hand[index]
    victim.hand = remove_cards(victim.hand, (card,))
    add_to_hand(state, spell.caster, (card,))
    public(events, "mass_steal_hand", seat=spell.caster, target=t)
    private(events, "mass_steal_card", (spell.caster, t), target=t, card=card)
    _done(state, events)


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
) -> Rejection | None:
    spell = state.spell
    assert spell is not None and spell.target is not None
    t, caster = spell.target, spell.caster
    victim = state.players[t]
    army = victim.army
    if action.target != t:
        return reject("action/illegal", f"the spell now targets seat {t}")
    if isinstance(action, SpellTrade):
        if spell.stage != "count" or action.model_dump() not in spell_actions(state):
            return reject("action/illegal", "not a valid number of cards to trade")
        if action.n == 0:
            _done(state, events)
            return None
        public(events, "mass_trade", seat=caster, target=t, n=action.n)
        state.spell = replace(spell, stage="give", n=action.n, moved=0)
        return None
    if spell.stage not in ("army", "pick") or action.set not in plunderable_sets(army):
        return reject("action/illegal", "that army set cannot be taken")
    if isinstance(action, SpellTake):
        if spell.stage != "army" or action.card not in army[action.set]:
            return reject("action/illegal", "take one card of that army set")
        disband(state, t, action.set, action.card)
        add_to_hand(state, caster, (action.card,))
        public(events, "mass_steal_army", seat=caster, target=t, card=action.card)
        _done(state, events)
        return None
    if spell.stage != "pick":
        return reject("action/illegal", "pick a whole set only for Berserker/Mass sabotage")
    cards = army[action.set]
    victim = state.writable(t)
    victim.army = tuple(s for i, s in enumerate(army) if i != action.set)
    if spell.kind == "berserker":  # the set goes to that player's discard pile
        victim.discard = (*victim.discard, *cards)
    else:  # mass sabotage: the set joins the caster's army
        gainer = state.writable(caster)
        gainer.army = (*gainer.army, cards)
    public(events, spell.kind, seat=caster, target=t, cards=list(cards))
    _done(state, events)
    return None


# ---------------------------------------------------------------- mass trade


def trader(state: State) -> int:
    """Who gives now: the caster in the "give" stage, the target in the "return" stage."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    return spell.caster if spell.stage == "give" else spell.target


def give_actions(state: State) -> list[Json]:
    hand = state.players[trader(state)].hand
    return [{"type": "spell_give", "card": c} for c in distinct_by_label(hand)]


def do_spell_give(state: State, seat: int, action: SpellGive, events: Events
                  ) -> Rejection | None:
    """Mass trade as N-card hidden trades (CG-5 style): the caster hands over N cards, then
    the target hands back N cards of its choice (it may return cards just received). Only
    the two players see the cards. Not a sealed round: the escrow's public record would
    reveal the choices and the slots' hand contexts to everyone."""
    spell = state.spell
    assert spell is not None and spell.target is not None
    giver = trader(state)
    taker = spell.target if giver == spell.caster else spell.caster
    p = state.writable(giver)
    if seat != giver or action.card not in p.hand:
        return reject("action/illegal", "give a card from your hand")
    p.hand = remove_cards(p.hand, (action.card,))
    add_to_hand(state, taker, (action.card,))
    public(events, "mass_trade_give", seat=giver, to=taker)
    private(events, "mass_trade_card", (giver, taker), seat=giver, to=taker, card=action.card)
    moved = spell.moved + 1
    if moved < spell.n:
        state.spell = replace(spell, moved=moved)
    elif spell.stage == "give":
        state.spell = replace(spell, stage="return", moved=0)
    else:
        state.spell = replace(spell, stage="count", n=0, moved=0)
        _done(state, events)
    return None
