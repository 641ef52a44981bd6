"""Small state-update helpers shared by the rule modules (drawing, deck rebuild, events)."""

from __future__ import annotations

from typing import Any

from shared.rules._kit.model import event
from shared.rules.api import Event
from shared.rules.empire_cards.cards import sorted_cards
from shared.rules.empire_cards.data import RUNOUT_DRAW
from shared.rules.empire_cards.state import Owed, Player, State

Events = list[Event]


def set_player(state: State, seat: int, **update: Any) -> State:
    players = list(state.players)
    players[seat] = players[seat].model_copy(update=update)
    return state.model_copy(update={"players": tuple(players)})


def add_to_hand(state: State, seat: int, cards: tuple[str, ...]) -> State:
    return set_player(state, seat, hand=sorted_cards(state.players[seat].hand + cards))


def public(event_type: str, /, **data: Any) -> Event:
    return event(type=event_type, data=data)


def private(event_type: str, seats: tuple[int, ...], /, **data: Any) -> Event:
    return event(type=event_type, data=data, visible_to=tuple(sorted(set(seats))))


def opponents_from_left(state: State, seat: int) -> tuple[int, ...]:
    """The other seats in turn order, starting with the player on ``seat``'s left."""
    return tuple((seat + k) % state.n_seats for k in range(1, state.n_seats))


# ---------------------------------------------------------------- drawing and CG-18


def rebuild_pool(state: State) -> tuple[str, ...]:
    """CG-18: every discard pile except its top card, in seat order (bottom to top)."""
    return tuple(card for p in state.players for card in p.discard[:-1])


def owed_to(state: State, seat: int) -> int:
    return sum(o.count for o in state.owed if o.seat == seat)


def draw_cards(state: State, seat: int, count: int, reason: str, events: Events) -> State:
    """Draw ``count`` cards for ``seat`` from the top of the deck.

    If the deck runs out and the discard piles can rebuild it (CG-18), the rest is owed and
    the next node is the rebuild shuffle; if nothing can be rebuilt the rest is forfeited.
    """
    take = min(count, len(state.deck))
    cards, rest = state.deck[:take], state.deck[take:]
    state = add_to_hand(state.model_copy(update={"deck": rest}), seat, cards)
    if take:
        events.append(public("draw", seat=seat, count=take, reason=reason))
        events.append(private("drew", (seat,), seat=seat, cards=list(cards), reason=reason))
    short = count - take
    if short > 0:
        if rebuild_pool(state):
            state = state.model_copy(update={"owed": (*state.owed, Owed(seat=seat, count=short))})
        else:
            events.append(public("draw_short", seat=seat, missing=short, reason=reason))
    return state


def rebuild_deck(state: State, perm: tuple[int, ...], events: Events) -> State:
    """Apply the rebuild shuffle, then pay the owed draws in order (CG-18)."""
    pool = rebuild_pool(state)
    deck = tuple(pool[i] for i in perm)
    players = tuple(p.model_copy(update={"discard": p.discard[-1:]}) for p in state.players)
    owed = state.owed
    state = state.model_copy(
        update={"deck": deck, "players": players, "owed": (), "rebuilds": state.rebuilds + 1}
    )
    events.append(public("deck_rebuilt", size=len(deck)))
    for item in owed:
        state = draw_cards(state, item.seat, item.count, "owed", events)
    return state


def runout_refill(before: State, after: State, events: Events) -> State:
    """CG-12 "run out of cards": a hand that became empty draws 6 at once.

    Not applied once the hand is over (the winner's empty hand, or a new deal), nor in the
    middle of an exchange (a trade or a mass trade): the cards come straight back, and the
    check runs again once the exchange completes (nobody ends an exchange empty-handed).
    """
    if after.phase in ("dealer", "shuffle", "grab", "reward", "over") \
            or after.hand_no != before.hand_no:
        return after
    if after.phase == "trade_reply" or (
        after.spell is not None and after.spell.stage in ("give", "return")
    ):
        return after
    for seat in range(after.n_seats):
        was: Player = before.players[seat]
        now: Player = after.players[seat]
        if was.hand and not now.hand and owed_to(after, seat) == 0:
            after = draw_cards(after, seat, RUNOUT_DRAW, "run_out", events)
    return after
