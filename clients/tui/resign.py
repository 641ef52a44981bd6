"""Resigning a running game from the terminal: a confirm step first, as on the web page
(clients/web/resign.js), because the seat goes to a bot for the rest of the game and the game
counts as a loss for the player who left."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

QUESTION = ("Resign? A bot plays your seat for the rest of the game, "
            "and it counts as a loss for you.")


class ResignScreen(ModalScreen[bool]):
    """Yes or No; dismissed with True only for Yes (y, or the Yes button)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes, resign"),
        Binding("n", "answer(False)", "Keep playing"),
        Binding("escape", "answer(False)", "Keep playing"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="resign"):
            yield Label(QUESTION)
            with Horizontal(id="resign-buttons"):
                yield Button("Yes, resign", id="resign-yes", variant="error")
                yield Button("No, keep playing", id="resign-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#resign-no", Button).focus()  # the safe answer is the default

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "resign-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
