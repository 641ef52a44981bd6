"""The Empire Engine (Marling & Dunstan, 2013): rules engine for issue 4."""

from shared.rules.empire_engine.engine import EmpireEngine

GAME = EmpireEngine()

__all__ = ["GAME", "EmpireEngine"]
