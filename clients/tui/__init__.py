"""Empire Hall terminal client (textual): ``python -m clients.tui --url URL --name NAME``."""

from clients.tui.app import EmpireApp

__all__ = ["EmpireApp"]
