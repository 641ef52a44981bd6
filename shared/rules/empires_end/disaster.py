"""Disaster and Double Disaster phases: reveal, clockwise pass-by-bidding or take, resolution.

Turn structure (EEND-6, EEND-7, EEND-26): the bidder must address every open disaster (bid
= pass, free bid = pass, or take) in either order; replace abilities may be used before or
after that during the same turn (an ``end_turn`` action is offered only while a replace is
still possible). A take is resolved at once: bids to the taker, destroy (EEND-4), place the
innovation for free (EEND-25, EEND-5), then the low-resources choice (EEND-9).
"""

from __future__ import annotations

from shared.rules._kit.model import event
from shared.rules.api import Event, Json
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import (
    Action,
    Bid,
    Destroy,
    EndTurn,
    FreeBid,
    Place,
    Replace,
    ShoreUp,
    Take,
)
from shared.rules.empires_end.data import CARD, LOW_RESOURCES, LOW_RESOURCES_VP_PER_COIN, TILE
from shared.rules.empires_end.state import (
    DisasterPhase,
    DisasterSlot,
    Innovation,
    Resolution,
    State,
)


def start(state: State, double: bool) -> State:
    """Open the phase: one (or two) disasters to reveal; bidding starts at the first player."""
    slots = (DisasterSlot(), DisasterSlot()) if double else (DisasterSlot(),)
    return state.model_copy(update={"disaster": DisasterPhase(slots=slots, bidder=state.first)})


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


def _with_slot(state: State, i: int, slot: DisasterSlot, **dp_update: object) -> State:
    dp = _dp(state)
    slots = list(dp.slots)
    slots[i] = slot
    new_dp = dp.model_copy(update={"slots": tuple(slots), **dp_update})
    return state.model_copy(update={"disaster": new_dp})


def _with_dp(state: State, **update: object) -> State:
    return state.model_copy(update={"disaster": _dp(state).model_copy(update=update)})


def usable(state: State, seat: int, kind: str) -> list[str]:
    """Healthy, unexhausted Disaster-phase innovations of ``kind`` (exhaust abilities)."""
    p = state.players[seat]
    out = []
    for pos, ref, ab in board.active(p, "disaster"):
        inn = board.innovation_at(p.empire[pos], ref)
        if ab.kind == kind and inn is not None and not inn.exhausted:
            out.append(ref)
    return out


def _replace_options(state: State, seat: int) -> list[Json]:
    dp = _dp(state)
    return [
        {"type": "replace", "disaster": i, "card": ref}
        for ref in usable(state, seat, "replace_disaster")
        for i in open_slots(dp)
    ]


def awaited(state: State) -> int:
    dp = _dp(state)
    return dp.resolution.seat if dp.resolution is not None else dp.bidder


def legal(state: State, seat: int) -> list[Json]:
    dp = _dp(state)
    res = dp.resolution
    if res is not None:
        if seat != res.seat:
            return []
        if res.stage == "destroy":
            return [{"type": "destroy", "tile": t} for t in res.choices]
        if res.stage == "place":
            return [{"type": "place", "tile": t} for t in res.choices]
        most = max(0, LOW_RESOURCES - state.players[seat].res.total())
        return [{"type": "shore_up", "coins": k} for k in range(most + 1)]
    if seat != dp.bidder:
        return []
    p = state.players[seat]
    out: list[Json] = []
    for i in open_slots(dp):
        if i in dp.addressed:
            continue
        card = CARD[dp.slots[i].card or ""]
        for r in (*card.bids, "coin"):
            if (r != "coin" or "coin" not in card.bids) and p.res.get(r) > 0:
                out.append({"type": "bid", "disaster": i, "resource": r})
        for ref in usable(state, seat, "free_bid"):  # EEND-8: any accepted resource
            if CARD[ref].ability.resource in card.bids:
                out.append({"type": "free_bid", "disaster": i, "card": ref})
        out.append({"type": "take", "disaster": i})  # EEND-3: always possible
    replace = _replace_options(state, seat)
    out.extend(replace)
    if replace and all(i in dp.addressed for i in open_slots(dp)):
        out.append({"type": "end_turn"})
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


