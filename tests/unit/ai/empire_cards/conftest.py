"""The Card Game rules tests' position builders, for the bot's tests."""

from tests.unit.rules.empire_cards.conftest import make, play_act

__all__ = ["make", "play_act"]
