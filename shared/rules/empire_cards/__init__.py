"""Empire The Card Game: the pure rules engine, with match play."""

from shared.rules.empire_cards.engine import EmpireCardsGame

GAME = EmpireCardsGame()

__all__ = ["GAME", "EmpireCardsGame"]
