"""Disaster and Double Disaster phases: reveal, clockwise pass-by-bidding or take, resolution.

Turn structure (EEND-6, EEND-7, EEND-26): the bidder must address every open disaster (bid
= pass, free bid = pass, or take) in either order; replace abilities may be used before or
after that during the same turn (an ``end_turn`` action is offered only while a replace is
still possible). A take is resolved at once: bids to the taker, destroy (EEND-4), place the
innovation for free (EEND-25, EEND-5), then the low-resources choice (EEND-9). The steps
change the state in place (a clone, see ``state.py``).
"""

from __future__ import annotations

from typing import Literal

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import ActJson
from shared.rules.empires_end.data import (
    CARD,
    LOW_RESOURCES,
    LOW_RESOURCES_VP_PER_COIN,
    RESOURCES,
    TILE,
)
from shared.rules.empires_end.state import (
    FRESH,
    DisasterPhase,
    Location,
    State,
    empty_slot,
    location,
    resolution,
)


def start(state: State, double: bool) -> None:
    """Open the phase: one (or two) disasters to reveal; bidding starts at the first player."""
    slots = (empty_slot(False), empty_slot(False)) if double else (empty_slot(False),)
    state.disaster = DisasterPhase(slots, state.first)


def _dp(state: State) -> DisasterPhase:
    assert state.disaster is not None
    return state.disaster


def open_slots(dp: DisasterPhase) -> list[int]:
    return [i for i, s in enumerate(dp.slots) if s.card is not None and not s.closed]


def pending_reveal(dp: DisasterPhase) -> int | None:
    for i, s in enumerate(dp.slots):
        if s.card is None and not s.closed:
            return i
    return None


def usable(state: State, seat: int, kind: str) -> list[str]:
    """Healthy, unexhausted Disaster-phase innovations of ``kind`` (exhaust abilities)."""
    p = state.players[seat]
    out = []
    for pos, ref, ab in board.active(p, "disaster"):
        if ab.kind == kind:
            inn = board.innovation_at(p.empire[pos], ref)
            if inn is not None and not inn.exhausted:
                out.append(ref)
    return out


def _replace_options(state: State, seat: int) -> list[Json]:
    dp = state.disaster
    assert dp is not None
    return [
        {"type": "replace", "disaster": i, "card": ref}
        for ref in usable(state, seat, "replace_disaster")
        for i in open_slots(dp)
    ]


def _can_replace(state: State, seat: int, dp: DisasterPhase) -> bool:
    """``_replace_options`` is not empty."""
    if not _exhaustible(state, seat)[1]:
        return False
    return any(s.card is not None and not s.closed for s in dp.slots)


def awaited(state: State) -> int:
    dp = state.disaster
    assert dp is not None
    return dp.resolution.seat if dp.resolution is not None else dp.bidder


# The listed actions without a card or tile choice, each dict made once and shared by every
# list that offers it (a listed action is never changed, as a state is never changed).
_BIDS: dict[tuple[int, str], Json] = {
    (i, r): {"type": "bid", "disaster": i, "resource": r} for i in (0, 1) for r in RESOURCES}
_TAKES: tuple[Json, ...] = tuple({"type": "take", "disaster": i} for i in (0, 1))
_SHORE: tuple[Json, ...] = tuple({"type": "shore_up", "coins": k} for k in range(LOW_RESOURCES + 1))
_END_TURN: Json = {"type": "end_turn"}
_DESTROY: dict[str, Json] = {t: {"type": "destroy", "tile": t} for t in TILE}
_PLACE: dict[str, Json] = {t: {"type": "place", "tile": t} for t in TILE}
# card id -> the resources a bid on it may use, in list order (coins are wild, EEND-26)
_BID_WITH: dict[str, tuple[str, ...]] = {
    c: tuple(r for r in (*CARD[c].bids, "coin") if r != "coin" or "coin" not in CARD[c].bids)
    for c in CARD}


