"""Set validation and the canonical set choices offered by ``legal_actions``.

``legal_actions`` lists one representative per distinct choice of *labels* (interchangeable
copies from different packs are not listed twice) and, for empire/Barbarian/Serf sets, the
canonical compositions (every same-suit composition, plus the one using the fewest Wizards).
``apply`` accepts ANY valid composition of cards from the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from shared.rules.empire_cards.cards import (
    is_wizard,
    label,
    rank_of,
    regime_of_rank,
    sorted_cards,
    suit_of,
)
from shared.rules.empire_cards.data import (
    ARMY_MAX,
    BARBARIAN_RANKS,
    REGIME_RANKS,
    SPECIAL_SET_SIZE,
    SUITS,
    WIZARD,
    Regime,
)

Cards = tuple[str, ...]

# A hand's rank groups are asked for several times a move (armies, additions, each run):
# memoized on the hand tuple, bounded (hostile input cannot grow the cache). The option lists
# themselves are not: a hand seldom repeats from one move to the next.
_memo = lru_cache(maxsize=8192)


def _t(cards: Sequence[str]) -> Cards:
    return cards if type(cards) is tuple else tuple(cards)

# ---------------------------------------------------------------- armies (CG-9)


def set_rank(cards: Sequence[str]) -> str:
    return rank_of(cards[0])


def is_grail(cards: Sequence[str]) -> bool:
    """Four Wizards in one army set: the Holy Grail (invincible, cannot be plundered)."""
    # the first card decides most sets without the generator
    return len(cards) == 4 and is_wizard(cards[0]) and all(is_wizard(c) for c in cards)


def is_four_twos(cards: Sequence[str]) -> bool:
    return len(cards) == 4 and rank_of(cards[0]) == "2" and all(rank_of(c) == "2" for c in cards)


def is_battle_set(cards: Sequence[str]) -> bool:
    """CG-8: a battle set is 2-4 of a regime rank, or the Holy Grail. 2s never battle."""
    if not 2 <= len(cards) <= ARMY_MAX:
        return False
    rank = set_rank(cards)
    if rank == WIZARD:
        return is_grail(cards)
    return regime_of_rank(rank) is not None


def army_protected(army: Sequence[Cards]) -> bool:
    """Four 2s in an army protect the WHOLE army from 2s and Wizard spells (CG-14)."""
    return any(is_four_twos(s) for s in army)


@_memo  # a 2's sabotage asks it of every army on the table
def plunderable_sets(army: tuple[Cards, ...]) -> tuple[int, ...]:
    """Army sets another player's 2 or spell may take from (not protected, not the Grail)."""
    if army_protected(army):
        return ()
    return tuple(i for i, s in enumerate(army) if s and not is_grail(s))


def valid_new_army_set(cards: Sequence[str]) -> bool:
    """CG-9: 2-4 of one rank; 2s and Wizards only as exactly four placed at once."""
    if not cards or len({rank_of(c) for c in cards}) != 1:
        return False
    rank = rank_of(cards[0])
    if rank in ("2", WIZARD):
        return len(cards) == 4
    return 2 <= len(cards) <= ARMY_MAX


def valid_army_addition(existing: Sequence[str], cards: Sequence[str]) -> bool:
    """Build onto a regime-rank set up to four cards (never onto 2s or Wizards)."""
    if not existing or not cards:
        return False
    rank = set_rank(existing)
    if regime_of_rank(rank) is None:
        return False
    return all(rank_of(c) == rank for c in cards) and len(existing) + len(cards) <= ARMY_MAX


@_memo
def label_combos(cards: Cards, size: int) -> tuple[Cards, ...]:
    """Combinations of ``size`` cards, one per distinct multiset of labels."""
    seen: set[tuple[str, ...]] = set()
    out: list[Cards] = []
    for combo in combinations(sorted_cards(cards), size):
        key = tuple(sorted(label(c) for c in combo))
        if key not in seen:
            seen.add(key)
            out.append(combo)
    return tuple(out)


@_memo
def _by_rank(hand: Cards) -> dict[str, Cards]:
    """Rank -> its cards in sort order (read-only: shared by every caller of this hand)."""
    groups: dict[str, list[str]] = {}
    for card in sorted_cards(hand):
        groups.setdefault(rank_of(card), []).append(card)
    return {rank: tuple(cards) for rank, cards in groups.items()}


def new_army_options(hand: Sequence[str]) -> list[Cards]:
    out: list[Cards] = []
    for rank, cards in _by_rank(_t(hand)).items():
        sizes = (4,) if rank in ("2", WIZARD) else (2, 3, 4)
        for size in sizes:
            if size <= len(cards):
                out.extend(label_combos(cards, size))
    return out