def apply(state: State, seat: int, action: Action, events: list[Event]) -> State:
    """Apply a legal disaster-phase action (legality is checked by the caller)."""
    dp = _dp(state)
    if isinstance(action, Bid):
        p = state.players[seat]
        p = p.model_copy(update={"res": p.res.plus(action.resource, -1)})
        state = state.with_player(seat, p)
        slot = dp.slots[action.disaster]
        slot = slot.model_copy(update={"pool": slot.pool.plus(action.resource)})
        state = _with_slot(state, action.disaster, slot, addressed=(*dp.addressed, action.disaster))
        events.append(event(type="bid", data={"seat": seat, **action.model_dump(exclude={"type"})}))
    elif isinstance(action, FreeBid):  # EEND-8: covers one pass, adds no token
        state = state.with_player(seat, board.set_exhausted(state.players[seat], action.card, True))
        state = _with_dp(state, addressed=(*dp.addressed, action.disaster))
        events.append(
            event(type="free_bid", data={"seat": seat, **action.model_dump(exclude={"type"})})
        )
    elif isinstance(action, Replace):  # EEND-7: bids stay with the new disaster
        old = dp.slots[action.disaster]
        state = state.with_player(seat, board.set_exhausted(state.players[seat], action.card, True))
        state = state.model_copy(update={"discard": (*state.discard, old.card or "")})
        state = _with_slot(state, action.disaster, old.model_copy(update={"card": None}))
        events.append(
            event(
                type="disaster_replaced",
                data={
                    "seat": seat,
                    "disaster": action.disaster,
                    "card": old.card,
                    "by": action.card,
                },
            )
        )
    elif isinstance(action, EndTurn):
        state = next_bidder(state)
    elif isinstance(action, Take):
        state = _take(state, seat, action.disaster, events)
    elif isinstance(action, Destroy):
        pos = board.position_of_tile(state.players[seat].empire, action.tile)
        state = _destroy(state, seat, pos, events)
        state = _progress(_set_stage(state, "place"), events)
    elif isinstance(action, Place):
        pos = board.position_of_tile(state.players[seat].empire, action.tile)
        state = _place(state, seat, pos, events)
        state = _progress(_set_stage(state, "shore"), events)
    elif isinstance(action, ShoreUp):
        state = _shore_up(state, seat, action.coins, events)
        state = _with_dp(state, resolution=None)
    return state


def next_bidder(state: State) -> State:
    dp = _dp(state)
    return _with_dp(state, bidder=(dp.bidder + 1) % state.n, addressed=())


def _take(state: State, seat: int, i: int, events: list[Event]) -> State:
    dp = _dp(state)
    slot = dp.slots[i]
    card = slot.card or ""
    p = state.players[seat]
    state = state.with_player(seat, p.model_copy(update={"res": p.res.add(slot.pool)}))
    state = _with_slot(state, i, DisasterSlot(closed=True), addressed=(*dp.addressed, i))
    events.append(
        event(
            type="disaster_taken",
            data={"seat": seat, "disaster": i, "card": card, "bids": slot.pool.as_dict()},
        )
    )
    dp = _dp(state)
    if not open_slots(dp) and pending_reveal(dp) is None:
        # The first-player marker goes to the taker (the later taker in a double, EEND-6).
        state = state.model_copy(update={"first": seat})
        events.append(event(type="first_player", data={"seat": seat}))
    resolution = Resolution(seat=seat, card=card, target=CARD[card].target - 1, stage="destroy")
    return _progress(_with_dp(state, resolution=resolution), events)


def _set_stage(state: State, stage: str) -> State:
    res = _dp(state).resolution
    assert res is not None
    return _with_dp(state, resolution=res.model_copy(update={"stage": stage, "choices": ()}))