# card id -> for each disaster slot, (resource, listed bid) of each bid it may take
_BID_ROWS: dict[str, tuple[tuple[tuple[str, Json], ...], ...]] = {
    c: tuple(tuple((r, _BIDS[(i, r)]) for r in _BID_WITH[c]) for i in (0, 1)) for c in CARD}


_NOTHING: tuple[list[str], list[str]] = ([], [])  # (read, never changed)


def _exhaustible(state: State, seat: int) -> tuple[list[str], list[str]]:
    """``usable(state, seat, "free_bid")`` and ``usable(state, seat, "replace_disaster")``,
    in one pass."""
    p = state.players[seat]
    abilities = board.active(p, "disaster")
    if not abilities:  # (most empires: no Disaster ability at all)
        return _NOTHING
    free: list[str] = []
    replace: list[str] = []
    for pos, ref, ab in abilities:
        kind = ab.kind
        if kind == "free_bid" or kind == "replace_disaster":
            for inn in p.empire[pos].innovations:  # ``board.innovation_at``, written out
                if inn.card == ref:
                    if not inn.exhausted:
                        (free if kind == "free_bid" else replace).append(ref)
                    break
    return free, replace


def legal(state: State, seat: int) -> list[Json]:
    dp = state.disaster
    assert dp is not None
    res = dp.resolution
    if res is not None:
        if seat != res.seat:
            return []
        # (each choice's listed action looked up in C, without a comprehension's frame)
        if res.stage == "destroy":
            return list(map(_DESTROY.__getitem__, res.choices))
        if res.stage == "place":
            return list(map(_PLACE.__getitem__, res.choices))
        most = LOW_RESOURCES - state.players[seat].res.total()
        return list(_SHORE[:most + 1]) if most > 0 else [_SHORE[0]]
    if seat != dp.bidder:
        return []
    stash = state.players[seat].res
    out: list[Json] = []
    addressed = dp.addressed
    slots = dp.slots
    opened = []  # ``open_slots``, written out (a comprehension is a frame of its own)
    for i, s in enumerate(slots):
        if s.card is not None and not s.closed:
            opened.append(i)
    free, replacers = _exhaustible(state, seat)
    for i in opened:
        if i in addressed:
            continue
        card = slots[i].card or ""
        for r, bid in _BID_ROWS[card][i]:
            if getattr(stash, r) > 0:
                out.append(bid)
        if free:
            bids = CARD[card].bids
            for ref in free:  # EEND-8: any accepted resource
                if CARD[ref].ability.resource in bids:
                    out.append({"type": "free_bid", "disaster": i, "card": ref})
        out.append(_TAKES[i])  # EEND-3: always possible
    if replacers and opened:  # EEND-7 (``_replace_options``)
        out += [{"type": "replace", "disaster": i, "card": ref}
                for ref in replacers for i in opened]
        for i in opened:
            if i not in addressed:
                break
        else:
            out.append(_END_TURN)
    return out


def default(state: State, seat: int) -> Json:
    """Timeout: keep the screen up, first destroy/place choice, otherwise pass (bid) or take."""
    actions = legal(state, seat)
    for kind in ("shore_up", "destroy", "place", "free_bid", "bid", "end_turn", "take"):
        for a in actions:
            if isinstance(a, dict) and a.get("type") == kind:
                return a
    return actions[0]


# --- applying ---------------------------------------------------------------------------


