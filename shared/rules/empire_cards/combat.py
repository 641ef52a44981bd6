"""Battle comparison (CG-6 .. CG-8)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from shared.rules.empire_cards.cards import rank_of, regime_of_rank
from shared.rules.empire_cards.data import RANK_VALUE, REGIME_BEATS
from shared.rules.empire_cards.sets import is_battle_set, is_grail

Side = Literal["attacker", "defender"]


def battle_winner(attack: Sequence[str], defence: Sequence[str] | None) -> Side:
    """Who wins a battle between two army sets (CG-8).

    0) A defender with no battle set loses (CG-7); the Holy Grail (four Wizards) always wins,
       and a Grail against a Grail is a tie, which goes to the defender.
    1) More cards win (4 > 3 > 2).
    2) Same size: the regime cycle, Warlord > Thief > Merchant > Warlord.
    3) Same regime: the higher rank (Ace high).
    4) Still equal: the defender wins.
    """
    if defence is None:
        return "attacker"
    if is_grail(defence):
        return "defender"
    if is_grail(attack):
        return "attacker"
    if len(attack) != len(defence):
        return "attacker" if len(attack) > len(defence) else "defender"
    att_rank, def_rank = rank_of(attack[0]), rank_of(defence[0])
    att_regime, def_regime = regime_of_rank(att_rank), regime_of_rank(def_rank)
    if att_regime is None or def_regime is None:  # pragma: no cover - not battle sets
        raise ValueError("not battle sets")
    if att_regime != def_regime:
        return "attacker" if REGIME_BEATS[att_regime] == def_regime else "defender"
    if RANK_VALUE[att_rank] != RANK_VALUE[def_rank]:
        return "attacker" if RANK_VALUE[att_rank] > RANK_VALUE[def_rank] else "defender"
    return "defender"


class _BattleSet(dict[tuple[str, ...], bool]):
    """army set -> ``is_battle_set``, kept for the first ``_KEPT`` sets asked (bounded:
    hostile input): the armies on a table change more often than their sets do."""

    def __missing__(self, cards: tuple[str, ...]) -> bool:
        found = is_battle_set(cards)
        if len(self) < _KEPT:
            self[cards] = found
        return found


_KEPT = 8192
_IS_BATTLE_SET = _BattleSet()


@lru_cache(maxsize=4096)  # an army outlives many moves (bounded: hostile input)
def battle_sets(army: tuple[tuple[str, ...], ...]) -> tuple[int, ...]:
    """Indices of the army sets usable in battle (CG-8: never 2s; Wizards only as the Grail)."""
    is_battle = _IS_BATTLE_SET
    return tuple([i for i, s in enumerate(army) if is_battle[s]])


def best_defence(attack: Sequence[str], army: Sequence[tuple[str, ...]]) -> int | None:
    """A defending set that wins against ``attack`` if any, else the first battle set."""
    options = battle_sets(tuple(army))
    for index in options:
        if battle_winner(attack, army[index]) == "defender":
            return index
    return options[0] if options else None
