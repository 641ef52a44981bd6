""""My games" in the terminal: every game of the player, the ones waiting for it first with
the time left on its clock in days, hours or minutes (enter opens one). Kept by the SDK
(clients/sdk/my_games.py): ``GET /api/me/games`` every few seconds, ``my_game`` frames
between."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Label, OptionList
from textual.widgets.option_list import Option

from clients.sdk.my_games import clock_text
from clients.tui.game import GameScreen
from clients.tui.hall import NETWORK, HallScreen, error_text

UNITS_MS = {"s": 1_000, "m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}


def parse_clock(text: str) -> int | None:
    """A clock as a person types it ("90s", "30m", "12h", "3d", "1d 12h") in ms; None for
    empty text; ValueError for anything else."""
    text = text.strip().lower()
    if not text:
        return None
    parts = re.findall(r"(\d+)\s*(min|s|m|h|d)", text)
    if not parts or re.sub(r"(\d+)\s*(min|s|m|h|d)|\s", "", text):
        raise ValueError(f"a clock is like 90s, 30m, 12h or 3d, not {text!r}")
    return sum(int(n) * UNITS_MS[u] for n, u in parts)


def line(game: dict[str, Any], left_ms: int | None) -> str:
    """One game as the list shows it."""
    if game.get("ended"):
        state = "ended"
    elif game.get("my_turn"):
        state = f"YOUR TURN, {clock_text(left_ms)} left"
    elif game.get("pace", "real-time") != "turn-based":
        state = "live: its table shows whose move it is"  # moves not followed here
    else:
        waiting = len(game.get("waiting", []))
        state = f"waiting for {waiting} other seat{'s' if waiting != 1 else ''}" if waiting \
            else "in play"
    return f"{game['game']} · {game.get('pace', 'real-time')} · {state} · {game['game_id']}"


class MyGamesScreen(HallScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back to the lobby"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.games: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("My games: waiting for you first (enter: open)")
        yield OptionList(id="mygames", markup=False)
        yield Footer()

    async def on_mount(self) -> None:
        await self.action_refresh()
        self.set_interval(5.0, self.action_refresh)
        self.set_interval(1.0, self._show)  # the clocks move between refreshes

    async def action_refresh(self) -> None:
        try:
            await self.app_.client.my_games()
        except NETWORK as exc:
            self.notify(f"refresh failed: {error_text(exc)}", severity="error")
        self._show()

    def _show(self) -> None:
        c = self.app_.client
        self.games = c.my_games_now()
        box = self.query_one("#mygames", OptionList)
        keep = box.highlighted
        box.clear_options()
        box.add_options([Option(line(g, c.time_left_ms(g)), id=g["game_id"])
                         for g in self.games])
        if keep is not None and self.games:
            box.highlighted = min(keep, len(self.games) - 1)

    @on(OptionList.OptionSelected, "#mygames")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.app.push_screen(GameScreen(event.option.id))

    def action_back(self) -> None:
        self.app.pop_screen()
