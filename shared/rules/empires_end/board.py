"""Empire geometry and ability look-ups shared by every phase; the changes of an empire
(``set_location`` and below) are made in place on a state's clone."""

from __future__ import annotations

from shared.rules.empires_end.data import CARD, TILE, Ability, LocationType, Phase, ability
from shared.rules.empires_end.state import (
    EXHAUSTED,
    FRESH,
    Innovation,
    Location,
    Player,
    Res,
    location,
)

EMPIRE_SIZE = 11


def neighbours(pos: int, size: int = EMPIRE_SIZE) -> tuple[int, ...]:
    """Positions directly left and right (one at an edge)."""
    if size == EMPIRE_SIZE and 0 <= pos < EMPIRE_SIZE:
        return _NEIGHBOURS[pos]
    return tuple(p for p in (pos - 1, pos + 1) if 0 <= p < size)


_NEIGHBOURS = tuple(tuple(p for p in (pos - 1, pos + 1) if 0 <= p < EMPIRE_SIZE)
                    for pos in range(EMPIRE_SIZE))


def position_of_tile(empire: tuple[Location, ...], tile: str) -> int | None:
    for i, loc in enumerate(empire):
        if loc.tile == tile:
            return i
    return None


def position_of_ref(empire: tuple[Location, ...], ref: str) -> int | None:
    """Position of a tile id or of the location an innovation card is under."""
    for i, loc in enumerate(empire):
        if loc.tile == ref:
            return i
        for inn in loc.innovations:  # (a loop, not ``any``: no generator per location)
            if inn.card == ref:
                return i
    return None


# (id of an empire tuple, phase) -> (that tuple, its ``active``): an empire is an immutable
# tuple of frozen locations that clones share until a move builds a new one, so most asks
# are for a tuple seen before; the tuple is kept so that its id is not reused while cached.
# Only the seats' current empires are asked for again, so a few entries serve: a large memo
# lives long enough for the garbage collector to promote its entries, and every young and
# full collection then walks them (a playout's collections cost more than its memo saved)
ACTIVE_MAX = 64
_ACTIVE: dict[tuple[int, str], tuple[tuple[Location, ...], tuple[tuple[int, str, Ability], ...]]] \
    = {}


def active(player: Player, phase: Phase) -> tuple[tuple[int, str, Ability], ...]:
    """(position, ref, ability) of every usable ability of ``phase``: a location's own ability
    and its innovations, only while the location is healthy; left to right."""
    empire = player.empire
    if type(empire) is not tuple:  # (only an immutable empire is cached)
        return _active(tuple(empire), phase)
    got = _ACTIVE.get((id(empire), phase))
    if got is not None and got[0] is empire:
        return got[1]
    if len(_ACTIVE) >= ACTIVE_MAX:
        _ACTIVE.clear()
    out = _active(empire, phase)
    _ACTIVE[(id(empire), phase)] = (empire, out)
    return out


# tile or card id -> its printed ability (``data.ability`` as one look-up)
_ABILITY: dict[str, Ability] = {ref: ability(ref) for ref in (*TILE, *CARD)}


# phase -> tile or card id -> its printed ability, for the abilities of that phase
_OF_PHASE: dict[str, dict[str, Ability]] = {
    phase: {ref: ab for ref, ab in _ABILITY.items() if ab.phase == phase}
    for phase in {ab.phase for ab in _ABILITY.values()}}


# the phases some location tile has an ability of (the others' are on innovations alone)
_TILE_PHASES = frozenset(_ABILITY[t].phase for t in TILE)


def _active(empire: tuple[Location, ...], phase: Phase) -> tuple[tuple[int, str, Ability], ...]:
    out = []
    mine = _OF_PHASE.get(phase, {})
    tiles = phase in _TILE_PHASES
    for pos, loc in enumerate(empire):
        if loc.healthy:
            if tiles:
                tile = loc.tile
                if tile in mine:
                    out.append((pos, tile, mine[tile]))
            innovations = loc.innovations
            if innovations:
                for inn in innovations:
                    card = inn.card
                    if card in mine:
                        out.append((pos, card, mine[card]))
    return tuple(out)


