"""The terminal client driven by keys (textual's pilot) against the running system, and its
renderers over every game's real views."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RichLog

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from clients.tui import render
from clients.tui.app import CreateTableScreen, EmpireApp, GameScreen, LobbyScreen, SignInScreen
from services.supervisor import Supervisor
from shared.fairness.verify import verify
from shared.rules import registry
from shared.rules._kit.playout import play
from shared.rules.api import Simultaneous, Turn

pytestmark = pytest.mark.clients
SIZE = (160, 50)


async def _until(pilot: Pilot[Any], cond: Callable[[], Any], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting on {cond}")
        await pilot.pause(0.05)


async def _lobby(pilot: Pilot[Any], app: EmpireApp) -> LobbyScreen:
    await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
    assert isinstance(app.screen, LobbyScreen)
    return app.screen


async def _join_by_invite(pilot: Pilot[Any], app: EmpireApp, lobby: LobbyScreen,
                          invite: str) -> None:
    """Join a table by its invite code, by keys, until the lobby shows it as mine."""
    await pilot.press("i")
    await _until(pilot, lambda: app.focused is not None and app.focused.id == "code")
    await pilot.press(*invite, "enter")
    await _until(pilot, lambda: lobby.my_table is not None)


def _log(screen: GameScreen) -> list[str]:
    return [line.text for line in screen.query_one("#log", RichLog).lines]


async def _play_by_keys(pilot: Pilot[Any], screen: GameScreen, timeout: float = 60.0) -> int:
    """Press enter on the highlighted choice whenever there is one, until the result is in
    and the dealer's proofs are verified. Returns the number of decisions taken."""
    presses = 0
    deadline = time.monotonic() + timeout
    while screen.verified is None:
        assert time.monotonic() < deadline, "no verified result"
        found = screen.query("#choices")  # empty until the pushed screen has mounted
        box = found.first(OptionList) if found else None
        if box is not None and screen.decisions and not screen.busy and box.option_count \
                and box.has_focus:
            await pilot.press("enter")
            presses += 1
        await pilot.pause(0.05)
    return presses


