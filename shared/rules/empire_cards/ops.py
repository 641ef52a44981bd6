"""Small in-place helpers shared by the rule modules (drawing, deck rebuild, events).

Every rule function changes the state it is given (a fresh clone inside ``apply``) and adds
its events to ``events`` (``_kit.model.Events``; a playout's make none).
"""

from __future__ import annotations

from typing import Any

from shared.rules._kit.model import Events
from shared.rules.empire_cards.cards import insert_card, sorted_cards
from shared.rules.empire_cards.data import RUNOUT_DRAW
from shared.rules.empire_cards.state import Owed, State

__all__ = ["Events", "add_to_hand", "draw_cards", "holdings", "opponents_from_left", "owed_to",
           "private", "public", "rebuild_deck", "rebuild_pool", "runout_refill"]


def add_to_hand(state: State, seat: int, cards: tuple[str, ...]) -> None:
    p = state.writable(seat)
    p.hand = insert_card(p.hand, cards[0]) if len(cards) == 1 else sorted_cards(p.hand + cards)


def public(events: Events, event_type: str, /, **data: Any) -> None:
    """A public event (the moves of every turn add theirs with ``events.add`` itself: a
    call less each)."""
    events.add(event_type, data)


def private(events: Events, event_type: str, seats: tuple[int, ...], /, **data: Any) -> None:
    visible: tuple[int, ...]
    if len(seats) == 2:  # the two sides of an exchange, ascending and once each
        a, b = seats
        visible = (a, b) if a < b else (b, a) if b < a else (a,)
    else:
        visible = seats if len(seats) == 1 else tuple(sorted(set(seats)))
    events.add(event_type, data, visible)


def opponents_from_left(state: State, seat: int) -> tuple[int, ...]:
    """The other seats in turn order, starting with the player on ``seat``'s left."""
    return tuple((seat + k) % state.n_seats for k in range(1, state.n_seats))


# ---------------------------------------------------------------- drawing and CG-18


def rebuild_pool(state: State) -> tuple[str, ...]:
    """CG-18: every discard pile except its top card, in seat order (bottom to top)."""
    return tuple(card for p in state.players for card in p.discard[:-1])


def owed_to(state: State, seat: int) -> int:
    return sum(o.count for o in state.owed if o.seat == seat)


def draw_cards(state: State, seat: int, count: int, reason: str, events: Events) -> None:
    """Draw ``count`` cards for ``seat`` from the top of the deck.

    If the deck runs out and the discard piles can rebuild it (CG-18), the rest is owed and
    the next node is the rebuild shuffle; if nothing can be rebuilt the rest is forfeited.
    """
    deck = state.deck
    take = min(count, len(deck))
    cards = deck[:take]
    state.deck = deck[take:]
    if take:
        add_to_hand(state, seat, cards)
        events.add("draw", {"seat": seat, "count": take, "reason": reason})
        events.add("drew", {"seat": seat, "cards": list(cards), "reason": reason}, (seat,))
    short = count - take
    if short > 0:
        if rebuild_pool(state):
            state.owed = (*state.owed, Owed(seat, short))
        else:
            public(events, "draw_short", seat=seat, missing=short, reason=reason)


def rebuild_deck(state: State, perm: tuple[int, ...], events: Events) -> None:
    """Apply the rebuild shuffle, then pay the owed draws in order (CG-18)."""
    pool = rebuild_pool(state)
    state.deck = tuple(pool[i] for i in perm)
    for seat, p in enumerate(state.players):
        if len(p.discard) > 1:
            state.writable(seat).discard = p.discard[-1:]
    owed = state.owed
    state.owed = ()
    state.rebuilds += 1
    public(events, "deck_rebuilt", size=len(state.deck))
    for item in owed:
        draw_cards(state, item.seat, item.count, "owed", events)


def holdings(state: State) -> tuple[int, tuple[bool, ...]]:
    """What ``runout_refill`` compares a move's result with: the hand number and which seats
    held cards before the move."""
    return state.hand_no, tuple([bool(p.hand) for p in state.players])


def runout_refill(before: tuple[int, tuple[bool, ...]], state: State, events: Events) -> None:
    """CG-12 "run out of cards": a hand that became empty draws 6 at once (``before``: the
    ``holdings`` of the state before the move).

    Not applied once the hand is over (the winner's empty hand, or a new deal), nor in the
    middle of an exchange (a trade or a mass trade): the cards come straight back, and the
    check runs again once the exchange completes (nobody ends an exchange empty-handed).
    """
    hand_no, had = before
    if state.phase in ("dealer", "shuffle", "grab", "reward", "over") \
            or state.hand_no != hand_no:
        return
    if state.phase == "trade_reply" or (
        state.spell is not None and state.spell.stage in ("give", "return")
    ):
        return
    for seat, p in enumerate(state.players):
        if had[seat] and not p.hand and owed_to(state, seat) == 0:
            draw_cards(state, seat, RUNOUT_DRAW, "run_out", events)
