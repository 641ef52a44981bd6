"""The Empire Engine (Marling & Dunstan, 2013): its rules engine, one implementation.

``state.py`` (the plain state), ``engine.py`` (the contract ``Game``), the rule modules
``planning.py`` and ``execute.py`` (in place, on a clone), ``view.py``, ``scoring.py``,
and ``stored.py`` (the stored JSON's schema)."""

from shared.rules.empire_engine.engine import EmpireEngine

GAME = EmpireEngine()

__all__ = ["GAME", "EmpireEngine"]
