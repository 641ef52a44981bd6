"""Pure helpers on card codes (see data.py for the code format)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache

from shared.rules.empire_cards.data import (
    PACKS_BY_SEATS,
    RANK_VALUE,
    REGIME_RANKS,
    SUITS,
    WIZARD,
    Regime,
    deck_cards,
)

_REGIME_OF_RANK: dict[str, Regime] = {
    rank: regime for regime, ranks in REGIME_RANKS.items() for rank in ranks
}


# Card codes are a small finite set: the parsers are memoized (bounded, so codes from hostile
# input cannot grow the caches). A playout spends most of its time sorting hands otherwise.
_memo = lru_cache(maxsize=2048)


@_memo
def is_wizard(card: str) -> bool:
    return card.startswith(WIZARD)


@_memo
def rank_of(card: str) -> str:
    """ "2".."A", or "W" for a Wizard."""
    return WIZARD if is_wizard(card) else card[:-2]


@_memo
def suit_of(card: str) -> str | None:
    return None if is_wizard(card) else card[-2]


@_memo
def label(card: str) -> str:
    """Rank and suit without the pack: identical labels are interchangeable copies."""
    return WIZARD if is_wizard(card) else card[:-1]


@_memo
def value(card: str) -> int:
    """Rank value (2..14, Ace high); Wizards 15 (they only matter in the Holy Grail)."""
    return 15 if is_wizard(card) else RANK_VALUE[rank_of(card)]


def regime_of_rank(rank: str) -> Regime | None:
    """Thief 3-6, Merchant 7-10, Warlord J-A; 2s and Wizards belong to no regime."""
    return _REGIME_OF_RANK.get(rank)


def regime_of(card: str) -> Regime | None:
    return regime_of_rank(rank_of(card))


@_memo
def sort_key(card: str) -> tuple[int, int, str]:
    suit = suit_of(card)
    return (value(card), SUITS.index(suit) if suit is not None else 4, card)


# The place of each code of the largest deck in ``sort_key`` order: an int compares faster
# than the key tuple, and hands are sorted on every draw and every legal list.
_PLACE: dict[str, int] = {c: i for i, c in enumerate(
    sorted(deck_cards(max(PACKS_BY_SEATS.values())), key=sort_key))}


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """``cards`` in hand order (rank value, suit, code)."""
    cards = cards if type(cards) is tuple else tuple(cards)
    try:
        return tuple(sorted(cards, key=_PLACE.__getitem__))
    except KeyError:  # a code of no deck: the key itself
        return tuple(sorted(cards, key=sort_key))


def insert_card(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``sorted_cards(hand + (card,))`` of a hand in hand order (``Player.hand``), the card
    put in its place by bisection: the order is total (each code has its own place), so the
    place between its two neighbours is the one a sort gives it."""
    try:
        at = bisect_right(hand, _PLACE[card], key=_PLACE.__getitem__)
    except KeyError:  # a code of no deck: the key itself
        return sorted_cards((*hand, card))
    return (*hand[:at], card, *hand[at:])


def remove_cards(holding: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    """``holding`` without ``cards`` (each must be present; callers validate first)."""
    out = list(holding)
    for card in cards:
        out.remove(card)
    return tuple(out)


def contains_all(holding: tuple[str, ...], cards: Iterable[str]) -> bool:
    """Whether every card is in ``holding`` (cards are unique codes, duplicates rejected)."""
    wanted = list(cards)
    return len(set(wanted)) == len(wanted) and set(wanted) <= set(holding)


def distinct_by_label(cards: Iterable[str]) -> tuple[str, ...]:
    """One representative code per label (for enumerating interchangeable choices)."""
    return _distinct_by_label(cards if type(cards) is tuple else tuple(cards))


@lru_cache(maxsize=8192)
def _distinct_by_label(cards: tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for card in sorted_cards(cards):
        seen.setdefault(label(card), card)
    return tuple(seen.values())