def _progress(state: State, events: list[Event]) -> State:
    """Resolve the take's steps until one needs the taker's choice."""
    res = _dp(state).resolution
    assert res is not None
    p = state.players[res.seat]
    if res.stage == "destroy":
        cands = board.destroy_candidates(p.empire, res.target)  # EEND-4
        if len(cands) > 1:
            choices = tuple(p.empire[c].tile for c in cands)
            return _with_dp(state, resolution=res.model_copy(update={"choices": choices}))
        state = _destroy(state, res.seat, cands[0] if cands else None, events)
        state = _set_stage(state, "place")
        res = _dp(state).resolution
        assert res is not None
        p = state.players[res.seat]
    if res.stage == "place":
        cands = board.placement_candidates(p.empire)
        if len(cands) > 1:
            choices = tuple(p.empire[c].tile for c in cands)
            return _with_dp(state, resolution=res.model_copy(update={"choices": choices}))
        state = _place(state, res.seat, cands[0] if cands else None, events)
        state = _set_stage(state, "shore")
    if state.options.low_resources_rule:
        # Always asked (even with 5+ tokens, where only 0 is legal) so that waiting for
        # the choice does not reveal a hidden total below 5 (EEND-21).
        return state
    return _with_dp(state, resolution=None)


def _destroy(state: State, seat: int, pos: int | None, events: list[Event]) -> State:
    if pos is None:  # EEND-4: no healthy location left; resources were still gained
        events.append(event(type="nothing_destroyed", data={"seat": seat}))
        return state
    p = state.players[seat]
    loc = p.empire[pos]
    state = state.with_player(
        seat, board.set_location(p, pos, loc.model_copy(update={"healthy": False}))
    )
    events.append(
        event(
            type="location_destroyed",
            data={"seat": seat, "tile": loc.tile, "position": pos + 1},
        )
    )
    return state


def _place(state: State, seat: int, pos: int | None, events: list[Event]) -> State:
    """EEND-25: a taken innovation is placed for free; EEND-5: no healthy location = discard."""
    res = _dp(state).resolution
    assert res is not None
    if pos is None:
        events.append(event(type="innovation_discarded", data={"seat": seat, "card": res.card}))
        return state.model_copy(update={"discard": (*state.discard, res.card)})
    p = state.players[seat]
    loc = p.empire[pos]
    loc = loc.model_copy(update={"innovations": (*loc.innovations, Innovation(card=res.card))})
    events.append(
        event(type="innovation_placed", data={"seat": seat, "card": res.card, "tile": loc.tile})
    )
    return state.with_player(seat, board.set_location(p, pos, loc))


def _shore_up(state: State, seat: int, coins: int, events: list[Event]) -> State:
    """EEND-9: reveal the stash, then 2 VP per coin until the total is 5 (VP may go < 0)."""
    if coins <= 0:
        return state
    p = state.players[seat]
    events.append(
        event(
            type="screen_lifted",
            data={"seat": seat, "resources": p.res.as_dict(), "coins_bought": coins},
        )
    )
    vp = p.vp - LOW_RESOURCES_VP_PER_COIN * coins
    return state.with_player(
        seat, p.model_copy(update={"res": p.res.plus("coin", coins), "vp": vp})
    )


# --- automatic steps --------------------------------------------------------------------


def settle(state: State, events: list[Event]) -> tuple[State, bool]:
    """Reveal pending cards, pass finished turns on. Returns (state, phase_over); stops early
    when a reshuffle is needed (the engine then asks for a Chance)."""
    while True:
        dp = _dp(state)
        i = pending_reveal(dp)
        if i is not None:
            if state.deck:
                card = state.deck[0]
                state = state.model_copy(update={"deck": state.deck[1:]})
                slot = dp.slots[i].model_copy(update={"card": card})
                state = _with_slot(state, i, slot)
                target = CARD[card].target
                marked = [TILE[p.empire[target - 1].tile].id for p in state.players]
                events.append(
                    event(
                        type="disaster_revealed",
                        data={"disaster": i, "card": card, "target": target, "marked": marked},
                    )
                )
                continue
            if state.discard and state.options.reshuffle_discards:
                return state, False  # EEND-19: the engine asks for a reshuffle
            # Nothing left to draw: the disaster cannot be revealed and is skipped.
            state = _with_slot(state, i, dp.slots[i].model_copy(update={"closed": True}))
            events.append(event(type="disaster_skipped", data={"disaster": i}))
            continue
        if dp.resolution is not None:
            return state, False
        opened = open_slots(dp)
        if not opened:
            return state, True
        if all(j in dp.addressed for j in opened) and not _replace_options(state, dp.bidder):
            state = next_bidder(state)
        return state, False
