"""Turn flow: setup placement, reinforcements (A + B + C), the free move, cards, next turn.

Every rule function changes the state it is given in place (a clone ``apply`` made, see
``state.py``) and adds its events to ``events``. A function that can refuse a move checks
first and returns the Rejection before changing anything (else None). Automatic steps (a
phase with nothing to decide) are chained here so that ``next`` only ever shows a decision
or a Chance.
"""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json, Rejection, reject
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.holdings import Holdings
from shared.rules.empire_nyc.state import NycState, WinReason

NB_IDS = board.NB_IDS


def held(state: NycState) -> Holdings:
    """Who holds what on the state's map (made once per owner tuple: a cache on the state,
    not part of it)."""
    h = state.holdings
    if h is None or h.owner is not state.owner:
        h = state.holdings = Holdings(state.owner, state.seldom.options.extra_links)
    return h


def owned(state: NycState, seat: int) -> tuple[int, ...]:
    return held(state).owned(seat)


def adj(state: NycState) -> tuple[frozenset[int], ...]:
    return board.ADJ_EXTRA if state.seldom.options.extra_links else board.ADJ_BASE  # adjacency


def next_alive(state: NycState, seat: int) -> int:
    """The next seat in turn order after ``seat`` that is still in the game."""
    order = state.seldom.order
    k = order.index(seat)
    if not state.seldom.eliminated:  # everyone is in the game
        return order[(k + 1) % len(order)]
    for step in range(1, len(order) + 1):
        cand = order[(k + step) % len(order)]
        if state.alive(cand):
            return cand
    return seat  # pragma: no cover - the game ends before the last opponent leaves


def add_cubes(state: NycState, nb: int, n: int) -> None:
    cubes = list(state.cubes)
    cubes[nb] += n
    state.cubes = tuple(cubes)


# ----------------------------------------------------------------------------------------
# Setup (NY-1): one cube at a time in turn order.
# ----------------------------------------------------------------------------------------


def setup_place(state: NycState, seat: int, nb: int, n: int, events: Events) -> Rejection | None:
    if n != 1:
        return reject("action/illegal", "setup cubes are placed one at a time (NY-1)")
    if state.owner[nb] != seat:
        return reject("action/illegal", "you may only place on your own neighborhoods")
    setup_placed(state, seat, nb, events)
    return None


def setup_placed(state: NycState, seat: int, nb: int, events: Events) -> None:
    """A legal setup cube (``setup_place`` checks it; a listed one is legal)."""
    add_cubes(state, nb, 1)
    seldom = state.own_seldom()
    to_place = list(seldom.to_place)
    to_place[seat] -= 1
    seldom.to_place = tuple(to_place)
    events.add("placed", {"seat": seat, "nb": board.NB_IDS[nb], "n": 1})
    order = seldom.order
    k = order.index(seat)
    for step in range(1, len(order) + 1):
        cand = order[(k + step) % len(order)]
        if to_place[cand] > 0:
            state.current = cand
            return
    # NY-2: every cube is down; the 42 cards and the River Wilds become one shuffled pile.
    state.phase, state.current = "shuffle_deck", -1


# ----------------------------------------------------------------------------------------
# Start of turn: reinforcements A + B (NY-3), mission check (NY-12).
# ----------------------------------------------------------------------------------------


def game_over(state: NycState, winner: int | None, reason: WinReason) -> None:
    seldom = state.own_seldom()
    state.phase, seldom.winner, seldom.win_reason = "over", winner, reason
    state.battle = state.move_in = None
    state.pool = 0


def finish(state: NycState, seat: int, reason: WinReason, events: Events) -> None:
    data: dict[str, Json] = {"winner": seat, "reason": reason}
    if reason == "mission":  # the winning card is revealed, the others stay hidden (NY-12)
        mission = state.seldom.missions[seat]
        data["mission"] = mission
        data["boroughs"] = list(board.MISSION_BOROUGHS[mission])
    game_over(state, seat, reason)
    events.add("game_over", data)


def has_won(state: NycState, seat: int) -> WinReason | None:
    """'map' for the whole map, 'mission' for a completed occupation mission (NY-12)."""
    if len(owned(state, seat)) == board.N_NB:
        return "map"
    seldom = state.seldom
    if seldom.options.missions and board.holds_boroughs(
        state.owner, seat, board.MISSION_BOROUGHS[seldom.missions[seat]]
    ):
        return "mission"
    return None


