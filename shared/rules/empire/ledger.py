"""A mutable scratch copy of the table used inside one transition, then frozen again.

Every card and gold piece moves through ``take`` (bank -> player), ``pay`` (player -> bank)
or ``move`` (player -> player), so the bank flows are always accounted for (E-5).
"""

from __future__ import annotations

from shared.rules.empire.data import KINDS, SUPPLY, Kind
from shared.rules.empire.state import EmpireState, Holdings


class Ledger:
    def __init__(self, state: EmpireState) -> None:
        self.strict = state.options.strict_supply
        self.hands: list[dict[str, int]] = [h.as_dict() for h in state.holdings]
        self.taken = state.bank_taken.as_dict()
        self.returned = state.bank_returned.as_dict()

    # -- the bank -------------------------------------------------------------------------

    def bank(self, kind: Kind) -> int | None:
        """Cards of ``kind`` left in the bank; None = unlimited (E-5 default)."""
        if not self.strict:
            return None
        return SUPPLY[kind] - self.taken[kind] + self.returned[kind]

    def draw(self, kind: Kind, amount: int) -> int:
        """Take up to ``amount`` out of the bank (not into a hand); returns what was taken.

        E-5 strict supply: an empty bank gives what it has (possibly nothing).
        """
        left = self.bank(kind)
        got = amount if left is None else max(0, min(amount, left))
        self.taken[kind] += got
        return got

    def take(self, seat: int, kind: Kind, amount: int) -> int:
        got = self.draw(kind, amount)
        self.hands[seat][kind] += got
        return got

    def take_all(self, seat: int, bundle: Holdings) -> Holdings:
        return Holdings(**{k: self.take(seat, k, bundle.get(k)) for k in KINDS})

    def give_back(self, kind: Kind, amount: int) -> None:
        """Return cards that are on the table but in no hand (claim stacks) to the bank."""
        self.returned[kind] += amount

    def pay(self, seat: int, kind: Kind, amount: int) -> None:
        assert 0 <= amount <= self.hands[seat][kind], (seat, kind, amount)
        self.hands[seat][kind] -= amount
        self.returned[kind] += amount

    # -- players --------------------------------------------------------------------------

    def move(self, src: int, dst: int, bundle: Holdings) -> None:
        for k in KINDS:
            amount = bundle.get(k)
            assert amount <= self.hands[src][k], (src, k, amount)
            self.hands[src][k] -= amount
            self.hands[dst][k] += amount

    def hand(self, seat: int) -> Holdings:
        return Holdings(**self.hands[seat])

    def freeze(self) -> dict[str, object]:
        """The ``model_copy`` update for the state."""
        return {
            "holdings": tuple(Holdings(**h) for h in self.hands),
            "bank_taken": Holdings(**self.taken),
            "bank_returned": Holdings(**self.returned),
        }
