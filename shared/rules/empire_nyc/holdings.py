"""Who holds what on one map: each seat's neighborhoods and each neighborhood's enemy and
own neighbours, derived from an ``owner`` tuple.

The owner tuple changes only at the deal and at a conquest, so most moves of a game look at
the same tuple object (a clone shares it, and its ``Holdings`` with it: ``turns.held``); a
conquest derives the next ``Holdings`` from the last (``after_conquest``). Each
neighborhood's neighbour lists are made the first time they are asked for, the same
whenever made: filling them in is all that ever changes in a ``Holdings``, so the states of
one map share it.
"""

from __future__ import annotations

from shared.rules.empire_nyc import board


class Holdings:
    """Each seat's neighborhoods (``owned``) and each neighborhood's enemy and own
    neighbours (``enemies``, ``friends``) for one ``owner`` tuple."""

    __slots__ = ("adj", "enemies_of", "friends_of", "fronts", "mine", "owner")

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
        self.enemies_of: list[tuple[int, ...] | None] = [None] * len(owner)
        self.friends_of: list[tuple[int, ...] | None] = [None] * len(owner)
        self.fronts: dict[int, tuple[tuple[int, tuple[int, ...]], ...]] = {}

    def after_conquest(self, owner: tuple[int, ...], nb: int) -> Holdings:
        """The holdings of ``owner``, this map once ``nb`` changed hands: only the lists of
        ``nb`` and its neighbours are made again (when asked for)."""
        new = Holdings.__new__(Holdings)
        new.owner, new.adj = owner, self.adj
        loser, winner = self.owner[nb], owner[nb]
        mine = self.mine.copy()
        mine[loser] = tuple(i for i in mine[loser] if i != nb)
        mine[winner] = tuple(sorted((*mine.get(winner, ()), nb)))
        new.mine = mine
        enemies, friends = self.enemies_of.copy(), self.friends_of.copy()
        enemies[nb] = friends[nb] = None
        for j in self.adj[nb]:
            enemies[j] = friends[j] = None
        new.enemies_of, new.friends_of = enemies, friends
        new.fronts = {}  # a conquest moves the front lines of the seats around ``nb``
        return new

    def owned(self, seat: int) -> tuple[int, ...]:
        """The seat's neighborhoods, in index order."""
        return self.mine.get(seat, ())

    def enemies(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner does not hold, in index order."""
        got = self.enemies_of[nb]
        if got is None:
            owner = self.owner
            seat = owner[nb]
            got = self.enemies_of[nb] = tuple(j for j in self.adj[nb] if owner[j] != seat)
        return got

    def friends(self, nb: int) -> tuple[int, ...]:
        """The neighbours of ``nb`` its owner also holds, in index order."""
        got = self.friends_of[nb]
        if got is None:
            owner = self.owner
            seat = owner[nb]
            got = self.friends_of[nb] = tuple(j for j in self.adj[nb] if owner[j] == seat)
        return got

    def front(self, seat: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """The seat's neighborhoods that border an enemy, each with its ``enemies``, in index
        order (what an attack is made from)."""
        got = self.fronts.get(seat)
        if got is None:
            known, front = self.enemies_of, []
            for i in self.mine.get(seat, ()):
                e = known[i]
                if e is None:
                    e = self.enemies(i)
                if e:
                    front.append((i, e))
            got = self.fronts[seat] = tuple(front)
        return got