_MORE = 1 << 30  # more innovations than any location holds
IndustryView = tuple[tuple[tuple[int, str, Ability], ...], tuple[str, ...], tuple[int, ...],
                     tuple[str, ...]]
# id of an empire tuple -> (that tuple, its ``industry_view``), as ``_ACTIVE``: a seat's
# Industry listing is asked for again with the same empire after a sell or a discard
_VIEWS: dict[int, tuple[tuple[Location, ...], IndustryView]] = {}


def industry_view(empire: tuple[Location, ...]) -> IndustryView:
    """For the Industry listing, in one pass: ``active`` of "industry" (remembered as
    ``active`` remembers it), the tiles of ``placement_candidates``, the destroyed
    positions and the tiles in position order."""
    got = _VIEWS.get(id(empire))
    if got is not None and got[0] is empire:
        return got[1]
    out = []
    place: list[str] = []
    destroyed: list[int] = []
    names: list[str] = []
    least = _MORE  # the fewest innovations of a healthy location so far
    mine = _OF_PHASE.get("industry", {})
    for pos, loc in enumerate(empire):
        tile = loc.tile
        names.append(tile)
        if loc.healthy:
            if tile in mine:
                out.append((pos, tile, mine[tile]))
            innovations = loc.innovations
            n = 0
            if innovations:
                for inn in innovations:
                    card = inn.card
                    if card in mine:
                        out.append((pos, card, mine[card]))
                n = len(innovations)
            if n < least:
                least = n
                place = [tile]
            elif n == least:
                place.append(tile)
        else:
            destroyed.append(pos)
    view = (tuple(out), tuple(place), tuple(destroyed), tuple(names))
    if type(empire) is tuple:  # (only an immutable empire is remembered)
        if len(_ACTIVE) >= ACTIVE_MAX:
            _ACTIVE.clear()
        _ACTIVE[(id(empire), "industry")] = (empire, view[0])
        if len(_VIEWS) >= ACTIVE_MAX:
            _VIEWS.clear()
        _VIEWS[id(empire)] = (empire, view)
    return view


def remember_built(empire: tuple[Location, ...], view: IndustryView, pos: int, card: str
                   ) -> None:
    """Remember ``industry_view`` of ``empire``: the empire ``view`` is of with ``card`` built
    at ``pos``, one of its placement tiles (so healthy). Destroyed positions and tile order
    are the same; ``card``'s Industry ability, if any, comes after its location's others; the
    tile leaves the placement tiles, which are then the others of the fewest innovations.
    When it was the only one, the fewest changed: the next listing scans the empire."""
    industry, place, destroyed, names = view
    tile = names[pos]
    if len(place) < 2:
        return
    ab = _OF_PHASE["industry"].get(card)
    if ab is not None:
        at = len(industry)
        for i, (q, _, _) in enumerate(industry):
            if q > pos:
                at = i
                break
        industry = (*industry[:at], (pos, card, ab), *industry[at:])
    built = (industry, tuple([t for t in place if t != tile]), destroyed, names)
    if len(_ACTIVE) >= ACTIVE_MAX:
        _ACTIVE.clear()
    _ACTIVE[(id(empire), "industry")] = (empire, industry)
    if len(_VIEWS) >= ACTIVE_MAX:
        _VIEWS.clear()
    _VIEWS[id(empire)] = (empire, built)


def find_active(player: Player, ref: str, phase: Phase) -> tuple[int, Ability] | None:
    for pos, r, ab in active(player, phase):
        if r == ref:
            return pos, ab
    return None


def innovation_at(loc: Location, card: str) -> Innovation | None:
    for inn in loc.innovations:
        if inn.card == card:
            return inn
    return None


