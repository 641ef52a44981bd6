"""The active player's turn (CG-1, CG-4, CG-9 .. CG-15): draw, steal, armies, sets, discard,
and the 2s' sabotage, the 3rd-set tribute and the 4th-set gift."""

from __future__ import annotations

from shared.rules.api import Rejection, reject
from shared.rules.empire_cards.actions import (
    Army,
    Barbarian,
    Disband,
    Discard,
    Draw,
    Empire,
    Gift,
    GiftSkip,
    Pass,
    SabotageNone,
    SabotageSkip,
    SabotageTake,
    Serf,
    Steal,
    Tribute,
)
from shared.rules.empire_cards.cards import contains_all, rank_of, remove_cards, sorted_cards
from shared.rules.empire_cards.data import (
    EMPIRE_SETS_TO_WIN,
    FIRST_SET_DRAW,
    REGIME_BONUS,
    SAME_SUIT_DRAW,
    WIZARD,
    Interaction,
)
from shared.rules.empire_cards.match import end_turn, hand_won, has_won_condition
from shared.rules.empire_cards.ops import (
    Events,
    add_to_hand,
    draw_cards,
    opponents_from_left,
    private,
    public,
)
from shared.rules.empire_cards.sets import (
    is_horde,
    plunderable_sets,
    same_suit_bonus,
    valid_army_addition,
    valid_barbarian,
    valid_empire_set,
    valid_new_army_set,
    valid_serf,
)
from shared.rules.empire_cards.state import Special, SpecialKind, State


def interaction_allowed(state: State, kind: Interaction) -> bool:
    """CG-4: at most one steal/trade/battle per turn, plus one more of the regime's kind once
    the player has two empire sets (CG-13, from the turn the 2nd set is laid). None in the
    first round (CG-1)."""
    if state.turn_no < state.n_seats:  # the first round
        return False
    p = state.players[state.active]
    used = state.interactions
    if p.regime is None or len(p.empire_sets) < 2:
        return not used
    extra = REGIME_BONUS[p.regime]
    if len(used) >= 2:
        return False
    return sum(1 for k in used if k != extra) + (kind != extra) <= 1


def interactions_allowed(state: State) -> tuple[bool, bool, bool]:
    """``interaction_allowed`` for a steal, a trade and a battle."""
    if state.turn_no < state.n_seats:  # the first round
        return False, False, False
    p = state.players[state.active]
    if not state.interactions:
        return True, True, True
    if p.regime is None or len(p.empire_sets) < 2:
        return False, False, False
    return (interaction_allowed(state, "steal"), interaction_allowed(state, "trade"),
            interaction_allowed(state, "battle"))


def use_interaction(state: State, kind: Interaction) -> None:
    state.interactions = (*state.interactions, kind)


def valid_seat(state: State, seat: int) -> bool:
    return 0 <= seat < state.n_seats


def stealable(state: State, target: int) -> bool:
    """CG-15: the top card of any pile (own pile by option), never a 2 or a Wizard."""
    if not valid_seat(state, target):
        return False
    if target == state.active and not state.options.steal_own_pile:
        return False
    pile = state.players[target].discard
    return bool(pile) and rank_of(pile[-1]) not in ("2", WIZARD)


def do_draw(state: State, action: Draw, events: Events) -> Rejection | None:
    if state.drawn:
        return reject("action/illegal", "you have already drawn this turn")
    state.drawn = True
    draw_cards(state, state.active, 1, "turn", events)
    return None


def do_steal(state: State, action: Steal, events: Events) -> Rejection | None:
    if not interaction_allowed(state, "steal"):
        return reject("action/illegal", "no steal available this turn")
    if not stealable(state, action.target):
        return reject("action/illegal", "that pile's top card cannot be stolen")
    steal(state, action, events)
    return None


def steal(state: State, action: Steal, events: Events) -> None:
    """``do_steal`` of a listed act (``engine.play_listed``: its checks hold)."""
    victim = state.writable(action.target)
    card = victim.discard[-1]
    victim.discard = victim.discard[:-1]
    use_interaction(state, "steal")
    add_to_hand(state, state.active, (card,))
    events.add("steal", {"seat": state.active, "target": action.target, "card": card})


