"""Turn flow: setup placement, reinforcements (A + B + C), the free move, cards, next turn.

Every rule function takes a state whose legality checks have passed (or returns a
Rejection itself) and returns ``(new_state, events)``. Automatic steps (a phase with nothing
to decide) are chained here so that ``next`` only ever shows a decision or a Chance.
"""

from __future__ import annotations

from shared.rules._kit.model import event
from shared.rules.api import Event, Json, Rejection, reject
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.state import NycState

Result = tuple[NycState, list[Event]]


def owned(state: NycState, seat: int) -> list[int]:
    return [i for i, o in enumerate(state.owner) if o == seat]


def adj(state: NycState) -> tuple[frozenset[int], ...]:
    return board.adjacency(state.options.extra_links)


def next_alive(state: NycState, seat: int) -> int:
    """The next seat in turn order after ``seat`` that is still in the game."""
    k = state.order.index(seat)
    for step in range(1, len(state.order) + 1):
        cand = state.order[(k + step) % len(state.order)]
        if state.alive(cand):
            return cand
    return seat  # pragma: no cover - the game ends before the last opponent leaves


# ----------------------------------------------------------------------------------------
# Setup (NY-1): one cube at a time in turn order.
# ----------------------------------------------------------------------------------------


def setup_place(state: NycState, seat: int, nb: int, n: int) -> Result | Rejection:
    if n != 1:
        return reject("action/illegal", "setup cubes are placed one at a time (NY-1)")
    if state.owner[nb] != seat:
        return reject("action/illegal", "you may only place on your own neighborhoods")
    cubes = list(state.cubes)
    cubes[nb] += 1
    to_place = list(state.to_place)
    to_place[seat] -= 1
    s = state.model_copy(update={"cubes": tuple(cubes), "to_place": tuple(to_place)})
    events = [event(type="placed", data={"seat": seat, "nb": board.NB_IDS[nb], "n": 1})]
    k = s.order.index(seat)
    for step in range(1, len(s.order) + 1):
        cand = s.order[(k + step) % len(s.order)]
        if s.to_place[cand] > 0:
            return s.model_copy(update={"current": cand}), events
    # NY-2: every cube is down; the 42 cards and the River Wilds become one shuffled pile.
    return s.model_copy(update={"phase": "shuffle_deck", "current": -1}), events


# ----------------------------------------------------------------------------------------
# Start of turn: reinforcements A + B (NY-3), mission check (NY-12).
# ----------------------------------------------------------------------------------------


def finish(state: NycState, seat: int, reason: str) -> Result:
    data: dict[str, Json] = {"winner": seat, "reason": reason}
    if reason == "mission":  # the winning card is revealed, the others stay hidden (NY-12)
        mission = state.missions[seat]
        data["mission"] = mission
        data["boroughs"] = list(board.MISSION_BOROUGHS[mission])
    s = state.model_copy(
        update={
            "phase": "over",
            "winner": seat,
            "win_reason": reason,
            "battle": None,
            "move_in": None,
            "pool": 0,
        }
    )
    return s, [event(type="game_over", data=data)]


def has_won(state: NycState, seat: int) -> str | None:
    """'map' for the whole map, 'mission' for a completed occupation mission (NY-12)."""
    if all(o == seat for o in state.owner):
        return "map"
    if state.options.missions and board.holds_boroughs(
        state.owner, seat, board.MISSION_BOROUGHS[state.missions[seat]]
    ):
        return "mission"
    return None


def reinforcements(state: NycState, seat: int) -> tuple[int, int, dict[str, Json]]:
    """(part A, part B, borough bonuses) for ``seat`` now."""
    a = board.base_reinforcement(len(owned(state, seat)))  # NY-3: minimum 3 of part A only
    bonuses = board.borough_bonus(state.owner, seat)
    return a, sum(v for _, v in bonuses), {b: v for b, v in bonuses}