def apply(state: State, seat: int, a: ActJson, events: Events) -> None:
    """Apply a legal disaster-phase action, as its JSON, in place (legality
    is checked by the caller)."""
    dp = state.disaster
    assert dp is not None
    kind = a["type"]
    if kind == "bid":
        i, r = a["disaster"], a["resource"]
        res = state.writable(seat).res
        setattr(res, r, getattr(res, r) - 1)
        pool = dp.writable(i).pool
        setattr(pool, r, getattr(pool, r) + 1)
        dp.addressed = (*dp.addressed, i)
        events.add("bid", {"seat": seat, "disaster": i, "resource": r})
    elif kind == "take":
        _take(state, seat, a["disaster"], events)
    elif kind == "shore_up":
        _shore_up(state, seat, a["coins"], events)
        dp.resolution = None
    elif kind == "place":
        pos = board.position_of_tile(state.players[seat].empire, a["tile"])
        _place(state, seat, pos, events)
        _set_stage(state, "shore")
        _progress(state, events)
    elif kind == "destroy":
        pos = board.position_of_tile(state.players[seat].empire, a["tile"])
        _destroy(state, seat, pos, events)
        _set_stage(state, "place")
        _progress(state, events)
    elif kind == "free_bid":  # EEND-8: covers one pass, adds no token
        board.set_exhausted(state.writable(seat), a["card"], True)
        dp.addressed = (*dp.addressed, a["disaster"])
        events.add("free_bid", {"seat": seat, "disaster": a["disaster"], "card": a["card"]})
    elif kind == "replace":  # EEND-7: bids stay with the new disaster
        old = dp.writable(a["disaster"])
        board.set_exhausted(state.writable(seat), a["card"], True)
        state.discard = (*state.discard, old.card or "")
        events.add("disaster_replaced", {"seat": seat, "disaster": a["disaster"],
                                         "card": old.card, "by": a["card"]})
        old.card = None
    else:
        assert kind == "end_turn"
        next_bidder(state)


def next_bidder(state: State) -> None:
    dp = state.disaster
    assert dp is not None
    dp.bidder = (dp.bidder + 1) % state.n
    dp.addressed = ()


def _take(state: State, seat: int, i: int, events: Events) -> None:
    dp = state.disaster
    assert dp is not None
    slot = dp.slots[i]
    card = slot.card or ""
    state.writable(seat).res.gain_res(slot.pool)
    slots = list(dp.slots)
    slots[i] = empty_slot(True)
    dp.slots = tuple(slots)
    dp.addressed = (*dp.addressed, i)
    events.add("disaster_taken", {"seat": seat, "disaster": i, "card": card,
                                  "bids": slot.pool.as_dict()})
    for s in dp.slots:  # none open (``open_slots``) and none to reveal (``pending_reveal``)
        if not s.closed:
            break
    else:  # The first-player marker goes to the taker (the later taker in a double, EEND-6).
        state.first = seat
        events.add("first_player", {"seat": seat})
    dp.resolution = resolution(seat, card, CARD[card].target - 1, "destroy")
    _progress(state, events)


def _set_stage(state: State, stage: Literal["place", "shore"]) -> None:
    dp = state.disaster
    assert dp is not None
    res = dp.resolution
    assert res is not None
    dp.resolution = resolution(res.seat, res.card, res.target, stage, ())


def _with_choices(dp: DisasterPhase, choices: tuple[str, ...]) -> None:
    res = dp.resolution
    assert res is not None
    dp.resolution = resolution(res.seat, res.card, res.target, res.stage, choices)


def _tiles(empire: tuple[Location, ...], positions: list[int]) -> tuple[str, ...]:
    """The tiles at ``positions`` (a loop: a comprehension is a function made and called)."""
    tiles = []
    for q in positions:
        tiles.append(empire[q].tile)
    return tuple(tiles)


