"""Empire's End (John D Clair, Brotherwise Games 2022): the rules engine.

Rulebook: shared/rules/empires-end.txt; component data and rulings EEND-1 ... EEND-26:
RULINGS.md §4 (all card and tile data RECONSTRUCTED, kept in ``data.py``).
"""

from shared.rules.empires_end.engine import EmpiresEnd

GAME = EmpiresEnd()

__all__ = ["GAME", "EmpiresEnd"]
