"""Empire Hall in a terminal (textual), entirely over the Python SDK.

Screens: sign in -> lobby (open tables, live games, create / join / join by invite / add bots
/ start / spectate) -> a game (the seat's view, the legal actions or the sealed choices of the
moment, the action log with commitments, reveals checked against them, and the result with
the dealer's proofs verified).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path
from typing import Any, ClassVar

import httpx
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Header, Input, Label, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.sdk import ApiError, Client, GameSession
from clients.tui import render
from clients.tui.chat import ChatPanel

Decision = tuple[str, Any]  # ("act", action) | ("commit", (round_id, slot, choice, public))


NETWORK = (ApiError, OSError, TimeoutError, httpx.HTTPError)


def error_text(exc: Exception) -> str:
    """``code message`` for a typed refusal, else the error's text."""
    if isinstance(exc, ApiError):
        return f"{exc.code} {exc.message}".strip()
    return str(exc) or type(exc).__name__


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
        except ValueError as exc:
            self.notify(f"bad input: {exc}", severity="error")
            return
        self.dismiss({"game": self.game, "seats": seats, "options": options})

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


class LobbyScreen(Screen[None]):
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

    @property
    def app_(self) -> EmpireApp:
        assert isinstance(self.app, EmpireApp)
        return self.app

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
        try:
            data = await c.list_tables()
            if self.my_table is not None:
                self.my_table = await c.get_table(self.my_table["table_id"])
        except NETWORK as exc:
            self.log_line(f"refresh failed: {error_text(exc)}")
            return
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
                    f"{self._names(t['players'])} · {t['table_id']}",
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
                spec["game"], seats=spec["seats"], options=spec["options"]
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

    def open_game(self, game_id: str) -> None:
        self._opened.add(game_id)
        self.app.push_screen(GameScreen(game_id))


