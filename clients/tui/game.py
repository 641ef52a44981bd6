"""The game screen: the seat's view, the decision of the moment (legal actions or sealed
choices), the action log with commitments and reveals checked against them, the game's chat,
the result with the dealer's proofs verified, and resigning (the seat handed to a bot)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from clients.sdk import GameSession
from clients.tui import render
from clients.tui.chat import ChatPanel
from clients.tui.hall import NETWORK, HallScreen, error_text
from clients.tui.resign import ResignScreen

Decision = tuple[str, Any]  # ("act", action) | ("commit", (round_id, slot, choice, public))


class GameScreen(HallScreen):
    """One game: the view, the decision of the moment, the log, the result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Lobby"),
        Binding("v", "verify", "Verify game"),
        Binding("s", "save_receipts", "Save receipts"),
        Binding("r", "resign", "Resign"),
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

    def action_resign(self) -> None:
        """Ask first (Yes/No); on Yes the seat goes to a bot for the rest of the game and
        this screen watches on as a spectator (the record's ``seat_handed_over`` says so)."""
        s = self.session
        if s is None or s.seat is None or s.ended:
            self.log_line("nothing to resign: you have no seat in a running game here")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._resign(), exit_on_error=False)
            else:
                self.log_line("you keep playing")
        self.app.push_screen(ResignScreen(), answered)

    async def _resign(self) -> None:
        try:
            r = await self.app_.client.resign(self.game_id)
        except NETWORK as exc:
            self.log_line(f"resigning failed: {error_text(exc)}")
            return
        bot = (r.get("bot") or {}).get("name") or "a bot"
        self.log_line(f"you resigned: {bot} plays seat {r.get('seat')} for the rest of the "
                      "game; you are watching")
        # the seat's choices are no longer this player's: cleared now (the views that say so
        # may come later, and a view as a spectator offers none)
        self.decisions = []
        self.decision_key = None
        self.query_one("#choices", OptionList).clear_options()

    def action_leave(self) -> None:
        if self.session is not None:
            self.app.run_worker(self.app_.client.unwatch(self.game_id), exit_on_error=False)
        self.app.pop_screen()
