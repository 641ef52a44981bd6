"""The action dicts the legal lists are made of, built once and shared.

A random playout asks for a turn's legal actions on every move, and the list is mostly the
same dicts from one move to the next: a discard or a trade of a card, a battle demand, the
army sets of one rank group. They are built once (per card code, per rank group, per table)
and every legal list holds the same objects, like the lists the kit remembers per state. Nobody
changes an action dict (the kit parses a copy into the action model); the tables are bounded
(the deck's card codes; lru caches per rank group).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypeAlias

from shared.rules.api import Json
from shared.rules.empire_cards.cards import (
    distinct_by_label,
    label,
    rank_of,
    regime_of_rank,
    suit_of,
)
from shared.rules.empire_cards.data import (
    ARMY_MAX,
    BARBARIAN_RANKS,
    PACKS_BY_SEATS,
    RANKS,
    REGIME_RANKS,
    REGIMES,
    SUITS,
    WIZARD,
    Regime,
    deck_cards,
)
from shared.rules.empire_cards.sets import (
    Cards,
    label_combos,
    new_army_options,
)

_CODES = deck_cards(max(PACKS_BY_SEATS.values()))
_SEATS = range(max(PACKS_BY_SEATS))

class ByCard(dict[str, Json]):
    """card code -> the action dict naming that card (``base`` plus ``"card"``): built for
    every code of the deck; any other code gets a fresh dict, not kept (bounded)."""

    def __init__(self, base: dict[str, Json]) -> None:
        super().__init__({c: {**base, "card": c} for c in _CODES})
        self.base = base

    def __missing__(self, card: str) -> Json:
        return {**self.base, "card": card}


DRAW: Json = {"type": "draw"}
PASS: Json = {"type": "pass"}
DISCARD = ByCard({"type": "discard"})
DISCARD_OF = DISCARD.__getitem__  # card -> its discard
SPELL = ByCard({"type": "spell"})
BATTLE_GIVE = ByCard({"type": "battle_give"})
HAND_CHOICE = {kind: ByCard({"type": kind}) for kind in ("trade_reply", "tribute")}
STEAL: tuple[Json, ...] = tuple({"type": "steal", "target": t} for t in _SEATS)
TRADE: tuple[ByCard, ...] = tuple(ByCard({"type": "trade", "target": t}) for t in _SEATS)
TRADE_OF = tuple(trade.__getitem__ for trade in TRADE)  # seat -> card -> its trade offer


@lru_cache(maxsize=64)
def battle_set(index: int) -> Json:
    """The choice of army set ``index`` for a battle."""
    return {"type": "battle_set", "set": index}


SABOTAGE_NONE: Json = {"type": "sabotage_none"}
SABOTAGE_SKIP: tuple[Json, ...] = tuple({"type": "sabotage_skip", "target": t} for t in _SEATS)


class _ByFields(dict[tuple[int, ...], ByCard]):
    """(the values of ``fields``) -> the ``ByCard`` of ``base`` with those fields, made when
    first asked (bounded: the seats of a table and the sets of an army): an army set changes
    more often than its index, so its actions are shared dicts, like a discard's."""

    def __init__(self, base: dict[str, Json], fields: tuple[str, ...]) -> None:
        super().__init__()
        self.base, self.fields = base, fields

    def __missing__(self, key: tuple[int, ...]) -> ByCard:
        made = self[key] = ByCard({**self.base, **dict(zip(self.fields, key, strict=True))})
        return made


_SABOTAGE_TAKE = _ByFields({"type": "sabotage_take"}, ("target", "set"))
_DISBAND = _ByFields({"type": "disband"}, ("set",))


@lru_cache(maxsize=8192)
def sabotage_takes(target: int, index: int, cards: Cards) -> tuple[Json, ...]:
    """A 2's plunder of army set ``index`` of ``target`` (CG-14): one per label."""
    return tuple(map(_SABOTAGE_TAKE[target, index].__getitem__, distinct_by_label(cards)))


@lru_cache(maxsize=64)
def battles(n_seats: int, seat: int, demand: str) -> tuple[Json, ...]:
    """Every battle declaration of ``seat``: each opponent, each demand (CG-6)."""
    if demand == "rank_suit":
        demands: list[tuple[str, str | None]] = [(r, s) for r in RANKS for s in SUITS]
    else:
        demands = [(r, None) for r in RANKS]
    demands.append((WIZARD, None))
    return tuple({"type": "battle", "target": t, "rank": r, "suit": s}
                 for t in range(n_seats) if t != seat for r, s in demands)