class GameScreen(Screen[None]):
    """One game: the view, the decision of the moment, the log, the result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Lobby"),
        Binding("v", "verify", "Verify game"),
        Binding("s", "save_receipts", "Save receipts"),
    ]

    def __init__(self, game_id: str) -> None:
        super().__init__()
        self.game_id = game_id
        self.session: GameSession | None = None
        self.game = ""
        self.names: list[str] = []
        self.decisions: list[Decision] = []
        self.decision_key: Any = None
        self.busy = False
        self.outcome: dict[str, Any] | None = None
        self.components: dict[str, Any] | None = None  # the game's component data
        self.verified: bool | None = None  # the dealer's proofs, once the game is over
        self._events = 0
        self._records = 0
        self._rejections = 0
        self._follow: asyncio.Task[None] | None = None
        self.chat_panel = ChatPanel(id="gamechat")  # the game's chat (its channel)

    @property
    def app_(self) -> EmpireApp:
        assert isinstance(self.app, EmpireApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with VerticalScroll(id="viewbox"):
                yield Static(id="view", markup=False)
            with Vertical(id="side"):
                yield Static(id="status", markup=False)
                yield OptionList(id="choices", markup=False)
                yield RichLog(id="log", max_lines=2000, wrap=True, min_width=20)
                yield self.chat_panel
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.game_id
        self._follow = asyncio.create_task(self.follow())

    def on_unmount(self) -> None:
        if self._follow is not None:
            self._follow.cancel()
        self.chat_panel.stop()  # (its children are already gone: no query here)

    def log_line(self, text: str) -> None:
        self.query_one("#log", RichLog).write(Text(text))

    async def follow(self) -> None:
        c = self.app_.client
        try:
            meta = await c.match(self.game_id)
            self.game = meta["game"]
            self.names = [p["name"] for p in meta["players"]]
            self.session = await c.watch(self.game_id)
        except NETWORK as exc:
            self.log_line(f"cannot watch {self.game_id}: {error_text(exc)}")
            return
        try:  # the board's component data (the Engine's wheels); without it, plain text
            self.components = await c.game_components(self.game)
        except NETWORK:
            self.components = None
        self.chat_panel.follow(c, game_id=self.game_id)
        seat = self.session.seat
        self.log_line(
            f"{meta['game']} with {', '.join(self.names)}; "
            + (f"you are seat {seat}" if seat is not None else "spectating")
        )
        changed = self.session.changed
        while True:
            changed.clear()  # before rendering: a change during the render is not lost
            try:
                await self.refresh_game()
            except Exception as exc:  # keep following: one bad render must not end play
                self.log_line(f"display error: {exc!r}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 1.0)

    # -- the decision of the moment --------------------------------------------------

    def _decisions(self, s: GameSession) -> tuple[Any, list[Decision], list[str], str]:
        """(key, decisions, labels, prompt) for the current view."""
        msg = s.view
        assert msg is not None
        node, seat = msg["node"], s.seat
        if seat is None:
            return None, [], [], "spectating"
        if (
            node.get("kind") == "turn"
            and (seat in node["seats"] or seat in node["open_to"])
            and msg["legal"]
        ):
            legal = msg["legal"]
            return (
                ("turn", s.seq),
                [("act", a) for a in legal],
                [render.action_label(a) for a in legal],
                "your move:",
            )
        if node.get("kind") == "simultaneous" and not node.get("platform"):
            slot = self._next_slot(s, node)
            if slot is not None:
                allowed = slot.get("allowed") or []
                ctx = slot.get("context")
                prompt = (
                    f"sealed choice {node['round_id']}/{slot['key']}"
                    + (f" · {render.compact(ctx)}" if ctx else "")
                    + ":"
                )
                publics = slot.get("public_keys") or []
                out = []
                for ch in allowed:
                    pub = (
                        {k: ch.get(k) for k in publics}
                        if publics and isinstance(ch, dict)
                        else None
                    )
                    out.append(("commit", (node["round_id"], slot["key"], ch, pub)))
                return (
                    ("sealed", node["round_id"], slot["key"]),
                    out,
                    [self._choice_text(ch, msg["view"], seat) for ch in allowed],
                    prompt,
                )
        return None, [], [], ""

    def _choice_text(self, choice: Any, view: dict[str, Any], seat: int) -> str:
        """A sealed choice as a sentence: the Engine's placements name the action they bring
        to the top (from the component data); other games' choices as before."""
        if self.game == "empire-engine":
            return render.engine_choice_text(choice, view, self.components, seat)
        return render.choice_label(choice)

    def _next_slot(self, s: GameSession, node: dict[str, Any]) -> dict[str, Any] | None:
        rid = node["round_id"]
        done = s.committed_slots(rid)
        order = [o["key"] for o in node.get("order", [])]
        for slot in node.get("my_slots", []):
            key = slot["key"]
            if f"{rid}/{key}" in s.receipts or key in done:
                continue
            if (
                node.get("ordered")
                and key in order
                and any(k not in done for k in order[: order.index(key)])
            ):
                return None  # an earlier seat commits first
            return dict(slot)
        return None

    async def _entropy(self, s: GameSession) -> None:
        """The platform round: contribute a random client seed to the dealer's game key."""
        msg = s.view
        assert msg is not None
        node = msg["node"]
        if node.get("kind") != "simultaneous" or not node.get("platform") or s.seat is None:
            return
        for slot in node.get("my_slots", []):
            if f"{node['round_id']}/{slot['key']}" in s.receipts:
                continue
            try:
                r = await s.commit(node["round_id"], slot["key"], secrets.token_hex(32))
            except NETWORK as exc:
                self.log_line(f"entropy refused: {error_text(exc)}")
                continue
            self.log_line(
                f"you added a client seed to the dealer's key (commitment "
                f"{r.commitment[:12]}…, receipt {'✓' if r.acknowledged else '…'})"
            )

    async def refresh_game(self) -> None:
        s = self.session
        if s is None or s.view is None:
            return
        msg = s.view
        for e in s.events[self._events :]:
            self.log_line("· " + render.event_line(e, self.names))
        self._events = len(s.events)
        for entry in s.record[self._records :]:
            line = render.record_line(self.game_id, entry, self.names, s.commitments_seen)
            if line:
                self.log_line(line)
            if entry.get("type") == "game_ended":
                self.outcome = dict(entry.get("outcome") or {})
                self.log_line("RESULT")
                for ln in render.result_lines(self.outcome, self.names):
                    self.log_line("  " + ln)
        self._records = len(s.record)
        for r in s.rejections[self._rejections :]:
            self.log_line(f"refused: {r.get('code')} {r.get('message', '')}")
            self.decision_key = None  # offer the moment's choices again
        self._rejections = len(s.rejections)
        if (
            s.ended
            and self.verified is None
            and any(e.get("type") == "seed_revealed" for e in s.record)
        ):
            await self.action_verify()
        view = render.render_view(self.game, msg["view"], self.names, self.components)
        if self.outcome is not None:
            view += "\n\nRESULT\n" + "\n".join(render.result_lines(self.outcome, self.names))
            view += "\n" + self._fairness()
        self.query_one("#view", Static).update(view)
        await self._entropy(s)
        key, decisions, labels, prompt = self._decisions(s)
        node_text = render.node_line(msg["node"], s.seat, self.names)
        seat = f"seat {s.seat}" if s.seat is not None else "spectator"
        status = f"{self.game} · seq {s.seq} · {seat} · {node_text}"
        if self.outcome is not None:
            status += " · " + self._fairness()
        self.query_one("#status", Static).update(status + (f"\n{prompt}" if prompt else ""))
        if key != self.decision_key:
            self.decision_key = key
            self.decisions = decisions
            box = self.query_one("#choices", OptionList)
            box.clear_options()
            box.add_options([Option(label) for label in labels])
            if decisions:
                box.highlighted = 0
                box.focus()

    def _fairness(self) -> str:
        return (
            "fairness verified ✓"
            if self.verified
            else "fairness check FAILED ✗"
            if self.verified is False
            else "waiting for the dealer's reveal…"
        )

    @on(OptionList.OptionSelected, "#choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        s = self.session
        if s is None or self.busy or not 0 <= event.option_index < len(self.decisions):
            return
        kind, payload = self.decisions[event.option_index]
        self.busy = True
        self.query_one("#choices", OptionList).clear_options()
        self.decisions = []
        self.run_worker(
            self._decide(s, kind, payload, str(event.option.prompt)), exit_on_error=False
        )

    async def _decide(self, s: GameSession, kind: str, payload: Any, label: str) -> None:
        """Send the chosen action, or commit the chosen sealed choice (receipt logged)."""
        try:
            if kind == "act":
                await s.act(payload, expected_seq=s.seq)
                self.log_line(f"you: {label}")
            else:
                round_id, slot, choice, public = payload
                r = await s.commit(round_id, slot, choice, public)
                self.log_line(
                    f"you sealed {round_id}/{slot} = {label} · commitment "
                    f"{r.commitment[:16]}… · escrow receipt "
                    f"{'✓' if r.acknowledged else '(pending)'}"
                )
        except NETWORK as exc:
            self.log_line(f"refused: {error_text(exc)}")
            self.decision_key = None  # offer the choices again
        finally:
            self.busy = False
        s.changed.set()

    async def action_verify(self) -> None:
        try:
            v = await self.app_.client.verify_game(self.game_id, wait=0.0)
        except NETWORK as exc:
            self.log_line(f"verify failed: {error_text(exc)}")
            return
        if v.ok:
            self.verified = True
            n = v.counts
            self.log_line(
                f"fairness verified ✓ {n['draws']} draws recomputed, "
                f"{n['commitments']} commitments in {n['rounds']} sealed rounds, "
                f"{n['applied']} applied moves match"
                + (f", {n['receipts']} of my receipts hold" if v.receipts else "")
            )
        elif self.session is not None and self.session.ended:
            self.verified = False
            for p in v.problems:
                self.log_line(f"✗ {p}")
        else:
            self.log_line("verification needs the finished game: " + "; ".join(v.problems))
        if self.session is not None:
            problems = self.session.verify_reveals()
            self.log_line(
                "every reveal matched the commitment seen before its close ✓"
                if not problems
                else "reveal problems: " + "; ".join(problems)
            )

    def action_save_receipts(self) -> None:
        """Write this seat's receipts (the format ``verify --receipts`` reads) to
        ``receipts-<game>.json`` in the working directory."""
        s = self.session
        if s is None or s.seat is None or not any(r.acknowledged for r in s.receipts.values()):
            self.log_line("no receipts to save: this seat has committed nothing yet")
            return
        try:
            path = s.save_receipts(Path.cwd() / f"receipts-{self.game_id}.json")
        except OSError as exc:
            self.log_line(f"could not save the receipts: {exc}")
            return
        self.log_line(f"receipts saved to {path} · check them: python -m "
                      f"shared.fairness.verify {self.app_.client.base_url} {self.game_id} "
                      f"--receipts {path}")

    def action_leave(self) -> None:
        if self.session is not None:
            self.app.run_worker(self.app_.client.unwatch(self.game_id), exit_on_error=False)
        self.app.pop_screen()


class EmpireApp(App[None]):
    TITLE = "Empire Hall"
    CSS = """
    #signin, #create, #invite { width: 90; height: auto; padding: 1 2; border: round $accent; }
    CreateTableScreen, InviteScreen { align: center middle; }
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
