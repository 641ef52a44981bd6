"""The cards of a fresh clone, changed in place during one move.

Every card and gold piece moves through ``take`` (bank -> player), ``pay`` (player -> bank)
or ``move`` (player -> player), so the bank flows are always accounted for (E-5).
``Ledger(state)`` first gives the state its own copies of the hands and bank counts (a clone
shares them with the state it was cloned from, ``state.py``): make one only on the clone a
move is changing. ``Ledger(state, seats)`` copies only those seats' hands: a move that
changes only them (an auction's winner, a trade's two sides, none for the bank alone) says so
and leaves the others shared.
"""

from __future__ import annotations

from shared.rules.empire.data import KINDS, SUPPLY, Kind
from shared.rules.empire.state import EmpireState, Holdings


def bank_left(state: EmpireState, kind: Kind) -> int | None:
    """Cards of ``kind`` left in the bank; None = unlimited (E-5 default)."""
    if not state.options.strict_supply:
        return None
    return SUPPLY[kind] - state.bank_taken.get(kind) + state.bank_returned.get(kind)


class Ledger:
    __slots__ = ("hands", "returned", "state", "strict", "taken")

    def __init__(self, state: EmpireState, seats: tuple[int, ...] | None = None) -> None:
        """``seats``: the only hands this move changes (the others stay shared); None: all."""
        self.state = state
        self.strict = state.options.strict_supply
        if seats is None:
            self.hands: tuple[Holdings, ...] = tuple([h.copy() for h in state.holdings])
        else:
            hands = list(state.holdings)
            for s in seats:
                hands[s] = hands[s].copy()
            self.hands = tuple(hands)
        self.taken = state.bank_taken.copy()
        self.returned = state.bank_returned.copy()
        state.holdings, state.bank_taken, state.bank_returned = (
            self.hands, self.taken, self.returned)

    # -- the bank -------------------------------------------------------------------------

    def bank(self, kind: Kind) -> int | None:
        """Cards of ``kind`` left in the bank; None = unlimited (E-5 default)."""
        return bank_left(self.state, kind)

    def draw(self, kind: Kind, amount: int) -> int:
        """Take up to ``amount`` out of the bank (not into a hand); returns what was taken.

        E-5 strict supply: an empty bank gives what it has (possibly nothing).
        """
        taken = self.taken
        if self.strict:
            left = SUPPLY[kind] - getattr(taken, kind) + getattr(self.returned, kind)
            amount = max(0, min(amount, left))
        setattr(taken, kind, getattr(taken, kind) + amount)
        return amount

    def take(self, seat: int, kind: Kind, amount: int) -> int:
        """``draw`` into the seat's hand (up to ``amount``); returns what was taken."""
        taken = self.taken
        if self.strict:
            left = SUPPLY[kind] - getattr(taken, kind) + getattr(self.returned, kind)
            amount = max(0, min(amount, left))
        setattr(taken, kind, getattr(taken, kind) + amount)
        hand = self.hands[seat]
        setattr(hand, kind, getattr(hand, kind) + amount)
        return amount

    def take_all(self, seat: int, bundle: Holdings) -> Holdings:
        # a zero count takes nothing (and draws nothing from the bank): skipped
        return Holdings(*[self.take(seat, k, n) if (n := bundle.get(k)) else 0 for k in KINDS])

    def give_back(self, kind: Kind, amount: int) -> None:
        """Return cards that are on the table but in no hand (claim stacks) to the bank."""
        self.returned.add(kind, amount)

    def pay(self, seat: int, kind: Kind, amount: int) -> None:
        hand, returned = self.hands[seat], self.returned
        held = getattr(hand, kind)
        assert 0 <= amount <= held, (seat, kind, amount)
        setattr(hand, kind, held - amount)
        setattr(returned, kind, getattr(returned, kind) + amount)

    # -- players --------------------------------------------------------------------------

    def move(self, src: int, dst: int, bundle: Holdings) -> None:
        give, get = self.hands[src], self.hands[dst]
        for k in KINDS:
            amount = bundle.get(k)
            assert amount <= give.get(k), (src, k, amount)
            give.add(k, -amount)
            get.add(k, amount)

    def hand(self, seat: int) -> Holdings:
        return self.hands[seat].copy()