Names: TypeAlias = tuple[str, str, int, Cards]


class _Names(dict[str, Names]):
    """card code -> (``cards.rank_of``, ``cards.label``, the bit of its rank in a rank mask,
    ``RANK_BIT``, the card alone as a rank group) of any code, computed and not kept
    (bounded): the names of a code of no deck (``hand_groups``)."""

    def __missing__(self, card: str) -> Names:
        rank = rank_of(card)
        return rank, label(card), RANK_BIT.get(rank, 0), (card,)


# a rank's bit in a hand's rank mask (``hand_groups``): the 13 ranks, then the Wizard
RANK_BIT: dict[str, int] = {rank: 1 << i for i, rank in enumerate((*RANKS, WIZARD))}
# the names of the deck's codes, a plain dict (its lookups cost less than a subclass's)
_NAMES: dict[str, Names] = {
    c: (rank_of(c), label(c), RANK_BIT[rank_of(c)], (c,)) for c in _CODES}
_ANY_NAMES = _Names()


class _Rank(dict[str, str]):
    """card code -> ``cards.rank_of``, filled like ``_Names``."""

    def __missing__(self, card: str) -> str:
        return rank_of(card)


class _Suits(dict[str, str | None]):
    """card code -> ``cards.suit_of`` (None: a Wizard), filled like ``_Names``."""

    def __missing__(self, card: str) -> str | None:
        return suit_of(card)


_SUIT_OF = _Suits({c: suit_of(c) for c in _CODES}).__getitem__

RANK = _Rank({c: rank_of(c) for c in _CODES})
"""card code -> ``cards.rank_of``, filled for the deck's codes"""


class _Unstealable(dict[str, bool]):
    """card code -> never stolen from the top of a pile: a 2 or a Wizard (CG-15); filled
    like ``_Rank``."""

    def __missing__(self, card: str) -> bool:
        return rank_of(card) in ("2", WIZARD)


UNSTEALABLE = _Unstealable({c: rank_of(c) in ("2", WIZARD) for c in _CODES})

# the other seats of a table of n, in seat order: OPPONENTS[n][seat]
OPPONENTS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(t for t in range(n) if t != seat) for seat in range(n))
    for n in PACKS_BY_SEATS}

HandGroups: TypeAlias = tuple[list[str], dict[str, Cards], list[str], int]
# the hand asked last and its groups, one tuple replaced whole (a reader sees a pair)
_last_hand: tuple[Cards | None, HandGroups | None] = (None, None)


def hand_groups(hand: Cards) -> HandGroups:
    """A hand's distinct cards (one per label, ``cards.distinct_by_label``), its rank groups
    (rank -> its cards, ``sets.rank_groups``), the ranks it holds more than one card of (in
    hand order) and the mask of the ranks it holds (``RANK_BIT``), all read-only, read in one
    pass over the hand in its kept order (``Player.hand``: every change of a hand keeps it,
    and ``stored`` sorts a decoded one), where copies of a label and cards of a rank are
    neighbours. A hand seldom repeats, except as the very tuple of the last call (a state
    whose player did not change: a clone shares it), which is answered again."""
    global _last_hand
    last, known = _last_hand
    if last is hand and known is not None:
        return known
    try:
        found = _read_hand(hand, _NAMES)
    except KeyError:  # a code of no deck
        found = _read_hand(hand, _ANY_NAMES)
    _last_hand = (hand, found)
    return found


def _read_hand(hand: Cards, names: dict[str, Names]) -> HandGroups:
    groups: dict[str, Cards] = {}
    distinct: list[str] = []
    pairs: list[str] = []
    mask = 0
    last = at = None
    group: Cards = ()
    for card in hand:
        rank, name, bit, alone = names[card]
        if rank == at:  # the rank of the card before: a rank's cards are neighbours
            if len(group) == 1:
                pairs.append(rank)
            group = groups[rank] = (*group, card)
        else:  # the first card of its rank: its group made once per code
            at = rank
            group = groups[rank] = alone
            mask |= bit
        if name != last:
            distinct.append(card)
            last = name
    return distinct, groups, pairs, mask