def count_adjacent(
    empire: tuple[Location, ...], pos: int, *, healthy: bool, kind: LocationType | None = None
) -> int:
    n = 0
    for q in neighbours(pos, len(empire)):
        loc = empire[q]
        if loc.healthy == healthy and (kind is None or _TYPE[loc.tile] == kind):
            n += 1
    return n


_TYPE: dict[str, LocationType] = {t: TILE[t].type for t in TILE}


def placement_candidates(empire: tuple[Location, ...], exclude: int | None = None) -> list[int]:
    """Healthy locations with the fewest innovations among healthy locations (never a
    destroyed one). ``exclude``: a position that may not receive (move innovation)."""
    out: list[int] = []
    least = -1
    for i, loc in enumerate(empire):
        if not loc.healthy:
            continue
        n = len(loc.innovations)
        if least < 0 or n < least:
            least = n
            out = [] if i == exclude else [i]
        elif n == least and i != exclude:
            out.append(i)
    return out


def destroy_candidates(empire: tuple[Location, ...], target: int) -> list[int]:
    """EEND-4: the target if healthy; else the nearest healthy location(s) (adjacent first,
    then distance 2, 3, ...); equidistant pairs are the taker's choice; none = nothing."""
    if empire[target].healthy:
        return [target]
    for d in range(1, len(empire)):
        found = []  # (a loop: a comprehension is a function made and called)
        for p in (target - d, target + d):
            if 0 <= p < len(empire) and empire[p].healthy:
                found.append(p)
        if found:
            return found
    return []


def base_strength(player: Player) -> int:
    """Conflict strength from healthy locations and their innovations."""
    total = 0
    for _, _, ab in active(player, "conflict"):
        if ab.kind == "strength":
            total += ab.amount
    return total


def repair_cost(player: Player, pos: int) -> int:
    """EEND-13: printed cost minus 1 per adjacent 'discount adjacent repairs' (stacking), >= 0."""
    cost = TILE[player.empire[pos].tile].repair
    for q, _, ab in active(player, "industry"):
        if ab.kind == "repair_discount_adjacent" and abs(q - pos) == 1:
            cost -= 1
    return max(0, cost)


def pay_options(res: Res, cost: int) -> list[int]:
    """Coin counts k that pay ``cost`` as k coins + (cost - k) hammers."""
    return [k for k in range(0, min(cost, res.coin) + 1) if res.hammer >= cost - k]


def set_location(player: Player, pos: int, loc: Location) -> None:
    """In place: ``loc`` at ``pos`` (a new empire tuple; locations are never changed)."""
    empire = list(player.empire)
    empire[pos] = loc
    player.empire = tuple(empire)


def swap_positions(player: Player, a: int, b: int) -> None:
    """In place: swap two locations; innovations travel with them (rulebook, EEND-14)."""
    empire = list(player.empire)
    empire[a], empire[b] = empire[b], empire[a]
    player.empire = tuple(empire)


def set_exhausted(player: Player, card: str, exhausted: bool) -> None:
    """In place: the exhaust marker of innovation ``card`` set or removed."""
    pos = position_of_ref(player.empire, card)
    if pos is None:
        return
    loc = player.empire[pos]
    marked = EXHAUSTED if exhausted else FRESH
    innovations = tuple([marked[inn.card] if inn.card == card else inn
                         for inn in loc.innovations])
    set_location(player, pos, location(loc.tile, loc.healthy, innovations))


def refresh_positions(player: Player, positions: tuple[int, ...]) -> list[str]:
    """In place: remove every exhaust marker under the given positions; returns the
    refreshed cards."""
    done: list[str] = []
    for q in positions:
        for inn in player.empire[q].innovations:
            if inn.exhausted:
                set_exhausted(player, inn.card, False)
                done.append(inn.card)
    return done


def all_cards(player: Player) -> list[str]:
    return [inn.card for loc in player.empire for inn in loc.innovations]