def do_army(state: State, action: Army, events: Events) -> Rejection | None:
    """CG-9 (allowed in the first round, CG-1)."""
    p = state.players[state.active]
    cards = action.cards
    if not contains_all(p.hand, cards):
        return reject("action/illegal", "cards not in your hand")
    if action.set is None:
        if not valid_new_army_set(cards):
            return reject("action/illegal", "a new army set is 2-4 of one rank (2s/Wizards: 4)")
    elif not 0 <= action.set < len(p.army) or not valid_army_addition(p.army[action.set], cards):
        return reject("action/illegal", "cannot build onto that army set")
    build_army(state, action, events)
    return None


def build_army(state: State, action: Army, events: Events) -> None:
    """``do_army`` of a listed act (``engine.play_listed``: its checks hold)."""
    p = state.writable(state.active)
    cards = action.cards
    if action.set is None:
        army = (*p.army, sorted_cards(cards))
    else:
        built = list(p.army)
        built[action.set] = sorted_cards(built[action.set] + cards)
        army = tuple(built)
    p.hand = remove_cards(p.hand, cards)
    p.army = army
    events.add("army", {"seat": state.active, "set": action.set, "cards": list(cards)})


def _sets_allowed(state: State) -> bool:
    return not state.first_round or state.options.first_round_sets  # CG-1


def do_empire(state: State, action: Empire, events: Events) -> Rejection | None:
    seat = state.active
    p = state.writable(seat)
    if not _sets_allowed(state):
        return reject("action/illegal", "no sets in the first round (option)")
    if len(p.empire_sets) >= EMPIRE_SETS_TO_WIN:
        return reject("action/illegal", "you already have four empire sets")
    if p.regime is not None and action.regime != p.regime:  # CG-10 regime lock
        return reject("action/illegal", f"your empire sets must be {p.regime}")
    if not contains_all(p.hand, action.cards) or not valid_empire_set(action.cards, action.regime):
        return reject("action/illegal", "not an empire set of that regime from your hand")
    cards = sorted_cards(action.cards)
    number = len(p.empire_sets) + 1
    bonus = same_suit_bonus(cards)
    p.hand = remove_cards(p.hand, cards)
    p.empire_sets = (*p.empire_sets, cards)
    p.regime = action.regime
    public(events, "empire_set", seat=seat, regime=action.regime, cards=list(cards),
           number=number, same_suit=bonus)
    if number == 1:  # CG-13
        draw_cards(state, seat, FIRST_SET_DRAW, "first_set", events)
    if bonus:  # CG-11
        draw_cards(state, seat, SAME_SUIT_DRAW, "same_suit", events)
    if number == 3:  # CG-13: tribute from every opponent with cards
        payers = tuple(t for t in opponents_from_left(state, seat) if state.players[t].hand)
        if payers:
            state.phase, state.tribute_from = "tribute", payers
    if number == EMPIRE_SETS_TO_WIN:  # CG-13: the gift
        state.phase = "gift"
    return None


def do_special(state: State, action: Barbarian | Serf, events: Events) -> Rejection | None:
    """CG-10: Barbarian and Serf Rebellion sets at any time; no empire-set bonuses."""
    seat = state.active
    p = state.writable(seat)
    if not _sets_allowed(state):
        return reject("action/illegal", "no sets in the first round (option)")
    if not contains_all(p.hand, action.cards):
        return reject("action/illegal", "cards not in your hand")
    ok = valid_barbarian(action.cards) if action.type == "barbarian" else valid_serf(action.cards)
    if not ok:
        return reject("action/illegal", f"not a valid {action.type} set from your hand")
    cards = sorted_cards(action.cards)
    kind: SpecialKind = "serf" if action.type == "serf" else (
        "horde" if is_horde(cards) else "barbarian")
    p.hand = remove_cards(p.hand, cards)
    p.specials = (*p.specials, Special(kind, cards))
    public(events, "special_set", seat=seat, kind=kind, cards=list(cards))
    return None