class _RegimesHeld(dict[int, tuple[Regime, ...]]):
    """(a hand's rank mask | its Wizards << 16) -> the regimes it has an empire set of:
    every rank of the regime, a Wizard for each rank it lacks (CG-10); filled as asked
    (bounded: the masks of 14 ranks, the Wizards of the deck)."""

    def __missing__(self, key: int) -> tuple[Regime, ...]:
        mask, wizards = key & 0xFFFF, key >> 16
        held = tuple(regime for regime, ranks in REGIME_MASK.items()
                     if (ranks & ~mask).bit_count() <= wizards)
        self[key] = held
        return held


# in ``REGIMES`` order, the order the legal list names them in
REGIME_MASK: dict[Regime, int] = {
    regime: sum(RANK_BIT[r] for r in REGIME_RANKS[regime]) for regime in REGIMES}
REGIMES_HELD = _RegimesHeld()
BARBARIAN_SET = frozenset(BARBARIAN_RANKS)  # the Barbarian run's ranks


def empire_sets(groups: dict[str, Cards], regime: Regime) -> tuple[Json, ...]:
    """The canonical empire sets of ``regime`` from a hand's rank groups."""
    wizards = groups.get(WIZARD, ())
    run = tuple([groups.get(r, ()) for r in REGIME_RANKS[regime]])
    if run.count(()) > len(wizards):  # a run needs a Wizard per missing rank
        return ()
    return empires(regime, (*run, wizards))


class _Armies(dict[tuple[int | None, Cards], Json]):
    """(army set index, None for a new set; its cards) -> the army action, shared by the lru
    entries of ``new_armies`` and ``additions`` (one per hand group and set size), so that a
    pick is one dict ``engine.play_listed`` has read before; emptied at ``_ARMIES_KEPT``
    entries (bounded)."""

    def __missing__(self, key: tuple[int | None, Cards]) -> Json:
        if len(self) >= _ARMIES_KEPT:
            self.clear()
        index, cards = key
        made = self[key] = {"type": "army", "cards": list(cards), "set": index}
        return made


_ARMIES_KEPT = 16384
_ARMY = _Armies()


@lru_cache(maxsize=8192)
def new_armies(group: Cards) -> tuple[Json, ...]:
    """New army sets from one rank group of a hand (``sets.new_army_options``, CG-9)."""
    return tuple([_ARMY[None, c] for c in new_army_options(group)])


@lru_cache(maxsize=8192)
def additions(index: int, held: int, group: Cards) -> tuple[Json, ...]:
    """Cards of one rank group (in hand order) built onto army set ``index``, which holds
    ``held`` cards of that rank (``sets.addition_options``: only the set's rank and size
    matter, so sets of one rank and size share the entry)."""
    if regime_of_rank(rank_of(group[0])) is None:  # never onto 2s or Wizards
        return ()
    return tuple([_ARMY[index, c]
                  for size in range(1, ARMY_MAX - held + 1) if size <= len(group)
                  for c in label_combos(group, size)])


@lru_cache(maxsize=8192)
def empires(regime: Regime, groups: tuple[Cards, ...]) -> tuple[Json, ...]:
    """The canonical empire sets of ``regime`` from its rank groups and the Wizards
    (``groups``: one per rank of the regime, then the Wizards)."""
    return tuple({"type": "empire", "regime": regime, "cards": list(c)}
                 for c in runs(groups[:-1], groups[-1]))


def runs(run: tuple[Cards, ...], wizards: Cards) -> list[Cards]:
    """``sets.run_options`` of a hand given by its rank groups (each in hand order, one per
    rank of the run) and its Wizards: each all-one-suit run without Wizards (the lowest card
    of that suit per rank), then the run of each rank's lowest card and the fewest Wizards."""
    out: list[Cards] = []
    if all(run):  # a one-suit run needs a natural of every rank
        for suit in SUITS:
            picked = []
            for group in run:
                card = next((c for c in group if _SUIT_OF(c) == suit), None)
                if card is None:
                    break
                picked.append(card)
            else:
                out.append(tuple(picked))
    naturals = tuple([group[0] for group in run if group])
    missing = len(run) - len(naturals)
    if missing <= len(wizards):
        mixed = naturals + wizards[:missing]
        if mixed not in out:
            out.append(mixed)
    return out


@lru_cache(maxsize=8192)
def disbands(index: int, cards: Cards) -> tuple[Json, ...]:
    """One card of army set ``index`` back to the discard pile, one per label."""
    return tuple(map(_DISBAND[index,].__getitem__, distinct_by_label(cards)))
