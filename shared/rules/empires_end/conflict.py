"""Conflict phase: a public card, a sealed fist bid through the escrow, then resolution.

The fist bid is one ``Simultaneous`` round (EEND-21, EEND-22): one slot per seat whose
``allowed`` lists every ``{"axes": a, "coins": c}`` the seat can hold in its fist. That list
reveals the seat's Axe and Coin counts, so the slot must only ever be shown to its own seat
and the escrow (the adjudicator's node_info does so). Slots are independent: there is no
cross-slot constraint to resolve. ``resolve`` changes the state in place (a clone, see
``state.py``).
"""

from __future__ import annotations

from typing import Any

from shared.rules._kit.model import Events
from shared.rules.api import JointAction, Json, SealedSlot, Simultaneous
from shared.rules.empires_end import board
from shared.rules.empires_end.actions import CONFLICT_BID
from shared.rules.empires_end.data import CONFLICT, TILE, ConflictCard, Reward
from shared.rules.empires_end.state import Player, State

NO_BID: dict[str, Json] = {"axes": 0, "coins": 0}


def round_id(state: State) -> str:
    return f"conflict:{state.phase_index + 1}"


def slot_key(seat: int) -> str:
    return f"s{seat}"


# (axes, coins) held -> every fist of them, in order: each dict made once and shared by every
# slot that offers it (a listed choice is never changed, as a state is never changed)
_FISTS: dict[tuple[int, int], tuple[Json, ...]] = {}


def fists(axes: int, coins: int) -> tuple[Json, ...]:
    """Every ``{"axes": a, "coins": c}`` a seat holding ``axes`` Axes and ``coins`` Coins can
    put in its fist, axes first."""
    got = _FISTS.get((axes, coins))
    if got is None:
        if len(_FISTS) >= 4096:
            _FISTS.clear()
        got = _FISTS[(axes, coins)] = tuple(
            [{"axes": a, "coins": c} for a in range(axes + 1) for c in range(coins + 1)])
    return got


def node(state: State) -> Simultaneous:
    slots = []
    card = state.conflict_card
    for seat, p in enumerate(state.players):
        res = p.res
        slots.append(
            SealedSlot(
                seat=seat,
                key=_KEYS[seat] if seat < len(_KEYS) else slot_key(seat),
                allowed=fists(res.axe, res.coin),
                default=dict(NO_BID),
                context={"card": card, "base_strength": board.base_strength(p)},
            )
        )
    return Simultaneous(round_id=round_id(state), slots=tuple(slots))


_KEYS = tuple(slot_key(seat) for seat in range(4))


def check(slot: SealedSlot, choice: Json) -> bool:
    if slot.allowed is None or not isinstance(choice, dict):
        return False
    allowed = slot.allowed
    try:  # where ``fists`` lists it: axes major, coins minor, up to the last fist's
        last: Any = allowed[-1]
        fist: Any = choice
        at = fist["axes"] * (last["coins"] + 1) + fist["coins"]
        if 0 <= at < len(allowed) and allowed[at] is choice:
            return True
    except (IndexError, KeyError, TypeError):
        pass
    try:  # the listed value itself (picked from the list): a valid bid. Listed fists differ
        # from one another, so the first equal one is the one listed, if it was
        if allowed[allowed.index(choice)] is choice:
            return True
    except ValueError:
        return False  # not even equal to a listed fist
    try:
        CONFLICT_BID.validate_python(choice)
    except ValueError:
        return False
    return choice in slot.allowed


def _reward(p: Player, reward: Reward) -> None:
    """In place: points and tokens; EEND-16: a refresh icon refreshes all of the player's
    abilities."""
    p.vp += reward.vp
    p.res.gain_bundle(reward.res)
    if reward.refresh:
        board.refresh_positions(p, tuple(range(len(p.empire))))


def tier(card: ConflictCard, strength: int) -> str:
    """Only one threshold applies: the best one reached."""
    if strength >= card.tier3_min:
        return "tier3"
    if strength >= card.tier2_min:
        return "tier2"
    if strength <= card.penalty_max:
        return "penalty"
    return "none"


def upheaval(p: Player, card: ConflictCard) -> tuple[str, str] | None:
    """EEND-15, in place: the Nth-highest printed-VP healthy ("prosperous", EEND-24) location
    swaps with position P; nothing if it is already there or there are fewer than N healthy.
    Returns the swapped tiles, if any."""
    # by printed VP, highest first, ties left to right: one int per position (``_BY_VP``),
    # sorted as ints sort (no tuples compared); a loop, as a comprehension is a function made
    # and called
    ranked = []
    for i, loc in enumerate(p.empire):
        if loc.healthy:
            ranked.append(_BY_VP[loc.tile] + i)
    ranked.sort()
    if len(ranked) < card.upheaval_rank:
        return None
    src = ranked[card.upheaval_rank - 1] % _POSITIONS
    dst = card.upheaval_pos - 1
    if src == dst:
        return None
    pair = (p.empire[src].tile, p.empire[dst].tile)
    board.swap_positions(p, src, dst)
    return pair


# tile -> its rank key less its position: (most VP - its VP) per block of positions, so that
# key + position orders by VP, highest first, then by position
_POSITIONS = 64  # more than an empire's (one location per tile)
_BY_VP: dict[str, int] = {t: (max(x.vp for x in TILE.values()) - TILE[t].vp) * _POSITIONS
                          for t in TILE}


def resolve(state: State, nd: Simultaneous, move: JointAction, events: Events) -> None:
    """EEND-15, in place: the revealed fists (the kit checked the round, its slots and each
    choice)."""
    assert state.conflict_card is not None
    card = CONFLICT[state.conflict_card]
    bids = []
    for s in nd.slots:
        choice = move.choices[s.key]
        assert isinstance(choice, dict)
        bids.append((int(choice["axes"]), int(choice["coins"])))  # type: ignore[arg-type]
    totals = [board.base_strength(p) + a + c for p, (a, c) in zip(state.players, bids, strict=True)]
    best = max(totals)
    results: list[Json] = []
    for seat in range(len(state.players)):
        p = state.writable(seat)
        axes, coins = bids[seat]
        # Revealed Axes and Coins go back to the bank (EEND-15).
        p.res.axe -= axes
        p.res.coin -= coins
        res = p.res
        vp0, wheat0, hammer0, axe0, coin0 = p.vp, res.wheat, res.hammer, res.axe, res.coin
        got = tier(card, totals[seat])
        if got == "tier3":
            _reward(p, card.tier3)
        elif got == "tier2":
            _reward(p, card.tier2)
        elif got == "penalty":  # VP may go negative
            p.vp -= card.penalty_vp
        won = totals[seat] == best  # EEND-15: every tied highest gets Victory
        swapped = None
        if won:
            _reward(p, card.victory)
        else:
            swapped = upheaval(p, card)
        if events.keep:
            now = p.res
            gained = {"wheat": now.wheat - wheat0, "hammer": now.hammer - hammer0,
                      "axe": now.axe - axe0, "coin": now.coin - coin0}
            results.append(
                {
                    "seat": seat,
                    "axes": axes,
                    "coins": coins,
                    "strength": totals[seat],
                    "tier": got,
                    "victory": won,
                    "vp": p.vp - vp0,
                    "tokens": {k: v for k, v in gained.items() if v},  # type: ignore[dict-item]
                    "upheaval": list(swapped) if swapped else None,
                }
            )
    events.add("conflict_resolved", {"card": card.id, "results": results})
    state.conflict_card = None
    state.conflict_discard = (*state.conflict_discard, card.id)
