"""Who holds what on one map: each seat's neighborhoods and each neighborhood's enemy and own
neighbours, derived from an ``owner`` tuple.

The owner tuple changes only at the deal and at a conquest, so most moves of a game look at
the same tuple object (a clone shares it, and its ``Holdings`` with it: ``turns.held``); a
conquest derives the next ``Holdings`` from the last (``after_conquest``). Each seat's
neighborhoods are also kept as a bit mask (bit i: neighborhood i), so a neighborhood's enemy
or own neighbours are one ``&`` of its neighbour mask (``board.adjacency_masks``). A seat's
front (with its listed attacks) is made the first time it is asked for, the same whenever
made: filling it in is all that ever changes in a ``Holdings``, so the states of one map
share it. A conquest keeps the other seats' fronts and derives the winner's from its last.
"""

from __future__ import annotations

from bisect import bisect_left

from shared.rules.api import Json
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.tables import ATTACK_SETS

NEIGHBOURS = board.NEIGHBOURS
# a seat's front: (neighborhood, its attacks indexed by the most dice allowed) in index order
Front = tuple[tuple[int, tuple[tuple[Json, ...], ...]], ...]


class Holdings:
    """Each seat's neighborhoods (``owned``, ``mask``) and each neighborhood's enemy and own
    neighbours (``enemies``, ``friends``) for one ``owner`` tuple."""

    __slots__ = ("adj", "fronts", "masks", "mine", "owner")

    def __init__(self, owner: tuple[int, ...], extra_links: bool) -> None:
        self.owner = owner
        self.adj = board.adjacency_masks(extra_links)
        mine: dict[int, list[int]] = {}
        for i, o in enumerate(owner):
            nbs = mine.get(o)
            if nbs is None:
                mine[o] = [i]
            else:
                nbs.append(i)
        self.mine = {o: tuple(nbs) for o, nbs in mine.items()}
        self.masks = {o: sum(1 << i for i in nbs) for o, nbs in mine.items()}
        self.fronts: dict[int, Front] = {}

    def after_conquest(self, owner: tuple[int, ...], nb: int) -> Holdings:
        """The holdings of ``owner``, this map once ``nb`` changed hands: only the loser's and
        the winner's neighborhoods change, and with them only their fronts."""
        new = Holdings.__new__(Holdings)
        new.owner, new.adj = owner, self.adj
        loser, winner = self.owner[nb], owner[nb]
        mine = self.mine.copy()
        lost = mine[loser]
        k = lost.index(nb)
        mine[loser] = lost[:k] + lost[k + 1:]
        won = mine.get(winner, ())
        k = bisect_left(won, nb)
        mine[winner] = (*won[:k], nb, *won[k:])
        new.mine = mine
        masks = self.masks.copy()
        bit = 1 << nb
        masks[loser] ^= bit
        masks[winner] = masks.get(winner, 0) | bit
        new.masks = masks
        fronts = self.fronts.copy()  # a seat's front depends on its own neighborhoods only
        fronts.pop(loser, None)
        front = fronts.pop(winner, None)
        if front is not None:  # (the winner's is asked for next: it may go on attacking)
            fronts[winner] = self._front_gaining(front, nb, masks[winner])
        new.fronts = fronts
        return new

    def _front_gaining(self, front: Front, nb: int, mine: int) -> Front:
        """``front`` once its seat took ``nb`` (``mine``: its neighborhoods with ``nb``):
        ``nb`` joins it if it borders an enemy and its neighbours no longer have ``nb`` as
        an enemy; every other entry stays as it was. Each neighbour of ``nb`` the seat held
        bordered ``nb``, an enemy, so it was in ``front``."""
        adj, others = self.adj, ~mine
        near = adj[nb]
        own = near & others  # ``nb``'s enemies
        pending = own != 0  # ``nb`` still to be placed, in index order
        out = []
        for entry in front:
            i = entry[0]
            if pending and i > nb:
                out.append((nb, ATTACK_SETS[nb][own]))
                pending = False
            if near >> i & 1:
                m = adj[i] & others
                if m:
                    out.append((i, ATTACK_SETS[i][m]))
            else:
                out.append(entry)
        if pending:
            out.append((nb, ATTACK_SETS[nb][own]))
        return tuple(out)

    def owned(self, seat: int) -> tuple[int, ...]:
        """The seat's neighborhoods, in index order."""
        return self.mine.get(seat, ())

    def mask(self, seat: int) -> int:
        """The seat's neighborhoods as a bit mask."""
        return self.masks.get(seat, 0)

    def enemies(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner does not hold, in index order."""
        return NEIGHBOURS[nb][self.adj[nb] & ~self.masks[self.owner[nb]]]

    def friends(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner also holds, in index order."""
        return NEIGHBOURS[nb][self.adj[nb] & self.masks[self.owner[nb]]]

    def front(self, seat: int) -> Front:
        """The seat's neighborhoods that border an enemy, in index order (what an attack is
        made from), each with its attacks on its ``enemies`` by the most dice allowed
        (``tables.ATTACK_SETS``)."""
        got = self.fronts.get(seat)
        if got is None:
            adj, others = self.adj, ~self.masks.get(seat, 0)
            front = []
            for i in self.mine.get(seat, ()):
                m = adj[i] & others
                if m:
                    front.append((i, ATTACK_SETS[i][m]))
            got = self.fronts[seat] = tuple(front)
        return got
