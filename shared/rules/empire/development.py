"""Development (RULEBOOK §10.1): automatic and greedy, no player input (E-9 ... E-12)."""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empire.data import KINDS, NATIONS, Kind, Nation
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import EmpireState


def _count(counts: dict[str, int]) -> dict[str, Json]:
    return {k: counts[k] for k in KINDS if counts.get(k)}


def develop_seat(ledger: Ledger, seat: int, nation: Nation | None) -> dict[str, Json]:
    """Develop one empire in place; returns the public report of what it built/gained/paid.

    The local ``avail`` counts are the cards not yet used this phase. Cards *gained* go to
    the hand at once but never into ``avail``: they sit in the discard pile and cannot be
    used again this phase (E-9, ER-3). Gold gained goes straight to the gold stack and can
    pay bond upkeep in the same phase (E-9, Laura's 30 gold).
    """
    hand = ledger.hands[seat]
    avail = {"goods": hand.goods, "populations": hand.populations, "colonies": hand.colonies,
             "bonds": hand.bonds}
    gained: dict[str, int] = dict.fromkeys(KINDS, 0)
    paid: dict[str, int] = dict.fromkeys(KINDS, 0)

    # A zero amount moves nothing (and never fails): most steps move nothing, so skip it.
    def take(kind: Kind, amount: int) -> None:
        if amount:
            gained[kind] += ledger.take(seat, kind, amount)

    def pay(kind: Kind, amount: int) -> None:
        if amount:
            ledger.pay(seat, kind, amount)
            paid[kind] += amount

    # 1. Luxuries: a good on a population. The good is paid (E-10), the population is
    #    discarded (kept), 1 supporter is taken.
    luxuries = min(avail["goods"], avail["populations"])
    avail["goods"] -= luxuries
    avail["populations"] -= luxuries
    pay("goods", luxuries)
    take("supporters", luxuries)

    # 2. Industries: a population on a colony; both discarded (kept), 1 good taken into the
    #    discard pile (ER-2: the colony, not a good, is used; ER-3: the good is unusable now).
    industries = min(avail["populations"], avail["colonies"])
    avail["populations"] -= industries
    avail["colonies"] -= industries
    take("goods", industries)

    # 3. National institutions (standard version only, E-22): the recipe maximum; a
    #    same-type recipe uses floor(n/2) (E-9).
    national = 0
    if nation is not None:
        first, second = nation.recipe
        same = first == second
        national = avail[first] // 2 if same else min(avail[first], avail[second])
        avail[first] -= national
        avail[second] -= national
        for kind, per in nation.pays.items():
            pay(kind, per * national)  # type: ignore[arg-type]
        for kind, per in nation.gains.items():
            take(kind, per * national)  # type: ignore[arg-type]

    # 4. One revolt per population not used in any institution, however acquired (E-12).
    unused_pops = avail["populations"]
    take("revolts", unused_pops)

    # 5. Bond upkeep: 1 gold per bond held at the start of the phase, as far as gold allows,
    #    then 1 revolt per unpaid bond (E-11). Bonds gained this phase cost nothing now.
    bonds = avail["bonds"]
    bonds_paid = min(bonds, hand.gold)
    pay("gold", bonds_paid)
    bonds_unpaid = bonds - bonds_paid
    take("revolts", bonds_unpaid)

    # 6. Re-stack: the discard pile rejoins the stacks (the hand already holds everything).
    return {
        "seat": seat,
        "nation": nation.number if nation else None,
        "luxuries": luxuries,
        "industries": industries,
        "institution": nation.institution if nation else None,
        "institutions": national,
        "unused_populations": unused_pops,
        "bonds_paid": bonds_paid,
        "bonds_unpaid": bonds_unpaid,
        "gained": _count(gained),
        "paid": _count(paid),
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
