"""Empire Hall in a terminal (textual), entirely over the Python SDK.

Screens: sign in -> lobby (open tables, live games, create / join / join by invite / add bots
/ start / spectate) -> a game (the seat's view, the legal actions or the sealed choices of the
moment, the action log with commitments, reveals checked against them, and the result with
the dealer's proofs verified).

The app and its first screen are here; the lobby's screens are in clients/tui/lobby.py, the
game's in clients/tui/game.py (re-exported here).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label

from clients.sdk import Client
from clients.tui.game import GameScreen
from clients.tui.hall import NETWORK, error_text
from clients.tui.lobby import CreateTableScreen, InviteScreen, LobbyScreen

__all__ = [
    "NETWORK",
    "CreateTableScreen",
    "EmpireApp",
    "GameScreen",
    "InviteScreen",
    "LobbyScreen",
    "SignInScreen",
    "error_text",
]


class SignInScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="signin"):
            yield Label("Your name at the table (Enter: play as a guest):")
            yield Input(placeholder="name", id="name", max_length=32)
            yield Label("Account password (Enter: sign in to the account; empty: guest):")
            yield Input(placeholder="password", id="password", password=True, max_length=256)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted, "#name")
    @on(Input.Submitted, "#password")
    def submit(self, event: Input.Submitted) -> None:
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        if name:  # (not awaited here: signing in replaces this screen)
            self.app.run_worker(self.app_.sign_in(name, password or None), exit_on_error=False)

    @property
    def app_(self) -> EmpireApp:
        assert isinstance(self.app, EmpireApp)
        return self.app


class EmpireApp(App[None]):
    TITLE = "Empire Hall"
    CSS = """
    #signin, #create, #invite { width: 90; height: auto; padding: 1 2; border: round $accent; }
    CreateTableScreen, InviteScreen, ResignScreen { align: center middle; }
    #resign { width: 70; height: auto; padding: 1 2; border: round $error; }
    #resign-buttons { height: auto; margin-top: 1; }
    #resign-buttons Button { margin-right: 2; }
    #create #game { height: 8; }
    #help { height: auto; color: $text-muted; }
    #lists { height: 1fr; }
    #lists OptionList { height: 1fr; }
    #mytable { height: auto; padding: 0 1; border: round $primary; }
    #lobbylog { height: 8; }
    #tablechat { height: 10; }
    #gamechat { height: 12; }
    #viewbox { width: 3fr; border: round $primary; }
    #side { width: 2fr; }
    #status { height: auto; padding: 0 1; border: round $accent; }
    #choices { height: 12; }
    #log { height: 1fr; border: round $primary; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit")]

    def __init__(self, url: str, name: str | None = None, password: str | None = None) -> None:
        super().__init__()
        self.client = Client(url)  # refreshes its access token itself (SDK)
        self.player_name = name
        self.password = password

    async def on_mount(self) -> None:
        if self.player_name:
            await self.sign_in(self.player_name, self.password)
        else:
            await self.push_screen(SignInScreen())

    async def sign_in(self, name: str, password: str | None = None) -> None:
        """A guest, or (with a password) the account: the same player on every device."""
        try:
            if password:
                await self.client.sign_in_password(name, password)
            else:
                await self.client.sign_in(name)
        except NETWORK as exc:
            self.notify(f"sign-in failed: {error_text(exc)}", severity="error")
            if not isinstance(self.screen, SignInScreen):
                await self.push_screen(SignInScreen())
            return
        self.sub_title = name
        if isinstance(self.screen, SignInScreen):
            await self.switch_screen(LobbyScreen())
        else:
            await self.push_screen(LobbyScreen())

    async def on_unmount(self) -> None:
        await self.client.close()
