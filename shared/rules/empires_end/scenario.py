"""Pure builders of Empire's End positions for tests, tutorials and debugging.

Every position starts from a real ``setup`` answered with chosen ``ChanceOutcome`` values,
so it is a state the engine can reach; edits below keep every card in exactly one place.
Each edit returns a changed copy (``dataclasses.replace``, new players): the state given
is left as it was, like the engine's own moves leave it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from shared.rules._kit.model import Events
from shared.rules.api import Act, Chance, ChanceOutcome, Event, Json, Move, Rejection
from shared.rules.empires_end import GAME
from shared.rules.empires_end.data import CARD_IDS, CONFLICT_IDS, HAND_SIZE, TILE_IDS
from shared.rules.empires_end.state import Innovation, Location, Player, Res, State


def _arrange(ids: tuple[str, ...], first: Iterable[str]) -> tuple[int, ...]:
    """A permutation (indices into ``ids``) with ``first`` on top, the rest in table order."""
    top = list(first)
    rest = [x for x in ids if x not in top]
    return tuple(ids.index(x) for x in (*top, *rest))


def new_game(
    n: int,
    *,
    order: Iterable[str] | None = None,
    first: int = 0,
    hands: Iterable[Iterable[str]] | None = None,
    deck: Iterable[str] = (),
    conflicts: Iterable[str] = (),
    options: dict[str, Json] | None = None,
) -> State:
    """A game after setup, at the start of phase 1. ``hands``: per seat (dealt clockwise from
    the first player); ``deck``: the cards on top of the disaster deck after the deal."""
    state = GAME.setup(options or {}, n)
    top = list(deck)
    dealt: list[str] = []
    if hands is not None:
        by_seat = [list(h) for h in hands]
        for k in range(n):
            dealt.extend(by_seat[(first + k) % n])
    else:  # the first cards (table order) that are not wanted on the deck
        dealt = [c for c in CARD_IDS if c not in top][: HAND_SIZE * n]
    values = {
        "locations:order:shuffle": _arrange(TILE_IDS, order or TILE_IDS),
        "first_player:below": (first,),
        "deck:disaster:shuffle:0": _arrange(CARD_IDS, [*dealt, *top]),
        "deck:conflict:shuffle:0": _arrange(CONFLICT_IDS, conflicts),
    }
    while state.phase_index < 0:
        node = GAME.next(state)
        assert isinstance(node, Chance)
        state, _ = run(state, ChanceOutcome(label=node.label, values=values[node.label]))
    return state


def run(state: State, *moves: Move | tuple[int, Json]) -> tuple[State, list[Event]]:
    """Apply moves (``(seat, action)`` pairs are Acts); raises on a Rejection."""
    events: list[Event] = []
    for move in moves:
        m = Act(seat=move[0], action=move[1]) if isinstance(move, tuple) else move
        result = GAME.apply(state, m)
        if isinstance(result, Rejection):
            raise AssertionError(f"rejected {m!r}: {result.code} {result.message}")
        state = result.state
        events.extend(result.events)
    return state, events


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    """``legal_actions`` typed for convenient indexing."""
    return [a for a in GAME.legal_actions(state, seat) if isinstance(a, dict)]


def view(state: State, seat: int | None) -> dict[str, Any]:
    """``view`` typed for convenient indexing."""
    return dict(GAME.view(state, seat))


def data(events: Iterable[Event], kind: str) -> list[dict[str, Any]]:
    """The data of the events of one type, in order."""
    return [dict(e.data) for e in events if e.type == kind]


def goto_phase(state: State, number: int) -> tuple[State, list[Event]]:
    """Jump to the start of phase ``number`` (1-based) of the track, as if the previous
    phase had just ended (no other change)."""
    events = Events()
    state = replace(state, phase_index=number - 2, disaster=None, work=())
    return GAME.start_phase(state, events), events.out


def with_player(state: State, seat: int, player: Player) -> State:
    """A copy of ``state`` with ``player`` in ``seat``."""
    players = list(state.players)
    players[seat] = player
    return replace(state, players=tuple(players))


def _take_card(state: State, card: str) -> State:
    """Remove ``card`` from wherever it is (deck, discard, hands, empires)."""
    players = []
    for p in state.players:
        empire = tuple(
            replace(loc, innovations=tuple(i for i in loc.innovations if i.card != card))
            for loc in p.empire
        )
        hand = tuple(c for c in p.hand if c != card)
        players.append(replace(p, empire=empire, hand=hand))
    return replace(
        state,
        players=tuple(players),
        deck=tuple(c for c in state.deck if c != card),
        discard=tuple(c for c in state.discard if c != card),
    )


def stack_deck(state: State, *cards: str) -> State:
    """Put ``cards`` on top of the disaster deck (in that order)."""
    for card in cards:
        state = _take_card(state, card)
    return replace(state, deck=(*cards, *state.deck))


def set_hand(state: State, seat: int, *cards: str) -> State:
    """Give ``seat`` exactly ``cards``; its old hand goes back under the deck."""
    old = state.players[seat].hand
    for card in cards:
        state = _take_card(state, card)
    p = state.players[seat]
    state = with_player(state, seat, replace(p, hand=tuple(cards)))
    back = tuple(c for c in old if c not in cards)
    return replace(state, deck=(*state.deck, *back))


def set_res(state: State, seat: int, **res: int) -> State:
    return with_player(state, seat, replace(state.players[seat], res=Res(**res)))


def set_vp(state: State, seat: int, vp: int) -> State:
    p = state.players[seat]
    return with_player(state, seat, replace(p, vp=vp))


def set_empire(
    state: State,
    seat: int,
    *,
    order: Iterable[str] | None = None,
    destroyed: Iterable[str] = (),
    innovations: Mapping[str, Iterable[str]] | None = None,
    exhausted: Iterable[str] = (),
) -> State:
    """Rebuild one empire: tile order, destroyed tiles, innovations per tile (taken from
    wherever they were; innovations no longer listed go to the discard pile), exhausted
    innovations. ``innovations`` None keeps the current ones."""
    p = state.players[seat]
    tiles = tuple(order) if order is not None else tuple(loc.tile for loc in p.empire)
    old = {loc.tile: [i.card for i in loc.innovations] for loc in p.empire}
    tired = set(exhausted) | {i.card for loc in p.empire for i in loc.innovations if i.exhausted}
    wanted = {t: list(c) for t, c in (innovations or old).items()}
    listed = {c for cards in wanted.values() for c in cards}
    dropped = [c for cards in old.values() for c in cards if c not in listed]
    for card in listed:
        state = _take_card(state, card)
    dead = set(destroyed)
    empire = tuple(
        Location(
            tile=t,
            healthy=t not in dead,
            innovations=tuple(Innovation(card=c, exhausted=c in tired) for c in wanted.get(t, ())),
        )
        for t in tiles
    )
    state = replace(state, discard=(*state.discard, *dropped))
    p = state.players[seat]
    return with_player(state, seat, replace(p, empire=empire))


def cards_everywhere(state: State) -> list[str]:
    """Every disaster card in the state, wherever it is (for accounting checks)."""
    out = [*state.deck, *state.discard]
    for p in state.players:
        out.extend(p.hand)
        out.extend(i.card for loc in p.empire for i in loc.innovations)
    if state.disaster is not None:
        out.extend(s.card for s in state.disaster.slots if s.card is not None)
        res = state.disaster.resolution
        if res is not None and res.stage != "shore":  # placed (or discarded) by then
            out.append(res.card)
    return out
