"""Commerce (RULEBOOK §10.2): sealed sales, one price for everyone (E-13, E-21)."""

from __future__ import annotations

from functools import lru_cache

from shared.rules._kit.model import Events
from shared.rules.api import Json, SealedSlot, Simultaneous
from shared.rules.empire.data import BASE_PRICE, MAX_SALE
from shared.rules.empire.ledger import Ledger
from shared.rules.empire.state import EmpireState

SALES = tuple(tuple(range(k + 1)) for k in range(MAX_SALE + 1))  # allowed sales by goods held


def price(total_sold: int) -> int:
    """E-13: 10 minus the total sold, never below 0."""
    return max(0, BASE_PRICE - total_sold)


def commerce_node(state: EmpireState) -> Simultaneous:
    """E-13/E-21: each seat picks 0..min(goods, 7), validated against the goods it holds
    when the round opens (nothing can change them before the reveal); default 0."""
    return _commerce_node(state.round, tuple([h.goods for h in state.holdings]))


@lru_cache(maxsize=4096)
def _commerce_node(round: int, goods: tuple[int, ...]) -> Simultaneous:
    """The node of a commerce round, made once per round and goods held (a node and its
    contexts are never changed)."""
    slots = []
    for seat, g in enumerate(goods):
        context: Json = {"round": round, "goods": g}
        slots.append(SealedSlot(seat=seat, key=f"s{seat}", allowed=SALES[min(g, MAX_SALE)],
                                default=0, context=context))
    return Simultaneous(round_id=f"commerce:{round}", slots=tuple(slots))


def resolve_commerce(state: EmpireState, sold: tuple[int, ...], defaulted: tuple[str, ...],
                     events: Events) -> None:
    """Everyone pays the goods, then takes ``price`` gold per good sold. With strict supply
    (E-5) a short bank pays seats in order from the start player until it is empty."""
    p = price(sum(sold))
    ledger = Ledger(state)
    received = [0] * state.n
    start = state.start_player or 0
    for i in range(state.n):
        seat = (start + i) % state.n
        ledger.pay(seat, "goods", sold[seat])
        received[seat] = ledger.take(seat, "gold", p * sold[seat])
    state.last_commerce, state.last_price = sold, p
    events.add("commerce", {
        "round": state.round,
        "sold": list(sold),
        "total": sum(sold),
        "price": p,
        "gold": list(received),
        "defaulted": list(defaulted),
    })
