"""Setup and nation claiming (RULEBOOK §8, §9; E-14, E-15, E-20, E-22)."""

from __future__ import annotations

from collections import Counter

from shared.rules._kit.model import event
from shared.rules.api import Event, Json, SealedSlot, Simultaneous
from shared.rules.empire.actions import bundle_json
from shared.rules.empire.data import (
    AUCTION_ROW,
    BEGINNER_START,
    CLAIM_STACK_START,
    KINDS,
    NATIONS,
)
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import ClaimState, EmpireState, Holdings


def deal_row(state: EmpireState, perm: tuple[int, ...]) -> tuple[EmpireState, list[Event]]:
    """RULEBOOK §8: the six auction cards, shuffled, face up (ER-6); shortage on the first."""
    cards = AUCTION_ROW[state.options.version]
    row = tuple(cards[i] for i in perm)
    ledger = Ledger(state)
    for card in row:
        ledger.draw(card, 1)  # the row cards leave the supply (matters for E-5 strict)
    new = state.model_copy(update={**ledger.freeze(), "row": row, "shortage": 0})
    ev = event(type="auction_row_dealt", data={"row": list(row), "shortage": 0})
    return new, [ev]


def deal_nations(state: EmpireState, perm: tuple[int, ...]) -> tuple[EmpireState, list[Event]]:
    """RULEBOOK §9: the first n of the shuffled nations go to the market, each with 1
    supporter and 1 revolt stacked below it; the rest go back to the box."""
    market = tuple(perm[: state.n])
    ledger = Ledger(state)
    stacks = []
    for _ in market:
        got = {k: ledger.draw(k, v) for k, v in CLAIM_STACK_START.items()}  # type: ignore[arg-type]
        stacks.append(Holdings(**got))
    claim = ClaimState(market=market, stacks=tuple(stacks))
    new = state.model_copy(update={**ledger.freeze(), "claim": claim, "phase": "claim"})
    data: dict[str, Json] = {
        "nations": [{"number": m, "name": NATIONS[m].name} for m in market],
    }
    return new, [event(type="nations_dealt", data=data)]


def claim_node(state: EmpireState) -> Simultaneous:
    """One sealed selection card per seat; only numbers of nations in the market (E-14)."""
    assert state.claim is not None
    allowed = tuple(sorted(state.claim.market))
    context: Json = {
        "nations": [
            {"number": m, "name": NATIONS[m].name, **bundle_json(s)}
            for m, s in zip(state.claim.market, state.claim.stacks, strict=True)
        ]
    }
    # E-S1 (docs/rulings-server.md): each seat's timeout default is a different nation, so
    # seats that time out never collide with each other (E-14 has no cap by default).
    slots = tuple(
        SealedSlot(seat=s, key=f"s{s}", allowed=allowed, default=allowed[s % len(allowed)],
                   context=context)
        for s in range(state.n)
    )
    return Simultaneous(round_id=f"claim:{state.claim.round}", slots=slots)


