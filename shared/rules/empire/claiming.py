"""Setup and nation claiming (RULEBOOK §8, §9; E-14, E-15, E-20, E-22).

Each function changes a fresh clone in place and adds its events."""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json, SealedSlot, Simultaneous
from shared.rules.empire.actions import bundle_json
from shared.rules.empire.data import (
    AUCTION_ROW,
    BEGINNER_START,
    CLAIM_STACK_START,
    KINDS,
    MAX_SEATS,
    NATIONS,
)
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import ClaimState, EmpireState, Holdings

NATION_NAMES = tuple(nation.name for nation in NATIONS)
SLOT_KEYS = tuple(f"s{s}" for s in range(MAX_SEATS))  # each seat's sealed slot key


def deal_row(state: EmpireState, perm: tuple[int, ...], events: Events) -> None:
    """RULEBOOK §8: the six auction cards, shuffled, face up (ER-6); shortage on the first."""
    cards = AUCTION_ROW[state.options.version]
    row = tuple(cards[i] for i in perm)
    ledger = Ledger(state, ())
    for card in row:
        ledger.draw(card, 1)  # the row cards leave the supply (matters for E-5 strict)
    state.row, state.shortage = row, 0
    events.add("auction_row_dealt", {"row": list(row), "shortage": 0})


def deal_nations(state: EmpireState, perm: tuple[int, ...], events: Events) -> None:
    """RULEBOOK §9: the first n of the shuffled nations go to the market, each with 1
    supporter and 1 revolt stacked below it; the rest go back to the box."""
    market = tuple(perm[: state.n])
    ledger = Ledger(state, ())
    stacks = []
    for _ in market:
        stack = Holdings()
        for k, v in CLAIM_STACK_START.items():
            stack.add(k, ledger.draw(k, v))  # type: ignore[arg-type]
        stacks.append(stack)
    state.claim = ClaimState(market=market, stacks=tuple(stacks))
    state.phase = "claim"
    events.add("nations_dealt",
               {"nations": [{"number": m, "name": NATIONS[m].name} for m in market]})


def claim_node(state: EmpireState) -> Simultaneous:
    """One sealed selection card per seat; only numbers of nations in the market (E-14)."""
    claim = state.claim
    assert claim is not None
    allowed = tuple(sorted(claim.market))
    context: Json = {
        "nations": [
            {"number": m, "name": NATION_NAMES[m], **s.nonzero()}  # bundle_json, inline
            for m, s in zip(claim.market, claim.stacks, strict=True)
        ]
    }
    # E-S1 (docs/rulings-server.md): each seat's timeout default is a different nation, so
    # seats that time out never collide with each other (E-14 has no cap by default).
    k = len(allowed)
    return Simultaneous(round_id=f"claim:{claim.round}", slots=tuple([
        SealedSlot(seat=s, key=SLOT_KEYS[s], allowed=allowed, default=allowed[s % k],
                   context=context)
        for s in range(state.n)]))


def resolve_claim(state: EmpireState, picks: tuple[int, ...], defaulted: tuple[str, ...],
                  events: Events) -> None:
    """Reveal one selection round: claim all if every nation is unique, else add the
    collision penalties/bonuses below the nations and reselect (RULEBOOK §9)."""
    claim = state.claim
    assert claim is not None
    counts = dict.fromkeys(claim.market, 0)
    for m in picks:
        counts[m] = counts.get(m, 0) + 1
    contested = [m for m in claim.market if counts[m] > 1]
    if not contested:
        events.add("claim_revealed", {"round": claim.round, "selections": list(picks),
                                      "defaulted": list(defaulted), "contested": [],
                                      "collision": False})
        finalize_claims(state, picks, events)
        return
    # Collision: first a supporter below each unselected nation, then a revolt below each
    # nation selected by several players.
    ledger = Ledger(state, ())
    market = claim.market
    unselected = [m for m in market if counts[m] == 0]
    stacks = [s.copy() for s in claim.stacks]
    for i, m in enumerate(market):
        count = counts[m]
        if count == 0:
            stacks[i].supporters += ledger.draw("supporters", 1)
        elif count > 1:
            stacks[i].revolts += ledger.draw("revolts", 1)
    collisions = claim.collisions + 1
    new = ClaimState(market, tuple(stacks), claim.round + 1, collisions, picks,
                     claim.assign_seats, claim.assign_nations)
    cap = state.options.claim_collision_cap
    if cap is not None and collisions >= cap:
        # E-14 house rule: unique selectors keep their nation; the colliding seats get the
        # free nations by a dealer shuffle ("claim:assign").
        new.assign_seats = tuple(s for s in range(state.n) if counts[picks[s]] > 1)
        taken = {picks[s] for s in range(state.n) if counts[picks[s]] == 1}
        new.assign_nations = tuple(m for m in market if m not in taken)
    state.claim = new
    events.add("claim_revealed", {
        "round": claim.round,
        "selections": list(picks),
        "defaulted": list(defaulted),
        "contested": contested,
        "collision": True,
        "unselected": unselected,
        "stacks": [{"number": m, **s.nonzero()}  # bundle_json, inline
                   for m, s in zip(market, stacks, strict=True)],
        "random_assignment": bool(new.assign_seats),
    })


def resolve_assignment(state: EmpireState, perm: tuple[int, ...], events: Events) -> None:
    """E-14 cap: seat ``assign_seats[i]`` gets ``assign_nations[perm[i]]``."""
    claim = state.claim
    assert claim is not None
    picks = list(claim.last_selections)
    assigned: dict[str, Json] = {}
    for i, seat in enumerate(claim.assign_seats):
        picks[seat] = claim.assign_nations[perm[i]]
        assigned[str(seat)] = picks[seat]
    events.add("claim_assigned", {"assigned": assigned})
    finalize_claims(state, tuple(picks), events)


def finalize_claims(state: EmpireState, picks: tuple[int, ...], events: Events) -> None:
    """Each seat takes its nation, the support stacked below it and its starting cards;
    unowned support goes back to the bank (E-15: France's 5 revolts come on top)."""
    claim = state.claim
    assert claim is not None
    ledger = Ledger(state)
    for seat, number in enumerate(picks):
        stack = claim.stacks[claim.market.index(number)]
        hand = ledger.hands[seat]
        for k in KINDS:
            if n := stack.get(k):
                hand.add(k, n)  # the stack moves from market to empire
        start = ledger.take_all(seat, Holdings(**NATIONS[number].start))
        events.add("nation_claimed", {
            "seat": seat,
            "nation": number,
            "name": NATIONS[number].name,
            "support_taken": bundle_json(stack),
            "starting_cards": bundle_json(start),
        })
    for number, stack in zip(claim.market, claim.stacks, strict=True):
        if number not in picks:
            for k in KINDS:
                if n := stack.get(k):
                    ledger.give_back(k, n)
    state.nations = tuple(picks)
    state.claim = None  # the market's nation and support stacks are all gone now


def beginner_start(state: EmpireState, events: Events) -> None:
    """RULEBOOK §9: generic nations, identical starting cards (E-22)."""
    ledger = Ledger(state)
    start = Holdings(**BEGINNER_START)
    for seat in range(state.n):
        got = ledger.take_all(seat, start)
        events.add("starting_cards", {"seat": seat, "starting_cards": bundle_json(got)})
    state.nations = (None,) * state.n
