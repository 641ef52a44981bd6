"""The Empire rules tests' position driver, for the bot's tests."""

from tests.unit.rules.empire.conftest import drv

__all__ = ["drv"]