def resolve_claim(
    state: EmpireState, picks: tuple[int, ...], defaulted: tuple[str, ...]
) -> tuple[EmpireState, list[Event]]:
    """Reveal one selection round: claim all if every nation is unique, else add the
    collision penalties/bonuses below the nations and reselect (RULEBOOK §9)."""
    claim = state.claim
    assert claim is not None
    counts = Counter(picks)
    contested = [m for m in claim.market if counts[m] > 1]
    reveal: dict[str, Json] = {
        "round": claim.round,
        "selections": list(picks),
        "defaulted": list(defaulted),
        "contested": list(contested),
    }
    if not contested:
        events = [event(type="claim_revealed", data={**reveal, "collision": False})]
        new, more = finalize_claims(state, picks)
        return new, events + more
    # Collision: first a supporter below each unselected nation, then a revolt below each
    # nation selected by several players.
    ledger = Ledger(state)
    unselected = [m for m in claim.market if counts[m] == 0]
    stacks = list(claim.stacks)
    for i, m in enumerate(claim.market):
        if m in unselected:
            got = ledger.draw("supporters", 1)
            stacks[i] = stacks[i].model_copy(update={"supporters": stacks[i].supporters + got})
        elif m in contested:
            got = ledger.draw("revolts", 1)
            stacks[i] = stacks[i].model_copy(update={"revolts": stacks[i].revolts + got})
    collisions = claim.collisions + 1
    update: dict[str, object] = {
        "stacks": tuple(stacks),
        "round": claim.round + 1,
        "collisions": collisions,
        "last_selections": picks,
    }
    cap = state.options.claim_collision_cap
    if cap is not None and collisions >= cap:
        # E-14 house rule: unique selectors keep their nation; the colliding seats get the
        # free nations by a dealer shuffle ("claim:assign").
        update["assign_seats"] = tuple(s for s in range(state.n) if counts[picks[s]] > 1)
        taken = {picks[s] for s in range(state.n) if counts[picks[s]] == 1}
        update["assign_nations"] = tuple(m for m in claim.market if m not in taken)
    new = state.model_copy(update={**ledger.freeze(), "claim": claim.model_copy(update=update)})
    data = {
        **reveal,
        "collision": True,
        "unselected": list(unselected),
        "stacks": [
            {"number": m, **bundle_json(s)} for m, s in zip(claim.market, stacks, strict=True)
        ],
        "random_assignment": bool(update.get("assign_seats")),
    }
    return new, [event(type="claim_revealed", data=data)]


def resolve_assignment(
    state: EmpireState, perm: tuple[int, ...]
) -> tuple[EmpireState, list[Event]]:
    """E-14 cap: seat ``assign_seats[i]`` gets ``assign_nations[perm[i]]``."""
    claim = state.claim
    assert claim is not None
    picks = list(claim.last_selections)
    assigned: dict[str, Json] = {}
    for i, seat in enumerate(claim.assign_seats):
        picks[seat] = claim.assign_nations[perm[i]]
        assigned[str(seat)] = picks[seat]
    ev = event(type="claim_assigned", data={"assigned": assigned})
    new, more = finalize_claims(state, tuple(picks))
    return new, [ev, *more]


def finalize_claims(state: EmpireState, picks: tuple[int, ...]) -> tuple[EmpireState, list[Event]]:
    """Each seat takes its nation, the support stacked below it and its starting cards;
    unowned support goes back to the bank (E-15: France's 5 revolts come on top)."""
    claim = state.claim
    assert claim is not None
    ledger = Ledger(state)
    events: list[Event] = []
    for seat, number in enumerate(picks):
        stack = claim.stacks[claim.market.index(number)]
        for k in KINDS:
            ledger.hands[seat][k] += stack.get(k)  # the stack moves from market to empire
        start = ledger.take_all(seat, Holdings(**NATIONS[number].start))
        data: dict[str, Json] = {
            "seat": seat,
            "nation": number,
            "name": NATIONS[number].name,
            "support_taken": bundle_json(stack),
            "starting_cards": bundle_json(start),
        }
        events.append(event(type="nation_claimed", data=data))
    for number, stack in zip(claim.market, claim.stacks, strict=True):
        if number not in picks:
            for k in KINDS:
                ledger.give_back(k, stack.get(k))
    update = {
        **ledger.freeze(),
        "nations": tuple(picks),
        "claim": None,  # the market's nation and support stacks are all gone now
    }
    return state.model_copy(update=update), events


def beginner_start(state: EmpireState) -> tuple[EmpireState, list[Event]]:
    """RULEBOOK §9: generic nations, identical starting cards (E-22)."""
    ledger = Ledger(state)
    events = []
    for seat in range(state.n):
        got = ledger.take_all(seat, Holdings(**BEGINNER_START))
        data: dict[str, Json] = {"seat": seat, "starting_cards": bundle_json(got)}
        events.append(event(type="starting_cards", data=data))
    new = state.model_copy(update={**ledger.freeze(), "nations": (None,) * state.n})
    return new, events
