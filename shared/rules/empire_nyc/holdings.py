"""Who holds what on one map: each seat's neighborhoods and each neighborhood's enemy and
own neighbours, derived from an ``owner`` tuple.

The owner tuple changes only at the deal and at a conquest, so most moves of a game look at
the same tuple object (a clone shares it). ``holdings(owner, extra_links)`` remembers the
last answer by the identity of that tuple, and each neighborhood's neighbour lists are made
the first time they are asked for. A ``Holdings`` is never changed once its lists are made.
"""

from __future__ import annotations

from shared.rules.empire_nyc import board


class Holdings:
    __slots__ = ("adj", "enemies_of", "friends_of", "mine", "owner")

    def __init__(self, owner: tuple[int, ...], extra_links: bool) -> None:
        self.owner = owner
        self.adj = board.sorted_adjacency(extra_links)
        mine: dict[int, list[int]] = {}
        for i, o in enumerate(owner):
            nbs = mine.get(o)
            if nbs is None:
                mine[o] = [i]
            else:
                nbs.append(i)
        self.mine = {o: tuple(nbs) for o, nbs in mine.items()}
        self.enemies_of: dict[int, tuple[int, ...]] = {}
        self.friends_of: dict[int, tuple[int, ...]] = {}

    def owned(self, seat: int) -> tuple[int, ...]:
        """The seat's neighborhoods, in index order."""
        return self.mine.get(seat, ())

    def enemies(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner does not hold, in index order."""
        got = self.enemies_of.get(nb)
        if got is None:
            owner = self.owner
            seat = owner[nb]
            got = self.enemies_of[nb] = tuple(j for j in self.adj[nb] if owner[j] != seat)
        return got

    def friends(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner also holds, in index order."""
        got = self.friends_of.get(nb)
        if got is None:
            owner = self.owner
            seat = owner[nb]
            got = self.friends_of[nb] = tuple(j for j in self.adj[nb] if owner[j] == seat)
        return got


_last: list[tuple[tuple[int, ...], bool, Holdings]] = []


def holdings(owner: tuple[int, ...], extra_links: bool) -> Holdings:
    """The holdings of this owner tuple (the last one asked for is remembered)."""
    if _last:
        last = _last[0]
        if last[0] is owner and last[1] is extra_links:
            return last[2]
    h = Holdings(owner, extra_links)
    _last[:] = [(owner, extra_links, h)]
    return h