def reinforcements(state: NycState, seat: int) -> tuple[int, int, dict[str, Json]]:
    """(part A, part B, borough bonuses) for ``seat`` now."""
    h = held(state)
    a = board.base_reinforcement(len(h.owned(seat)))  # NY-3: minimum 3 of part A only
    bonuses = board.borough_bonus_of(h.mask(seat))
    return a, sum(v for _, v in bonuses), {b: v for b, v in bonuses}


def round_limit_leader(state: NycState) -> int | None:
    """NY-S1: the one player with the most neighborhoods, then cubes (None: a tie)."""
    cubes = state.cubes
    keys = {
        s: (len(mine := owned(state, s)), sum(cubes[i] for i in mine))
        for s in range(state.seldom.n_seats)
        if state.alive(s)
    }
    best = max(keys.values())
    leaders = [s for s, k in keys.items() if k == best]
    return leaders[0] if len(leaders) == 1 else None


def finish_round_limit(state: NycState, events: Events) -> None:
    """NY-S1: the last round is over; the leader wins (a tie: no winner, shared first place)."""
    leader = round_limit_leader(state)
    game_over(state, leader, "round_limit")
    events.add("game_over", {"winner": leader, "reason": "round_limit", "rounds": state.round})


def start_turn(state: NycState, seat: int, events: Events) -> None:
    seldom = state.seldom
    order = seldom.order
    wraps = state.current < 0 or order.index(seat) <= order.index(state.current)
    limit = seldom.options.max_rounds
    if wraps and limit is not None and state.round >= limit:  # NY-S1
        finish_round_limit(state, events)
        return
    state.current = seat
    state.turn += 1
    if wraps:
        state.round += 1
    state.attacks = 0
    state.conquered = False
    state.battle = state.move_in = None
    state.phase = "reinforce"
    reason = has_won(state, seat)
    if reason is not None:  # NY-12: a mission already complete wins at the start of a turn
        finish(state, seat, reason, events)
        return
    a, b, bonuses = reinforcements(state, seat)
    state.pool = a + b
    events.add("turn_started", {
        "seat": seat,
        "turn": state.turn,
        "neighborhoods": len(owned(state, seat)),
        "base": a,
        "boroughs": bonuses,
        "reinforcements": a + b,
    })


# ----------------------------------------------------------------------------------------
# Reinforce: trades (C) and placement.
# ----------------------------------------------------------------------------------------


def must_trade(state: NycState, seat: int) -> bool:
    """NY-6: trading is optional unless the 'Risk classic' flag forces it at 5+ cards."""
    seldom = state.seldom
    return seldom.options.forced_trade and len(seldom.hands[seat]) >= 5


def trade(state: NycState, seat: int, cards: tuple[str, str, str], events: Events
          ) -> Rejection | None:
    hand = state.seldom.hands[seat]
    if len(set(cards)) != 3 or any(c not in hand for c in cards):
        return reject("action/illegal", "you must hold three different cards to trade")
    if not board.is_set(cards):
        return reject("action/illegal", "not a set: three of a kind or one of each pest")
    traded(state, seat, cards, events)
    return None


def traded(state: NycState, seat: int, cards: tuple[str, str, str], events: Events) -> None:
    """A legal set (``trade`` checks it; a listed one is legal)."""
    seldom = state.own_seldom()
    hand = seldom.hands[seat]
    value = board.set_value(seldom.sets_traded)  # NY-5: global escalating value
    hands = list(seldom.hands)
    hands[seat] = tuple(c for c in hand if c not in cards)
    seldom.hands = tuple(hands)
    seldom.discard += tuple(cards)
    state.pool += value
    seldom.sets_traded += 1
    events.add("traded", {"seat": seat, "cards": list(cards), "value": value,
                          "set_number": seldom.sets_traded})


def reinforce_place(state: NycState, seat: int, nb: int, n: int, events: Events
                    ) -> Rejection | None:
    if must_trade(state, seat):
        return reject("action/illegal", "with 5 or more cards you must trade first (NY-6)")
    if state.owner[nb] != seat:
        return reject("action/illegal", "you may only reinforce your own neighborhoods")
    if not 1 <= n <= state.pool:
        return reject("action/illegal", f"you have {state.pool} cubes to place")
    placed(state, seat, nb, n, events)
    return None


