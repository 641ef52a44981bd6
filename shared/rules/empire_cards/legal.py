"""Who is awaited, the legal actions of each phase, and the timeout defaults."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_cards import acts
from shared.rules.empire_cards.acts import (
    DISCARD_OF,
    OPPONENTS,
    RANK,
    REGIMES_HELD,
    TRADE_OF,
    UNSTEALABLE,
    hand_groups,
)
from shared.rules.empire_cards.cards import distinct_by_label, is_wizard
from shared.rules.empire_cards.combat import battle_sets
from shared.rules.empire_cards.data import (
    EMPIRE_SETS_TO_WIN,
    SPECIAL_SET_SIZE,
    WIZARD,
)
from shared.rules.empire_cards.interact import battle_candidates
from shared.rules.empire_cards.match import reward_actions
from shared.rules.empire_cards.sets import (
    barbarian_options,
    plunderable_sets,
    serf_options,
)
from shared.rules.empire_cards.spells import can_cast, spell_actions, trader
from shared.rules.empire_cards.state import Cards, State
from shared.rules.empire_cards.turn import interactions_allowed


def awaited(state: State) -> tuple[int, ...]:
    """The seats a Turn waits for in the current phase (empty at a Chance)."""
    phase = state.phase
    if phase in ("play", "gift", "sabotage"):
        return (state.active,)
    if phase == "trade_reply" and state.trade is not None:
        return (state.trade.target,)
    if phase == "battle_attack" and state.battle is not None:
        return (state.battle.attacker,)
    if phase in ("battle_defend", "battle_give") and state.battle is not None:
        return (state.battle.defender,)
    if phase == "tribute":
        return state.tribute_from
    if phase == "spell" and state.spell is not None and state.spell.stage != "hand":
        if state.spell.stage in ("give", "return"):
            return (trader(state),)
        return (state.spell.caster,)
    if phase == "reward" and state.hand_winner is not None:
        return (state.hand_winner,)
    return ()


def play_actions(state: State) -> list[Json]:
    """The active player's turn: draw, steal, trade, battle, armies, sets, then (after the
    draw) discard or disband, and spells. One dict per distinct choice of labels (``sets``)."""
    seat = state.active
    players = state.players
    p = players[seat]
    hand = p.hand
    army = p.army
    options = state.options
    distinct, groups, pairs, mask = hand_groups(hand)
    drawn = state.drawn
    out: list[Json] = [] if drawn else [acts.DRAW]
    first_round = state.turn_no < state.n_seats  # ``State.first_round`` (CG-1)
    if not first_round:  # no steal, trade or battle in the first round (CG-1)
        if not state.interactions:  # none used yet: each is allowed (``interactions_allowed``)
            steal = trade = battle = True
        elif p.regime is None or len(p.empire_sets) < 2:  # one per turn, used (CG-4)
            steal = trade = battle = False
        else:  # the regime's extra one from the 2nd empire set (CG-13)
            steal, trade, battle = interactions_allowed(state)
        if steal:  # ``turn.stealable`` of each pile, in seat order (CG-15)
            own = options.steal_own_pile
            for t, q in enumerate(players):
                pile = q.discard
                if pile and (own or t != seat) and not UNSTEALABLE[pile[-1]]:
                    out.append(acts.STEAL[t])
        if trade:  # (``out += map(...)``: the list is extended in C)
            for t in OPPONENTS[state.n_seats][seat]:
                if players[t].hand:
                    out += map(TRADE_OF[t], distinct)
        if battle and army and battle_sets(army):
            out += acts.battles(state.n_seats, seat, options.battle_demand)
    for rank in pairs:  # new army sets, by rank group (CG-9)
        out += acts.new_armies(groups[rank])
    for i, existing in enumerate(army):
        rank = RANK[existing[0]]
        if rank in groups:
            out += acts.additions(i, len(existing), groups[rank])
    if not first_round or options.first_round_sets:
        if len(p.empire_sets) < EMPIRE_SETS_TO_WIN:  # (``mask``: the ranks the hand holds)
            # of the player's regime once fixed (CG-10), else of every regime the hand has
            # the ranks for, a Wizard for each rank it lacks
            regime = p.regime
            wizards = groups.get(WIZARD)
            for r in REGIMES_HELD[mask | len(wizards) << 16 if wizards else mask]:
                if regime is None or r == regime:
                    out += acts.empire_sets(groups, r)
        if len(hand) >= SPECIAL_SET_SIZE:
            out += _special_sets(hand, groups)
    if drawn:
        before = len(out)
        out += map(DISCARD_OF, distinct)
        for i, cards in enumerate(army):
            out += acts.disbands(i, cards)
        if len(out) == before:
            out.append(acts.PASS)
        if options.expert_spells:
            out += [acts.SPELL[c] for c in distinct if can_cast(state, c)]
    return out


def _special_sets(hand: Cards, groups: dict[str, Cards]) -> list[Json]:
    """Barbarian and Serf Rebellion sets (CG-10) of a hand of at least 12 cards."""
    out: list[Json] = []
    wizards = len(groups.get(WIZARD, ()))  # a Wizard for each rank the hand lacks:
    if len(groups.keys() & acts.BARBARIAN_SET) + wizards >= SPECIAL_SET_SIZE:
        out += [{"type": "barbarian", "cards": list(c)} for c in barbarian_options(hand)]
    out += [{"type": "serf", "cards": list(c)} for c in serf_options(hand)]
    return out


def _sabotage_actions(state: State) -> list[Json]:
    seat = state.active
    out: list[Json] = [acts.SABOTAGE_NONE]
    out += [acts.SABOTAGE_SKIP[t] for t in range(state.n_seats)
            if t != seat and not state.players[t].skip_pending]
    for t, p in enumerate(state.players):
        for i in plunderable_sets(p.army):
            out += acts.sabotage_takes(t, i, p.army[i])
    return out


def _hand_choice(state: State, seat: int, kind: str) -> list[Json]:
    """A card of the hand, one per label (``hand_groups``: ``distinct_by_label`` of a hand in
    its kept order, without its sort)."""
    distinct = hand_groups(state.players[seat].hand)[0]
    return list(map(acts.HAND_CHOICE[kind].__getitem__, distinct))


def legal_actions(state: State, seat: int) -> list[Json]:
    phase = state.phase
    if phase == "play":  # the common case first: only the active seat is awaited
        return play_actions(state) if seat == state.active else []
    if seat not in awaited(state):
        return []
    if phase == "trade_reply":
        return _hand_choice(state, seat, "trade_reply")
    if phase in ("battle_attack", "battle_defend"):
        return list(map(acts.battle_set, battle_sets(state.players[seat].army)))
    if phase == "battle_give":
        return list(map(acts.BATTLE_GIVE.__getitem__, distinct_by_label(battle_candidates(state))))
    if phase == "tribute":
        return _hand_choice(state, seat, "tribute")
    if phase == "gift":
        hand = distinct_by_label(state.players[seat].hand)
        if not hand:
            return [{"type": "gift_skip"}]
        others = [t for t in range(state.n_seats) if t != seat]
        return [{"type": "gift", "target": t, "card": c} for t in others for c in hand]
    if phase == "sabotage":
        return _sabotage_actions(state)
    if phase == "spell":
        return spell_actions(state)
    if phase == "reward":
        return reward_actions(state)
    return []


def default_action(state: State, seat: int) -> Json:
    """On timeout: draw if not yet drawn, then discard (a non-Wizard if possible); elsewhere
    the first legal option (sabotage: no effect)."""
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} is not awaited")
    if state.phase == "play":
        if not state.drawn:
            return {"type": "draw"}
        ends = [
            a for a in legal if isinstance(a, dict) and a["type"] in ("discard", "disband", "pass")
        ]
        plain = [a for a in ends if not (a["type"] == "discard" and is_wizard(str(a["card"])))]
        return (plain or ends)[0]
    return legal[0]