def addition_options(existing: Sequence[str], cards: Sequence[str]) -> list[Cards]:
    """Cards of ``existing``'s rank from ``cards`` built onto that regime-rank set, up to
    four cards (never onto 2s or Wizards)."""
    rank = set_rank(existing)
    if regime_of_rank(rank) is None:
        return []
    same = _by_rank(_t(cards)).get(rank, ())
    out: list[Cards] = []
    for size in range(1, ARMY_MAX - len(existing) + 1):
        if size <= len(same):
            out.extend(label_combos(same, size))
    return out


def army_addition_options(hand: Sequence[str], army: Sequence[Cards]) -> list[tuple[int, Cards]]:
    return [(index, combo) for index, existing in enumerate(army)
            for combo in addition_options(existing, hand)]


# ---------------------------------------------------------------- empire sets (CG-10, CG-11)


def valid_run(cards: Sequence[str], ranks: Sequence[str]) -> bool:
    """One card per rank of ``ranks``; Wizards are wild and fill any missing rank."""
    if len(cards) != len(ranks) or len(set(cards)) != len(cards):
        return False
    naturals = [rank_of(c) for c in cards if not is_wizard(c)]
    return len(set(naturals)) == len(naturals) and set(naturals) <= set(ranks)


def valid_empire_set(cards: Sequence[str], regime: Regime) -> bool:
    return valid_run(cards, REGIME_RANKS[regime])


def same_suit_bonus(cards: Sequence[str]) -> bool:
    """CG-11: the +2 same-suit bonus needs every card of one suit and no Wizard."""
    return not any(is_wizard(c) for c in cards) and len({suit_of(c) for c in cards}) == 1


def valid_barbarian(cards: Sequence[str]) -> bool:
    """A run 3..A (12 cards), Wizards allowed."""
    return valid_run(cards, BARBARIAN_RANKS)


def is_horde(cards: Sequence[str]) -> bool:
    """Barbarian Horde: a Barbarian set entirely of one suit with no Wizards (CG-19)."""
    return valid_barbarian(cards) and same_suit_bonus(cards)


def valid_serf(cards: Sequence[str]) -> bool:
    """Serf Rebellion: 12 cards of one suit; 2s and Wizards allowed (Wizards are wild)."""
    if len(cards) != SPECIAL_SET_SIZE or len(set(cards)) != len(cards):
        return False
    suits = {suit_of(c) for c in cards if not is_wizard(c)}
    return len(suits) == 1


def run_options(hand: Sequence[str], ranks: Sequence[str]) -> list[Cards]:
    """Canonical runs: each all-one-suit run without Wizards, and the fewest-Wizards run."""
    groups = _by_rank(_t(hand))
    wizards = groups.get(WIZARD, ())
    out: list[Cards] = []
    if all(r in groups for r in ranks):  # a one-suit run needs a natural of every rank
        first: dict[tuple[str, str | None], str] = {}  # (rank, suit) -> its lowest card
        for r in ranks:
            for c in groups[r]:
                first.setdefault((r, suit_of(c)), c)
        for suit in SUITS:
            picked = [first.get((r, suit)) for r in ranks]
            if all(picked):
                out.append(tuple(c for c in picked if c is not None))
    naturals = [groups[r][0] for r in ranks if groups.get(r)]
    missing = len(ranks) - len(naturals)
    if missing <= len(wizards):
        mixed = tuple(naturals) + tuple(wizards[:missing])
        if mixed not in out:
            out.append(mixed)
    return out


def empire_options(hand: Sequence[str], regime: Regime) -> list[Cards]:
    return run_options(hand, REGIME_RANKS[regime])


def barbarian_options(hand: Sequence[str]) -> list[Cards]:
    return run_options(hand, BARBARIAN_RANKS)


def serf_options(hand: Sequence[str]) -> list[Cards]:
    """Per suit: the lowest 12 cards of that suit, topped up with Wizards if needed."""
    ordered = sorted_cards(hand)
    wizards = [c for c in ordered if is_wizard(c)]
    out: list[Cards] = []
    for suit in SUITS:
        naturals = [c for c in ordered if suit_of(c) == suit][:SPECIAL_SET_SIZE]
        if naturals and len(naturals) + len(wizards) >= SPECIAL_SET_SIZE:
            out.append(tuple(naturals) + tuple(wizards[: SPECIAL_SET_SIZE - len(naturals)]))
    return out
