"""Development (RULEBOOK §10.1): automatic and greedy, no player input (E-9 ... E-12)."""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empire.data import NATIONS, Nation
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import EmpireState, Holdings

_NONE = Holdings()  # never changed: each seat's counts start as copies of it


def develop_seat(ledger: Ledger, seat: int, nation: Nation | None) -> dict[str, Json]:
    """Develop one empire in place; returns the public report of what it built/gained/paid.

    The local counts (``goods`` ... ``bonds``) are the cards not yet used this phase. Cards
    *gained* go to the hand at once but never into those counts: they sit in the discard pile
    and cannot be used again this phase (E-9, ER-3). Gold gained goes straight to the gold
    stack and can pay bond upkeep in the same phase (E-9, Laura's 30 gold).
    """
    hand = ledger.hands[seat]
    goods, pops, cols, bonds = hand.goods, hand.populations, hand.colonies, hand.bonds
    # the counts gained and paid, reported as their nonzero kinds in KINDS order
    gained, paid = _NONE.copy(), _NONE.copy()
    take, pay = ledger.take, ledger.pay

    # 1. Luxuries: a good on a population. The good is paid (E-10), the population is
    #    discarded (kept), 1 supporter is taken.
    luxuries = goods if goods < pops else pops
    if luxuries:
        goods -= luxuries
        pops -= luxuries
        pay(seat, "goods", luxuries)
        paid.goods = luxuries
        gained.supporters = take(seat, "supporters", luxuries)

    # 2. Industries: a population on a colony; both discarded (kept), 1 good taken into the
    #    discard pile (ER-2: the colony, not a good, is used; ER-3: the good is unusable now).
    industries = pops if pops < cols else cols
    if industries:
        pops -= industries
        cols -= industries
        gained.goods = take(seat, "goods", industries)

    # 3. National institutions (standard version only, E-22): the recipe maximum; a
    #    same-type recipe uses floor(n/2) (E-9).
    national = 0
    if nation is not None:
        avail = {"goods": goods, "populations": pops, "colonies": cols}
        first, second = nation.recipe
        national = avail[first] // 2 if first == second else min(avail[first], avail[second])
        if national:
            for kind, per in nation.pays.items():
                pay(seat, kind, per * national)  # type: ignore[arg-type]
                paid.add(kind, per * national)  # type: ignore[arg-type]
            for kind, per in nation.gains.items():
                gained.add(kind, take(seat, kind, per * national))  # type: ignore[arg-type]
        if "populations" in nation.recipe:
            pops -= national * (2 if first == second else 1)

    # 4. One revolt per population not used in any institution, however acquired (E-12).
    if pops:
        gained.revolts += take(seat, "revolts", pops)

    # 5. Bond upkeep: 1 gold per bond held at the start of the phase, as far as gold allows,
    #    then 1 revolt per unpaid bond (E-11). Bonds gained this phase cost nothing now.
    bonds_paid = min(bonds, hand.gold)
    if bonds_paid:
        pay(seat, "gold", bonds_paid)
        paid.gold += bonds_paid
    bonds_unpaid = bonds - bonds_paid
    if bonds_unpaid:
        gained.revolts += take(seat, "revolts", bonds_unpaid)

    # 6. Re-stack: the discard pile rejoins the stacks (the hand already holds everything).
    return {
        "seat": seat,
        "nation": nation.number if nation else None,
        "luxuries": luxuries,
        "industries": industries,
        "institution": nation.institution if nation else None,
        "institutions": national,
        "unused_populations": pops,
        "bonds_paid": bonds_paid,
        "bonds_unpaid": bonds_unpaid,
        "gained": gained.nonzero(),
        "paid": paid.nonzero(),
    }


def development_phase(state: EmpireState, events: Events) -> None:
    """Every empire develops (in place); seats are processed from the start player on (this
    order only matters with strict supply, E-5, when the bank runs short)."""
    ledger = Ledger(state)
    start = state.start_player or 0
    reports: list[dict[str, Json]] = []
    for i in range(state.n):
        seat = (start + i) % state.n
        number = state.nations[seat]
        nation = NATIONS[number] if number is not None else None
        reports.append(develop_seat(ledger, seat, nation))
    state.developments += 1
    events.add("development_phase", {"round": state.round})
    for r in reports:
        events.add("developed", {"round": state.round, **r})
