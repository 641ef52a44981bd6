"""The lobby screens: open tables and live games, a new table's form, joining by invite; from
here a seat or a spectator opens a game (clients/tui/game.py)."""

from __future__ import annotations

import contextlib
import json
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, Input, Label, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.sdk.my_games import clock_text
from clients.tui import render
from clients.tui.chat import ChatPanel
from clients.tui.game import GameScreen
from clients.tui.hall import NETWORK, HallScreen, error_text
from clients.tui.mygames import MyGamesScreen, parse_clock

DAY_MS = 86_400_000


class CreateTableScreen(ModalScreen[dict[str, Any] | None]):
    """Game, seats and options (JSON, see the option list shown) -> a new table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "create", "Create", priority=True),
    ]

    def __init__(self, catalog: list[dict[str, Any]]) -> None:
        super().__init__()
        self.catalog = {g["name"]: g for g in catalog}

    def compose(self) -> ComposeResult:
        with Vertical(id="create"):
            yield Label(
                "New table: choose a game (↑/↓), tab to seats and options, "
                "ctrl+s or enter to create"
            )
            yield OptionList(
                *[
                    Option(
                        f"{g['title']}  ({g['name']}, {g['min_seats']}-{g['max_seats']} seats)",
                        id=g["name"],
                    )
                    for g in self.catalog.values()
                ],
                id="game",
                markup=False,
            )
            yield Label("Seats:")
            yield Input(id="seats", type="integer")
            yield Label("Options (JSON):")
            yield Input("{}", id="options")
            yield Label("Time per move (e.g. 2m, 12h, 3d; over a day: a turn-based table):")
            yield Input(id="clock", placeholder="the server's default")
            yield Static(id="help", markup=False)

    def on_mount(self) -> None:
        games = self.query_one("#game", OptionList)
        games.highlighted = 0
        games.focus()
        self._describe()

    @property
    def game(self) -> str:
        games = self.query_one("#game", OptionList)
        opt = games.highlighted_option
        return str(opt.id) if opt is not None else next(iter(self.catalog))

    @on(OptionList.OptionHighlighted, "#game")
    def _highlighted(self) -> None:
        self._describe()

    @on(OptionList.OptionSelected, "#game")
    def _chosen(self) -> None:
        self.query_one("#seats", Input).focus()

    def _describe(self) -> None:
        g = self.catalog.get(self.game)
        if g is None:
            return
        self.query_one("#seats", Input).value = str(g["min_seats"])
        props = (g.get("options") or {}).get("properties", {})
        lines = [f"options of {g['name']}:"]
        for name, p in props.items():
            kind = p.get("enum") or p.get("type") or "value"
            dflt = render.compact(p.get("default"))
            lines.append(f"  {name}: {render.compact(kind)} (default {dflt})")
            if p.get("title") or p.get("description"):  # the option in words, as the page
                lines.append(f"    {p.get('title', name)}: {p.get('description', '')}".rstrip())
        self.query_one("#help", Static).update("\n".join(lines))

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_create()

    def action_create(self) -> None:
        try:
            seats = int(self.query_one("#seats", Input).value)
            options = json.loads(self.query_one("#options", Input).value or "{}")
            if not isinstance(options, dict):
                raise ValueError("options must be a JSON object")
            clock = parse_clock(self.query_one("#clock", Input).value)
        except ValueError as exc:
            self.notify(f"bad input: {exc}", severity="error")
            return
        spec: dict[str, Any] = {"game": self.game, "seats": seats, "options": options}
        if clock is not None:  # a clock over a day is a turn-based table's
            spec.update(turn_timeout_ms=clock, round_timeout_ms=clock,
                        pace="turn-based" if clock > DAY_MS else "real-time")
        self.dismiss(spec)

    def action_cancel(self) -> None:
        self.dismiss(None)


class InviteScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="invite"):
            yield Label("Invite code:")
            yield Input(id="code")

    def on_mount(self) -> None:
        self.query_one("#code", Input).focus()

    @on(Input.Submitted, "#code")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LobbyScreen(HallScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create table"),
        Binding("j", "join", "Join selected"),
        Binding("i", "invite", "Join by invite"),
        Binding("b", "add_bot", "Add bot"),
        Binding("l", "leave_table", "Leave table"),
        Binding("s", "start", "Start"),
        Binding("w", "spectate", "Watch selected game"),
        Binding("o", "open_game", "Open my game"),
        Binding("r", "refresh", "Refresh"),
        Binding("m", "my_games", "My games"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.my_table: dict[str, Any] | None = None
        self.catalog: list[dict[str, Any]] = []
        self.tables: list[dict[str, Any]] = []
        self.live: list[str] = []
        self._meta: dict[str, dict[str, Any]] = {}
        self._opened: set[str] = set()
        self.chat_panel = ChatPanel(id="tablechat")  # the table's chat, once seated at one

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="me", markup=False)
        with Horizontal(id="lists"):
            with Vertical():
                yield Label("Open tables (j: join)")
                yield OptionList(id="tables", markup=False)
            with Vertical():
                yield Label("Live games (w/enter: watch)")
                yield OptionList(id="live", markup=False)
        yield Static(id="mytable", markup=False)
        yield self.chat_panel
        yield RichLog(id="lobbylog", max_lines=200)
        yield Footer()

    async def on_mount(self) -> None:
        c = self.app_.client
        self.query_one("#me", Static).update(f"Signed in as {c.name} ({c.player_id})")
        try:
            self.catalog = await c.games_catalog()
        except NETWORK as exc:
            self.log_line(f"no game catalog: {error_text(exc)}")
        await self.action_refresh()
        self.set_interval(2.0, self.action_refresh)

    def log_line(self, text: str) -> None:
        self.query_one("#lobbylog", RichLog).write(Text(text))

    async def action_refresh(self) -> None:
        c = self.app_.client
        mine = self.my_table
        try:
            data = await c.list_tables()
            fresh = await c.get_table(mine["table_id"]) if mine is not None else None
        except NETWORK as exc:
            self.log_line(f"refresh failed: {error_text(exc)}")
            return
        # a join, leave or create that ran while these calls were out holds the newer table
        if self.my_table is mine and fresh is not None:
            seated = any(p["player_id"] == c.player_id for p in fresh.get("players", []))
            self.my_table = fresh if seated else None
        self.tables = list(data.get("tables", []))
        self.live = list(data.get("live_games", []))
        for gid in self.live:
            if gid not in self._meta:
                with contextlib.suppress(*NETWORK):
                    self._meta[gid] = await c.match(gid)
        self._show()
        t = self.my_table
        if t is not None and t.get("status") == "open":
            self.chat_panel.follow(c, table_id=t["table_id"])
        if (
            t is not None
            and t.get("game_id")
            and t["game_id"] not in self._opened
            and self.is_current
        ):
            self.open_game(t["game_id"])  # the host started the table we sit at

    def _names(self, players: list[dict[str, Any]]) -> str:
        return ", ".join(p["name"] for p in players)

    def _show(self) -> None:
        tables = self.query_one("#tables", OptionList)
        keep = tables.highlighted
        tables.clear_options()
        tables.add_options(
            [
                Option(
                    f"{t['game']} · {len(t['players'])}/{t['seats']} · "
                    f"{t.get('pace', 'real-time')}, {clock_text(t.get('turn_timeout_ms'))} a "
                    f"move · {self._names(t['players'])} · {t['table_id']}",
                    id=t["table_id"],
                )
                for t in self.tables
            ]
        )
        if keep is not None and self.tables:
            tables.highlighted = min(keep, len(self.tables) - 1)
        live = self.query_one("#live", OptionList)
        keep = live.highlighted
        live.clear_options()
        opts = []
        for gid in self.live:
            m = self._meta.get(gid, {})
            opts.append(
                Option(
                    f"{m.get('game', '?')} · {self._names(m.get('players', []))} · {gid}", id=gid
                )
            )
        live.add_options(opts)
        if keep is not None and opts:
            live.highlighted = min(keep, len(opts) - 1)
        t = self.my_table
        if t is None:
            text = "No table yet: c creates one, j joins the selected one, i joins by invite."
        else:
            text = (
                f"My table {t['table_id']}: {t['game']} {render.compact(t['options'])} · "
                f"{len(t['players'])}/{t['seats']} seats: {self._names(t['players'])} · "
                f"invite {t['invite']} · {t['status']}"
                + (
                    f" · game {t['game_id']} (o: open)"
                    if t.get("game_id")
                    else " · b: add bot, s: start"
                )
            )
        self.query_one("#mytable", Static).update(text)

    def action_create(self) -> None:
        def done(spec: dict[str, Any] | None) -> None:
            if spec is not None:
                self.run_worker(self._create(spec), exit_on_error=False)

        self.app.push_screen(CreateTableScreen(self.catalog), done)

    async def _create(self, spec: dict[str, Any]) -> None:
        try:
            self.my_table = await self.app_.client.create_table(
                spec.pop("game"), seats=spec.pop("seats"), options=spec.pop("options"), **spec
            )
        except NETWORK as exc:
            self.log_line(f"create refused: {error_text(exc)}")
            return
        self.log_line(
            f"created table {self.my_table['table_id']} (invite {self.my_table['invite']})"
        )
        self._show()

    async def action_join(self) -> None:
        opt = self.query_one("#tables", OptionList).highlighted_option
        if opt is None or opt.id is None:
            self.log_line("no table selected")
            return
        await self._join(self.app_.client.join(opt.id))

    def action_invite(self) -> None:
        def done(code: str | None) -> None:
            if code:
                self.run_worker(self._join(self.app_.client.join_invite(code)), exit_on_error=False)

        self.app.push_screen(InviteScreen(), done)

    async def _join(self, call: Any) -> None:
        try:
            self.my_table = await call
        except NETWORK as exc:
            self.log_line(f"join refused: {error_text(exc)}")
            return
        assert self.my_table is not None
        self.log_line(f"joined table {self.my_table['table_id']}")
        self._show()

    async def action_add_bot(self) -> None:
        if self.my_table is None:
            self.log_line("create a table first")
            return
        try:
            self.my_table = await self.app_.client.add_bot(self.my_table["table_id"])
        except NETWORK as exc:
            self.log_line(f"add bot refused: {error_text(exc)}")
            return
        self.log_line(f"bot added: {self.my_table['players'][-1]['name']}")
        self._show()

    async def action_leave_table(self) -> None:
        if self.my_table is None:
            return
        try:
            await self.app_.client.leave(self.my_table["table_id"])
        except NETWORK as exc:
            self.log_line(f"leave refused: {error_text(exc)}")
            return
        self.log_line(f"left table {self.my_table['table_id']}")
        self.my_table = None
        self._show()

    async def action_start(self) -> None:
        if self.my_table is None:
            self.log_line("create a table first")
            return
        try:
            game_id = await self.app_.client.start(self.my_table["table_id"])
        except NETWORK as exc:
            self.log_line(f"start refused: {error_text(exc)}")
            return
        self.my_table = {**self.my_table, "game_id": game_id, "status": "started"}
        self.log_line(f"game {game_id} started")
        self._show()
        self.open_game(game_id)

    def action_spectate(self) -> None:
        opt = self.query_one("#live", OptionList).highlighted_option
        if opt is None or opt.id is None:
            self.log_line("no live game selected")
            return
        self.open_game(opt.id)

    @on(OptionList.OptionSelected, "#live")
    def _live_chosen(self) -> None:
        self.action_spectate()

    def action_open_game(self) -> None:
        if self.my_table is not None and self.my_table.get("game_id"):
            self.open_game(self.my_table["game_id"])

    def action_my_games(self) -> None:
        self.app.push_screen(MyGamesScreen())

    def open_game(self, game_id: str) -> None:
        self._opened.add(game_id)
        self.app.push_screen(GameScreen(game_id))