def do_discard(state: State, action: Discard | Disband | Pass, events: Events
               ) -> Rejection | None:
    """Action 5: exactly one discard ends the turn, from hand or from the army (disband)."""
    seat = state.active
    p = state.players[seat]
    if not state.drawn:
        return reject("action/illegal", "draw a card before you discard (CG-4)")
    if action.type == "pass":  # the tag, not isinstance (cheaper on pydantic models)
        if p.hand or p.army:
            return reject("action/illegal", "you must discard a card")
        events.add("pass", {"seat": seat})
        end_turn(state, events)
        return None
    p = state.writable(seat)
    if action.type == "discard":
        if action.card not in p.hand:
            return reject("action/illegal", "card not in your hand")
        p.hand = remove_cards(p.hand, (action.card,))
        source = "hand"
    else:
        if not 0 <= action.set < len(p.army) or action.card not in p.army[action.set]:
            return reject("action/illegal", "card not in that army set")
        disband(state, seat, action.set, action.card)
        source = "army"
    p.discard = (*p.discard, action.card)
    events.add("discard", {"seat": seat, "card": action.card, "source": source})
    after_discard(state, action.card, events)
    return None


def disband(state: State, owner: int, index: int, card: str) -> None:
    """Remove ``card`` from an army set; a set left with one card returns it to the hand."""
    p = state.writable(owner)
    rest = remove_cards(p.army[index], (card,))
    army = list(p.army)
    if len(rest) <= 1:
        del army[index]
        p.hand = sorted_cards(p.hand + rest)
    else:
        army[index] = rest
    p.army = tuple(army)


def after_discard(state: State, card: str, events: Events) -> None:
    """CG-12 win check, then a 2's sabotage (CG-14; no effect in the first round, CG-1)."""
    p = state.players[state.active]
    if not p.hand and has_won_condition(p):
        hand_won(state, state.active, events)
    elif rank_of(card) == "2" and not state.first_round:
        state.phase = "sabotage"
    else:
        end_turn(state, events)


def do_sabotage(
    state: State, action: SabotageSkip | SabotageTake | SabotageNone, events: Events
) -> Rejection | None:
    seat = state.active
    # told apart by the tag (a listed act comes as its fields, ``engine.play_listed``)
    if action.type == "sabotage_skip":
        t = action.target
        if not valid_seat(state, t) or t == seat or state.players[t].skip_pending:
            return reject("action/illegal", "cannot skip that player (one pending skip at most)")
        state.writable(t).skip_pending = True
        public(events, "sabotage_skip", seat=seat, target=t)
    elif action.type == "sabotage_take":
        t = action.target
        if not valid_seat(state, t) or action.set not in plunderable_sets(state.players[t].army):
            return reject("action/illegal", "that army set cannot be plundered")
        if action.card not in state.players[t].army[action.set]:
            return reject("action/illegal", "card not in that army set")
        disband(state, t, action.set, action.card)
        add_to_hand(state, seat, (action.card,))
        public(events, "sabotage_take", seat=seat, target=t, set=action.set, card=action.card)
    end_turn(state, events)
    return None


def do_tribute(state: State, seat: int, action: Tribute, events: Events) -> Rejection | None:
    """CG-13 (3rd set): each opponent with cards gives the active player a card of their
    choice. Only the two players see which card."""
    payer = state.writable(seat)
    if action.card not in payer.hand:
        return reject("action/illegal", "card not in your hand")
    receiver = state.active
    payer.hand = remove_cards(payer.hand, (action.card,))
    add_to_hand(state, receiver, (action.card,))
    public(events, "tribute", seat=seat, to=receiver)
    private(events, "tribute_card", (seat, receiver), seat=seat, to=receiver, card=action.card)
    left = tuple(s for s in state.tribute_from if s != seat)
    state.tribute_from, state.phase = left, "tribute" if left else "play"
    return None


def do_gift(state: State, action: Gift | GiftSkip, events: Events) -> Rejection | None:
    """CG-13 (4th set): give one card of your choice to a player of your choice."""
    seat = state.active
    giver = state.players[seat]
    if action.type == "gift_skip":  # the tag (see ``do_sabotage``)
        if giver.hand:
            return reject("action/illegal", "you must give a card")
        state.phase = "play"
        return None
    if not valid_seat(state, action.target) or action.target == seat \
            or action.card not in giver.hand:
        return reject("action/illegal", "give a card from your hand to another player")
    giver = state.writable(seat)
    giver.hand = remove_cards(giver.hand, (action.card,))
    add_to_hand(state, action.target, (action.card,))
    public(events, "gift", seat=seat, to=action.target)
    private(events, "gift_card", (seat, action.target), seat=seat, to=action.target,
            card=action.card)
    state.phase = "play"
    return None