def round_limit_leader(state: NycState) -> int | None:
    """NY-S1: the one player with the most neighborhoods, then cubes (None: a tie)."""
    keys = {
        s: (len(mine := owned(state, s)), sum(state.cubes[i] for i in mine))
        for s in range(state.n_seats)
        if state.alive(s)
    }
    best = max(keys.values())
    leaders = [s for s, k in keys.items() if k == best]
    return leaders[0] if len(leaders) == 1 else None


def finish_round_limit(state: NycState) -> Result:
    """NY-S1: the last round is over; the leader wins (a tie: no winner, shared first place)."""
    leader = round_limit_leader(state)
    s = state.model_copy(
        update={
            "phase": "over",
            "winner": leader,
            "win_reason": "round_limit",
            "battle": None,
            "move_in": None,
            "pool": 0,
        }
    )
    data: dict[str, Json] = {"winner": leader, "reason": "round_limit", "rounds": state.round}
    return s, [event(type="game_over", data=data)]


def start_turn(state: NycState, seat: int) -> Result:
    wraps = state.current < 0 or state.order.index(seat) <= state.order.index(state.current)
    limit = state.options.max_rounds
    if wraps and limit is not None and state.round >= limit:  # NY-S1
        return finish_round_limit(state)
    s = state.model_copy(
        update={
            "current": seat,
            "turn": state.turn + 1,
            "round": state.round + 1 if wraps else state.round,
            "attacks": 0,
            "conquered": False,
            "battle": None,
            "move_in": None,
            "phase": "reinforce",
        }
    )
    reason = has_won(s, seat)
    if reason is not None:  # NY-12: a mission already complete wins at the start of a turn
        return finish(s, seat, reason)
    a, b, bonuses = reinforcements(s, seat)
    data: dict[str, Json] = {
        "seat": seat,
        "turn": s.turn,
        "neighborhoods": len(owned(s, seat)),
        "base": a,
        "boroughs": bonuses,
        "reinforcements": a + b,
    }
    return s.model_copy(update={"pool": a + b}), [event(type="turn_started", data=data)]


# ----------------------------------------------------------------------------------------
# Reinforce: trades (C) and placement.
# ----------------------------------------------------------------------------------------


def must_trade(state: NycState, seat: int) -> bool:
    """NY-6: trading is optional unless the 'Risk classic' flag forces it at 5+ cards."""
    return state.options.forced_trade and len(state.hands[seat]) >= 5


def trade(state: NycState, seat: int, cards: tuple[str, str, str]) -> Result | Rejection:
    hand = state.hands[seat]
    if len(set(cards)) != 3 or any(c not in hand for c in cards):
        return reject("action/illegal", "you must hold three different cards to trade")
    if not board.is_set(cards):
        return reject("action/illegal", "not a set: three of a kind or one of each pest")
    value = board.set_value(state.sets_traded)  # NY-5: global escalating value
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hand if c not in cards)
    s = state.model_copy(
        update={
            "hands": tuple(hands),
            "discard": state.discard + tuple(cards),
            "pool": state.pool + value,
            "sets_traded": state.sets_traded + 1,
        }
    )
    data: dict[str, Json] = {
        "seat": seat,
        "cards": list(cards),
        "value": value,
        "set_number": s.sets_traded,
    }
    return s, [event(type="traded", data=data)]


def reinforce_place(state: NycState, seat: int, nb: int, n: int) -> Result | Rejection:
    if must_trade(state, seat):
        return reject("action/illegal", "with 5 or more cards you must trade first (NY-6)")
    if state.owner[nb] != seat:
        return reject("action/illegal", "you may only reinforce your own neighborhoods")
    if not 1 <= n <= state.pool:
        return reject("action/illegal", f"you have {state.pool} cubes to place")
    cubes = list(state.cubes)
    cubes[nb] += n  # NY-11: integer counts, unlimited supply
    s = state.model_copy(update={"cubes": tuple(cubes), "pool": state.pool - n})
    events = [event(type="placed", data={"seat": seat, "nb": board.NB_IDS[nb], "n": n})]
    if s.pool > 0:
        return s, events
    s2, more = enter_attack(s)
    return s2, events + more


# ----------------------------------------------------------------------------------------
# Phase changes with automatic skips.
# ----------------------------------------------------------------------------------------


