"""Empire: The Game of New York: a Risk-like conquest of 42 NYC neighborhoods."""

from shared.rules.empire_nyc.engine import EmpireNyc

GAME = EmpireNyc()

__all__ = ["GAME", "EmpireNyc"]