def placed(state: NycState, seat: int, nb: int, n: int, events: Events) -> None:
    """Legal reinforcements (``reinforce_place`` checks them; listed ones are legal)."""
    cubes = list(state.cubes)  # NY-11: integer counts, unlimited supply
    cubes[nb] += n
    state.cubes = tuple(cubes)
    state.pool -= n
    events.add("placed", {"seat": seat, "nb": NB_IDS[nb], "n": n})
    if state.pool == 0:
        enter_attack(state, events)


# ----------------------------------------------------------------------------------------
# Phase changes with automatic skips.
# ----------------------------------------------------------------------------------------


def can_attack(state: NycState, seat: int) -> bool:
    cubes = state.cubes
    for i, _ in held(state).front(seat):  # noqa: SIM110 - a loop: no generator per call
        if cubes[i] >= 2:
            return True
    return False


def can_fortify(state: NycState, seat: int) -> bool:
    h, cubes = held(state), state.cubes
    adj, mine = h.adj, h.mask(seat)
    return any(cubes[i] >= 2 and adj[i] & mine for i in h.owned(seat))  # with ``friends``


def enter_attack(state: NycState, events: Events) -> None:
    state.phase = "attack"
    state.battle = state.move_in = None
    if not can_attack(state, state.current):
        enter_fortify(state, events)


def enter_fortify(state: NycState, events: Events) -> None:
    state.phase = "fortify"
    state.battle = state.move_in = None
    if not can_fortify(state, state.current):
        end_turn(state, events)


def fortify(state: NycState, seat: int, frm: int, to: int, n: int, events: Events
            ) -> Rejection | None:
    """NY-10: one move from one neighborhood to one adjacent one, any number, leaving 1."""
    if state.owner[frm] != seat or state.owner[to] != seat or frm == to:
        return reject("action/illegal", "the free move is between two of your neighborhoods")
    if to not in adj(state)[frm]:
        return reject("action/illegal", "the free move must be to an adjacent neighborhood")
    if not 1 <= n <= state.cubes[frm] - 1:
        return reject("action/illegal", "move 1 or more cubes and leave at least 1 behind")
    fortified(state, seat, frm, to, n, events)
    return None


def fortified(state: NycState, seat: int, frm: int, to: int, n: int, events: Events) -> None:
    """A legal free move (``fortify`` checks it; a listed one is legal)."""
    cubes = list(state.cubes)
    cubes[frm] -= n
    cubes[to] += n
    state.cubes = tuple(cubes)
    events.add("fortified", {"seat": seat, "from": NB_IDS[frm], "to": NB_IDS[to], "n": n})
    end_turn(state, events)


# ----------------------------------------------------------------------------------------
# End of turn: the card (NY-4), then the next player.
# ----------------------------------------------------------------------------------------


def draw_card(state: NycState, events: Events) -> None:
    seat = state.current
    seldom = state.own_seldom()
    card = seldom.deck[0]
    hands = list(seldom.hands)
    hands[seat] = seldom.hands[seat] + (card,)
    seldom.hands = tuple(hands)
    seldom.deck = seldom.deck[1:]
    seldom.card_due = False
    events.add("card_awarded", {"seat": seat, "hand_size": len(hands[seat])})
    events.add("card_drawn", {"seat": seat, "card": card}, (seat,))


def end_turn(state: NycState, events: Events) -> None:
    state.phase = "fortify"
    state.battle = state.move_in = None
    events.add("turn_ended", {"seat": state.current, "turn": state.turn})
    if state.conquered:  # NY-4: only the active player, one card, if they took a neighborhood
        seldom = state.seldom
        if seldom.deck:
            draw_card(state, events)
        elif seldom.discard:  # the pile ran out: the traded sets are reshuffled into a new pile
            state.phase = "shuffle_deck"
            state.own_seldom().card_due = True
            return
        else:
            events.add("no_card", {"seat": state.current})
    start_turn(state, next_alive(state, state.current), events)


def deck_shuffled(state: NycState, perm: tuple[int, ...], events: Events) -> None:
    """The answer to a deck Chance: the initial pile (NY-2) or a reshuffled discard."""
    first = state.turn == 0
    seldom = state.own_seldom()
    source = board.CARD_IDS if first else seldom.discard
    seldom.deck = tuple(source[i] for i in perm)
    seldom.discard = ()
    seldom.deck_shuffles += 1
    events.add("deck_shuffled", {"cards": len(seldom.deck)})
    if first:
        start_turn(state, seldom.first_player, events)
        return
    draw_card(state, events)
    start_turn(state, next_alive(state, state.current), events)