async def test_tui_signs_in_creates_a_duel_adds_a_bot_and_plays_to_the_result(
    clients_system: Supervisor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where "s" saves the receipts
    app = EmpireApp(clients_system.url)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, SignInScreen))
        await pilot.press(*"tui-ada", "enter")
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.catalog)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await pilot.press("c")
        await _until(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        form = app.screen
        assert isinstance(form, CreateTableScreen)
        for _ in registry.names():
            if form.game == "duel":
                break
            await pilot.press("down")
        assert form.game == "duel"
        await pilot.press("enter")  # the game is chosen; on to seats (2 = duel's minimum)
        assert form.query_one("#seats", Input).value == "2"
        await pilot.press("tab", *'{"rounds":2}', "enter")
        await _until(pilot, lambda: lobby.my_table is not None)
        assert lobby.my_table is not None
        assert lobby.my_table["game"] == "duel" and lobby.my_table["options"] == {"rounds": 2}
        await pilot.press("b")
        await _until(pilot, lambda: lobby.my_table and len(lobby.my_table["players"]) == 2)
        await pilot.press("s")
        await _until(pilot, lambda: isinstance(app.screen, GameScreen))
        game = app.screen
        assert isinstance(game, GameScreen)
        presses = await _play_by_keys(pilot, game)
        s = game.session
        assert s is not None and s.ended and s.seat == 0
        assert presses >= 2  # one pick per round at least (and a call when it is ours)
        assert game.verified is True and game.outcome is not None
        assert len(s.receipts) == 3 and all(r.acknowledged for r in s.receipts.values())
        assert s.verify_reveals() == []
        log = _log(game)
        assert sum("escrow receipt ✓" in line for line in log) == 2  # the two picks
        assert sum(line.startswith("reveal pick:") and line.count("✓") == 2 for line in log) == 2
        assert not any("✗" in line for line in log)
        assert any(line.startswith("fairness verified ✓") for line in log)
        assert "3ofmyreceiptshold" in "".join(log).replace(" ", "")  # (lines wrap)
        assert "RESULT" in str(game.query_one("#view").render())
        await pilot.press("s")  # save the receipts: the file verify --receipts reads
        saved = tmp_path / f"receipts-{game.game_id}.json"
        await _until(pilot, lambda: saved.exists())
        doc = await app.client.record(game.game_id)
        receipts = json.loads(saved.read_text())
        assert receipts["seat"] == 0 and len(receipts["receipts"]) == 3
        assert verify(doc, receipts) == ([], {**verify(doc)[1], "receipts": 3})
        assert any(line.startswith("receipts saved to ") for line in _log(game))


async def test_tui_joins_by_invite_plays_and_spectates(clients_system: Supervisor) -> None:
    """The host uses the SDK (its seat played by the heuristic bot); the terminal client joins
    with the invite code, is taken to the game when the host starts, plays it by keys, then
    goes back to the lobby and watches the finished game as a spectator."""
    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-host")
        table = await host.create_table("duel", seats=2, options={"rounds": 1})
        app = EmpireApp(clients_system.url, name="tui-bob")
        async with app.run_test(size=SIZE) as pilot:
            lobby = await _lobby(pilot, app)
            await _join_by_invite(pilot, app, lobby, table["invite"])
            assert lobby.my_table is not None
            assert [p["name"] for p in lobby.my_table["players"]] == ["sdk-host", "tui-bob"]
            await pilot.press("l")  # leave, then join again with the invite
            await _until(pilot, lambda: lobby.my_table is None)
            assert len((await host.get_table(table["table_id"]))["players"]) == 1
            await _join_by_invite(pilot, app, lobby, table["invite"])
            gid = await host.start(table["table_id"])
            hosting = asyncio.create_task(play_seat(host, gid))
            try:
                await _until(pilot, lambda: isinstance(app.screen, GameScreen), timeout=15)
                game = app.screen
                assert isinstance(game, GameScreen) and game.game_id == gid
                await _play_by_keys(pilot, game)
                assert game.session is not None and game.session.seat == 1
                assert game.verified is True
                await asyncio.wait_for(hosting, 30)
            finally:
                hosting.cancel()
            await pilot.press("escape")
            await _until(pilot, lambda: app.screen is lobby)
            # a finished game leaves the live list (it has a result; spectate live games only)
            await asyncio.sleep(1.0)  # scoring stores the result just after the end
            await pilot.press("r")
            await pilot.pause(1.0)
            await _until(pilot, lambda: gid not in lobby.live)


async def test_a_refresh_in_flight_does_not_seat_me_again_after_i_leave(
    clients_system: Supervisor,
) -> None:
    """The lobby refreshes every two seconds. A refresh whose table read is still out when
    the player leaves must not put the table back as theirs when it lands."""
    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-host-stale")
        table = await host.create_table("duel", seats=2, options={"rounds": 1})
        app = EmpireApp(clients_system.url, name="tui-stale")
        async with app.run_test(size=SIZE) as pilot:
            lobby = await _lobby(pilot, app)
            await _join_by_invite(pilot, app, lobby, table["invite"])
            client = app.client
            assert client is not None
            read_out, release = asyncio.Event(), asyncio.Event()
            original = client.get_table

            async def held(table_id: str) -> dict[str, Any]:
                answer = await original(table_id)  # read while still seated
                read_out.set()
                await release.wait()
                return answer

            client.get_table = held  # type: ignore[method-assign]
            refreshing = asyncio.create_task(lobby.action_refresh())
            await asyncio.wait_for(read_out.wait(), 30)
            await pilot.press("l")
            await _until(pilot, lambda: lobby.my_table is None)
            release.set()
            await asyncio.wait_for(refreshing, 30)
            client.get_table = original  # type: ignore[method-assign]
            assert lobby.my_table is None
            # a table that no longer seats me is not mine, whoever removed me
            await _join_by_invite(pilot, app, lobby, table["invite"])
            await host.kick(table["table_id"], client.player_id or "")
            await lobby.action_refresh()
            assert lobby.my_table is None


async def test_tui_draws_the_engine_from_its_component_data(clients_system: Supervisor) -> None:
    """In a real Engine game the terminal client fetches the component data and
    draws the wheels (no key dumps), and its sealed placements read as sentences naming the
    action on top."""
    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-host-engine")
        table = await host.create_table("empire-engine", seats=2)
        app = EmpireApp(clients_system.url, name="tui-wheels")
        async with app.run_test(size=SIZE) as pilot:
            lobby = await _lobby(pilot, app)
            await _join_by_invite(pilot, app, lobby, table["invite"])
            gid = await host.start(table["table_id"])
            hosting = asyncio.create_task(play_seat(host, gid))
            try:
                await _until(pilot, lambda: isinstance(app.screen, GameScreen), timeout=15)
                game = app.screen
                assert isinstance(game, GameScreen)
                # the first sealed placement: engine and top action, as sentences
                await _until(pilot, lambda: game.components is not None and any(
                    d[0] == "commit" for d in game.decisions), timeout=60)
                box = game.query_one("#choices", OptionList)
                labels = [str(box.get_option_at_index(i).prompt) for i in range(box.option_count)]
                assert labels and all(x.startswith("engine ") and x.endswith(" on top")
                                      for x in labels), labels
                # place both engines by keys; the wheels appear once every placement is in
                deadline = time.monotonic() + 60
                while "< (L) >" not in str(game.query_one("#view").render()):
                    assert time.monotonic() < deadline, "no wheels drawn"
                    if game.decisions and not game.busy and box.option_count and box.has_focus:
                        await pilot.press("enter")
                    await pilot.pause(0.05)
                view = str(game.query_one("#view").render())
                assert "=" not in view and "Round " in view
            finally:
                hosting.cancel()


async def test_tui_spectator_has_no_choices(clients_system: Supervisor) -> None:
    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-host2")
        table = await host.create_table("duel", seats=2, options={"rounds": 1})
        await host.add_bot(table["table_id"])
        gid = await host.start(table["table_id"])
        # the host plays only once the spectator watches: the game cannot end (and leave the
        # live list) before the spectator has found it
        hosting: asyncio.Task[Any] | None = None
        try:
            app = EmpireApp(clients_system.url, name="tui-eve")
            async with app.run_test(size=SIZE) as pilot:
                await _until(
                    pilot, lambda: isinstance(app.screen, LobbyScreen) and gid in app.screen.live
                )
                lobby = app.screen
                assert isinstance(lobby, LobbyScreen)
                live = lobby.query_one("#live", OptionList)
                live.focus()
                live.highlighted = lobby.live.index(gid)
                await pilot.press("enter")
                await _until(pilot, lambda: isinstance(app.screen, GameScreen))
                watcher = app.screen
                assert isinstance(watcher, GameScreen)
                hosting = asyncio.create_task(play_seat(host, gid))
                await _until(pilot, lambda: watcher.verified is not None, timeout=40)
                assert watcher.session is not None and watcher.session.seat is None
                assert watcher.verified is True and watcher.decisions == []
                assert watcher.session.verify_reveals() == []
                assert "spectator" in str(watcher.query_one("#status").render())
            assert hosting is not None
            await asyncio.wait_for(hosting, 30)
        finally:
            if hosting is not None:
                hosting.cancel()


@pytest.mark.parametrize("game", registry.names())
def test_every_game_view_renders_with_its_own_renderer(game: str) -> None:
    """Real views of each game along a random playout (every seat and the spectator) render
    with the game's renderer, never the generic fallback; so do its actions and choices."""
    g = registry.get(game)
    names = [f"p{i}" for i in range(4)]
    seen = 0

    def check(state: Any, move: Any) -> None:
        nonlocal seen
        if random.Random(seen).random() > 0.2 and seen > 5:
            seen += 1
            return
        seen += 1
        node = g.next(state)
        for seat in [None, 0, 1]:
            view = g.view(state, seat)
            lines = render.RENDERERS[game](dict(view), names)  # raises on an unknown shape
            assert lines and all(isinstance(x, str) for x in lines)
        if isinstance(node, Turn):
            for a in g.legal_actions(state, node.seats[0] if node.seats else 0)[:20]:
                assert render.action_label(a)
        if isinstance(node, Simultaneous):
            for slot in node.slots:
                for ch in (slot.allowed or ())[:20]:
                    assert render.choice_label(ch)

    seats = 2 if game in ("duel", "empires-end") else 3
    play(g, seats, {}, seed=3, on_step=check, max_steps=400)
    assert seen > 0


def test_a_typed_refusal_reads_as_code_and_message() -> None:
    """A typed refusal reads as one line the player can read (code and message), not a
    RecursionError from a formatter that calls itself."""
    from clients.sdk.client import ApiError
    from clients.tui.app import error_text

    assert error_text(ApiError("lobby/table_full", "the table is full")) == (
        "lobby/table_full the table is full")
    assert error_text(ValueError("boom")) == "boom"
    assert error_text(TimeoutError()) == "TimeoutError"


def test_the_log_shows_the_gateways_sentence() -> None:
    """The terminal client prints the same sentence as the web page (the gateway's
    ``text``, shared/rules/narrate.py), not a key dump."""
    names = ["Ada", "Bob"]
    event = {"type": "placed", "data": {"seat": 1, "nb": "BX02", "n": 3},
             "text": "Bob places 3 cubes on Fordham (The Bronx)."}
    assert render.event_line(event, names) == "Bob places 3 cubes on Fordham (The Bronx)."
    raw = {"type": "placed", "data": {"seat": 1, "nb": "BX02", "n": 3}}
    assert "BX02" in render.event_line(raw, names)


async def test_tui_shows_and_sends_table_talk(clients_system: Supervisor) -> None:
    """Seated at a table, the lobby's chat panel shows the table's messages (as text, never
    markup) and Enter in its input posts one."""
    from clients.tui.chat import ChatPanel

    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-talker")
        table = await host.create_table("duel", seats=2, options={"rounds": 1})
        log = await host.chat_join(table_id=table["table_id"])
        app = EmpireApp(clients_system.url, name="tui-talker")
        async with app.run_test(size=SIZE) as pilot:
            lobby = await _lobby(pilot, app)
            await _join_by_invite(pilot, app, lobby, table["invite"])
            panel = lobby.query_one("#tablechat", ChatPanel)
            await _until(pilot, lambda: panel.log_ is not None, timeout=20)
            await host.chat("[bold]hello[/bold] tui", table_id=table["table_id"])

            def shown() -> list[str]:
                return [line.text for line in panel.chat_lines.lines]

            await _until(pilot, lambda: any("sdk-talker: [bold]hello[/bold] tui" in t
                                            for t in shown()), timeout=20)
            assert sum("hello" in t for t in shown()) == 1  # once, as text (not markup)
            panel.query_one(Input).focus()
            await pilot.press(*"hi host", "enter")
            await log.wait_for(lambda: "hi host" in log.texts(), 20)
            assert log.messages[-1]["name"] == "tui-talker"


def test_the_engine_board_is_drawn_as_wheels_with_sentences() -> None:
    """The terminal client draws The Empire Engine from its component data
    (GET /api/games/empire-engine/components): each player's two wheels with the action at
    each edge (top, left, right, bottom) as the engine's own rules place them, sentences
    instead of key dumps, and each sealed gear placement named with the action it brings to
    the top (checked against the engine's data.top_action, not the renderer's own maths)."""
    from shared.rules import components
    from shared.rules.empire_engine import data

    comp = components.components("empire-engine")
    g = registry.get("empire-engine")
    names = ["Ada", "Bob", "Cy"]
    checked = {"wheels": 0, "gears": 0}

    def check(state: Any, move: Any) -> None:
        for seat in (None, 0):
            view = dict(g.view(state, seat))
            text = render.render_view("empire-engine", view, names, comp)
            assert "=" not in text, text  # no k=v dumps
            lines = text.splitlines()
            for p in view["players"]:
                if not isinstance(p["engines"], dict):
                    continue
                for e in ("L", "R"):
                    o = p["engines"][e]["orientation"]
                    top = data.top_action(e, o)  # type: ignore[arg-type]
                    # a further clockwise turn brings the left edge up; the right edge is
                    # the one three turns away, the bottom two
                    left = data.top_action(e, o + 1)  # type: ignore[arg-type]
                    right = data.top_action(e, o + 3)  # type: ignore[arg-type]
                    bottom = data.top_action(e, o + 2)  # type: ignore[arg-type]
                    assert any(f"[{top.upper()}]" in ln for ln in lines)
                    assert any(f"{left} < ({e}) > {right}" in ln for ln in lines), text
                    assert any(bottom in ln for ln in lines)
                    checked["wheels"] += 1
        node = g.next(state)
        if isinstance(node, Simultaneous):
            view = dict(g.view(state, 0))
            me = view["players"][0]
            for slot in node.slots:
                if slot.seat != 0:
                    continue
                for ch in slot.allowed or ():
                    assert isinstance(ch, dict)
                    label = render.engine_choice_text(ch, view, comp, 0)
                    if "top" in ch:
                        assert label == f"engine {ch['engine']} with {ch['top']} on top"
                        continue
                    turns = data.gear_turns(ch["gear"], ch["boost"] != "none")
                    o = me["engines"][ch["engine"]]["orientation"] + turns
                    assert label.endswith(f"{data.top_action(ch['engine'], o)} on top"), label
                    checked["gears"] += 1

    play(g, 3, {}, seed=5, on_step=check, max_steps=300)
    assert checked["wheels"] > 20 and checked["gears"] > 20, checked
    # without component data the client still renders (the older plain lines)
    view = dict(g.view(g.setup({}, 2), 0))
    assert render.render_view("empire-engine", view, names)


async def test_tui_my_games_lists_a_turn_based_game_waiting_with_its_clock_in_days(
        clients_system: Supervisor) -> None:
    """A turn-based table from the new-table form (a clock typed as "2d"), started with a bot:
    "m" shows My games with the game waiting for this player, its clock in days."""
    from clients.tui.mygames import MyGamesScreen

    app = EmpireApp(clients_system.url, name="tui-turns")
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.catalog)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await pilot.press("c")
        await _until(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        form = app.screen
        assert isinstance(form, CreateTableScreen)
        for _ in registry.names():
            if form.game == "duel":
                break
            await pilot.press("down")
        form.query_one("#seats", Input).value = "2"
        form.query_one("#clock", Input).value = "2d"
        form.action_create()
        await _until(pilot, lambda: lobby.my_table is not None)
        assert lobby.my_table is not None and lobby.my_table["pace"] == "turn-based"
        assert lobby.my_table["turn_timeout_ms"] == 2 * 86_400_000
        await pilot.press("b")
        await _until(pilot, lambda: len((lobby.my_table or {}).get("players", [])) == 2)
        gid = await app.client.start(lobby.my_table["table_id"])
        # the lobby opens the game it sits at on its next refresh; back to it, then My games
        await _until(pilot, lambda: isinstance(app.screen, GameScreen), timeout=60)
        await pilot.press("escape")
        await _until(pilot, lambda: app.screen is lobby)
        await pilot.press("m")
        await _until(pilot, lambda: isinstance(app.screen, MyGamesScreen))
        screen = app.screen
        assert isinstance(screen, MyGamesScreen)

        def line() -> str:
            box = screen.query_one("#mygames", OptionList)
            for i in range(box.option_count):
                opt = box.get_option_at_index(i)
                if opt.id == gid:
                    return str(opt.prompt)
            return ""
        await _until(pilot, lambda: "YOUR TURN" in line(), timeout=60)
        assert re.search(r"YOUR TURN, (1 day \d+ h|2 days) left", line()), line()
        assert "turn-based" in line()


async def test_tui_resigns_after_a_confirm_and_watches_the_bot_play_on(
        clients_system: Supervisor) -> None:
    """"r" on the game screen asks first: "n" keeps the seat (nothing sent), "y" resigns it
    (POST /api/games/{id}/resign): the log says so, then the record's seat_handed_over entry
    reads as the web page's sentence, the screen watches on as a spectator with no choices,
    and the bot plays the seat to the end."""
    from clients.tui.resign import ResignScreen

    async with Client(clients_system.url) as host:
        await host.sign_in("sdk-stays")
        table = await host.create_table("duel", seats=2, options={"rounds": 2})
        app = EmpireApp(clients_system.url, name="tui-quits")
        async with app.run_test(size=SIZE) as pilot:
            lobby = await _lobby(pilot, app)
            await app.client.join(table["table_id"])
            gid = await host.start(table["table_id"])
            hosting = asyncio.create_task(play_seat(host, gid))
            try:
                lobby.open_game(gid)  # as "o" does for the table's game
                await _until(pilot, lambda: isinstance(app.screen, GameScreen), timeout=90)
                game = app.screen
                assert isinstance(game, GameScreen) and game.game_id == gid
                await _until(pilot, lambda: game.session is not None
                             and game.session.view is not None)
                assert game.session is not None and game.session.seat == 1
                game.query_one("#choices", OptionList).focus()  # not the chat's input
                await pilot.press("r")
                await _until(pilot, lambda: isinstance(app.screen, ResignScreen))
                await pilot.press("n")  # keep playing: nothing is sent
                await _until(pilot, lambda: app.screen is game)
                await _until(pilot, lambda: "you keep playing" in _log(game))
                assert (await app.client.match(gid))["players"][1]["name"] == "tui-quits"
                assert game.session.seat == 1
                await pilot.press("r")
                await _until(pilot, lambda: isinstance(app.screen, ResignScreen))
                await pilot.press("y")
                await _until(pilot, lambda: app.screen is game)

                def said(text: str) -> bool:  # (the log's lines wrap)
                    return text.replace(" ", "") in "".join(_log(game)).replace(" ", "")
                await _until(pilot, lambda: said("you resigned: "), timeout=90)
                assert said("plays seat 1 for the rest of the game; you are watching")
                await _until(pilot, lambda: said(
                    "tui-quits resigned; a bot plays seat 1 for the rest of the game"))
                await _until(pilot, lambda: game.session is not None
                             and game.session.seat is None, timeout=90)
                await _until(pilot, lambda: not game.decisions, timeout=90)
                await _until(pilot, lambda: game.session is not None and game.session.ended,
                             timeout=180)
                await asyncio.wait_for(hosting, 60)
            finally:
                hosting.cancel()
        done = await host.record(gid)
        (handed,) = [e for e in done["record"] if e["type"] == "seat_handed_over"]
        assert handed["seat"] == 1 and handed["reason"] == "resigned"


def test_a_seat_handed_to_a_bot_reads_as_the_web_pages_sentence() -> None:
    names = ["ada", "bob"]
    assert render.record_line("g-1", {"type": "seat_handed_over", "seq": 4, "seat": 1,
                                      "reason": "expired", "from": {"name": "bob"},
                                      "to": {"name": "bot-1", "bot": True}}, names, {}) == (
        "bob ran out of time; a bot plays seat 1 for the rest of the game")
    assert render.record_line("g-1", {"type": "seat_handed_over", "seq": 4, "seat": 0,
                                      "reason": "resigned"}, names, {}) == (
        "ada (s0) resigned; a bot plays seat 0 for the rest of the game")


def test_a_live_game_in_my_games_points_to_its_table() -> None:
    from clients.tui.mygames import line

    game = {"game": "duel", "pace": "real-time", "game_id": "g-1", "waiting": [],
            "my_turn": False, "ended": False}
    assert line(game, None) == "duel · real-time · live: its table shows whose move it is · g-1"
    turn_based = {**game, "pace": "turn-based"}
    assert "in play" in line(turn_based, None) and "live" not in line(turn_based, None)