def can_attack(state: NycState, seat: int) -> bool:
    a = adj(state)
    return any(
        state.owner[i] == seat and state.cubes[i] >= 2 and any(state.owner[j] != seat for j in a[i])
        for i in range(board.N_NB)
    )


def can_fortify(state: NycState, seat: int) -> bool:
    a = adj(state)
    return any(
        state.owner[i] == seat and state.cubes[i] >= 2 and any(state.owner[j] == seat for j in a[i])
        for i in range(board.N_NB)
    )


def enter_attack(state: NycState) -> Result:
    s = state.model_copy(update={"phase": "attack", "battle": None, "move_in": None})
    if can_attack(s, s.current):
        return s, []
    return enter_fortify(s)


def enter_fortify(state: NycState) -> Result:
    s = state.model_copy(update={"phase": "fortify", "battle": None, "move_in": None})
    if can_fortify(s, s.current):
        return s, []
    return end_turn(s)


def fortify(state: NycState, seat: int, frm: int, to: int, n: int) -> Result | Rejection:
    """NY-10: one move from one neighborhood to one adjacent one, any number, leaving 1."""
    if state.owner[frm] != seat or state.owner[to] != seat or frm == to:
        return reject("action/illegal", "the free move is between two of your neighborhoods")
    if to not in adj(state)[frm]:
        return reject("action/illegal", "the free move must be to an adjacent neighborhood")
    if not 1 <= n <= state.cubes[frm] - 1:
        return reject("action/illegal", "move 1 or more cubes and leave at least 1 behind")
    cubes = list(state.cubes)
    cubes[frm] -= n
    cubes[to] += n
    s = state.model_copy(update={"cubes": tuple(cubes)})
    data: dict[str, Json] = {
        "seat": seat,
        "from": board.NB_IDS[frm],
        "to": board.NB_IDS[to],
        "n": n,
    }
    s2, more = end_turn(s)
    return s2, [event(type="fortified", data=data), *more]


# ----------------------------------------------------------------------------------------
# End of turn: the card (NY-4), then the next player.
# ----------------------------------------------------------------------------------------


def draw_card(state: NycState) -> Result:
    seat = state.current
    card = state.deck[0]
    hands = list(state.hands)
    hands[seat] = state.hands[seat] + (card,)
    s = state.model_copy(update={"deck": state.deck[1:], "hands": tuple(hands), "card_due": False})
    return s, [
        event(type="card_awarded", data={"seat": seat, "hand_size": len(hands[seat])}),
        event(type="card_drawn", data={"seat": seat, "card": card}, visible_to=(seat,)),
    ]


def end_turn(state: NycState) -> Result:
    s = state.model_copy(update={"phase": "fortify", "battle": None, "move_in": None})
    events: list[Event] = [event(type="turn_ended", data={"seat": s.current, "turn": s.turn})]
    if s.conquered:  # NY-4: only the active player, one card, if they took a neighborhood
        if s.deck:
            s, more = draw_card(s)
            events += more
        elif s.discard:  # the pile ran out: the traded sets are reshuffled into a new pile
            shuffling = s.model_copy(update={"phase": "shuffle_deck", "card_due": True})
            return shuffling, events
        else:
            events.append(event(type="no_card", data={"seat": s.current}))
    s2, more = start_turn(s, next_alive(s, s.current))
    return s2, events + more


def deck_shuffled(state: NycState, perm: tuple[int, ...]) -> Result:
    """The answer to a deck Chance: the initial pile (NY-2) or a reshuffled discard."""
    source = board.CARD_IDS if state.turn == 0 else state.discard
    deck = tuple(source[i] for i in perm)
    s = state.model_copy(
        update={"deck": deck, "discard": (), "deck_shuffles": state.deck_shuffles + 1}
    )
    events = [event(type="deck_shuffled", data={"cards": len(deck)})]
    if state.turn == 0:
        s2, more = start_turn(s, s.first_player)
        return s2, events + more
    s, drawn = draw_card(s)
    s2, more = start_turn(s, next_alive(s, s.current))
    return s2, events + drawn + more
