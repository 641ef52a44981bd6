"""Empire (Stephenson Games): beginner and standard versions. Rulebook ``empire.txt``,
rulings RULINGS.md §1 (E-1 ... E-22, ER-1 ... ER-7)."""

from shared.rules.empire.engine import EmpireGame
from shared.rules.empire.state import EmpireOptions, EmpireState

GAME = EmpireGame()

__all__ = ["GAME", "EmpireGame", "EmpireOptions", "EmpireState"]