def _progress(state: State, events: Events) -> None:
    """Resolve the take's steps until one needs the taker's choice (the resolution made
    once, at the step it stops at)."""
    dp = state.disaster
    assert dp is not None
    res = dp.resolution
    assert res is not None
    seat, stage = res.seat, res.stage
    p = state.writable(seat)  # (``_destroy`` and ``_place`` change this same player)
    if stage == "destroy":
        cands = board.destroy_candidates(p.empire, res.target)  # EEND-4
        if len(cands) > 1:
            _with_choices(dp, _tiles(p.empire, cands))
            return
        _destroy(state, seat, cands[0] if cands else None, events)
        stage = "place"
    if stage == "place":
        cands = board.placement_candidates(p.empire)
        if len(cands) > 1:
            dp.resolution = resolution(seat, res.card, res.target, "place",
                                       _tiles(p.empire, cands))
            return
        _place(state, seat, cands[0] if cands else None, events)  # (reads res.card)
    if not state.options.low_resources_rule:
        dp.resolution = None
    elif stage != "shore":
        dp.resolution = resolution(seat, res.card, res.target, "shore", ())
    # Else always asked (even with 5+ tokens, where only 0 is legal) so that waiting for
    # the choice does not reveal a hidden total below 5 (EEND-21).


def _destroy(state: State, seat: int, pos: int | None, events: Events) -> None:
    if pos is None:  # EEND-4: no healthy location left; resources were still gained
        events.add("nothing_destroyed", {"seat": seat})
        return
    p = state.writable(seat)
    loc = p.empire[pos]
    board.set_location(p, pos, location(loc.tile, False, loc.innovations))
    events.add("location_destroyed", {"seat": seat, "tile": loc.tile, "position": pos + 1})


def _place(state: State, seat: int, pos: int | None, events: Events) -> None:
    """EEND-25: a taken innovation is placed for free; EEND-5: no healthy location = discard."""
    res = _dp(state).resolution
    assert res is not None
    if pos is None:
        events.add("innovation_discarded", {"seat": seat, "card": res.card})
        state.discard = (*state.discard, res.card)
        return
    p = state.writable(seat)
    loc = p.empire[pos]
    events.add("innovation_placed", {"seat": seat, "card": res.card, "tile": loc.tile})
    board.set_location(p, pos, location(loc.tile, loc.healthy,
                                        (*loc.innovations, FRESH[res.card])))


def _shore_up(state: State, seat: int, coins: int, events: Events) -> None:
    """EEND-9: reveal the stash, then 2 VP per coin until the total is 5 (VP may go < 0)."""
    if coins <= 0:
        return
    p = state.writable(seat)
    events.add("screen_lifted", {"seat": seat, "resources": p.res.as_dict(),
                                 "coins_bought": coins})
    p.res.coin += coins
    p.vp -= LOW_RESOURCES_VP_PER_COIN * coins


# --- automatic steps --------------------------------------------------------------------


def settle(state: State, events: Events) -> bool:
    """Reveal pending cards, pass finished turns on (in place). Returns whether the phase is
    over; stops early when a reshuffle is needed (the engine then asks for a Chance)."""
    while True:
        dp = state.disaster
        assert dp is not None
        # in one pass: ``pending_reveal`` (i), and unless one is pending, whether any disaster
        # is open (``open_slots``) and whether one of them is not addressed yet (the turn
        # goes on)
        i = None
        opened = waiting = False
        addressed = dp.addressed
        for j, slot in enumerate(dp.slots):
            if slot.closed:
                continue
            if slot.card is None:
                i = j
                break
            opened = True
            if j not in addressed:
                waiting = True
        if i is not None:
            if state.deck:
                card = state.deck[0]
                state.deck = state.deck[1:]
                dp.writable(i).card = card
                target = CARD[card].target
                if events.keep:
                    marked = []  # (a loop: a comprehension is a function made and called)
                    for p in state.players:
                        marked.append(TILE[p.empire[target - 1].tile].id)
                    events.add("disaster_revealed", {"disaster": i, "card": card,
                                                     "target": target, "marked": marked})
                continue
            if state.discard and state.options.reshuffle_discards:
                return False  # EEND-19: the engine asks for a reshuffle
            # Nothing left to draw: the disaster cannot be revealed and is skipped.
            dp.writable(i).closed = True
            events.add("disaster_skipped", {"disaster": i})
            continue
        if dp.resolution is not None or waiting:
            return False
        if not opened:
            return True
        if not _can_replace(state, dp.bidder, dp):
            next_bidder(state)
        return False
