"""Real Chromium, "My games" (clients/web/mygames.js) at 1280 and 390 px: a turn-based table
made in the page's form, its game listed as waiting for the player with its clock in days (never
seconds), a second game pushed onto the open page by the socket's my_game frame (no reload) in
its place (the oldest wait first), the header's count, and a row's Play opening the game."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clients.sdk import Client
from services.supervisor import Supervisor
from tests.browser.conftest import SHOTS
from tests.browser.ui import add_bots, start

pytestmark = pytest.mark.browser

ROWS = "#mygames-body tbody tr"


async def test_my_games_lists_waiting_games_first_and_takes_pushes(
        tabs: Any, web: Supervisor) -> None:
    ada = await tabs("mg-ada")
    page = ada.page
    await page.set_viewport_size({"width": 1280, "height": 900})
    # a turn-based table from the form: two days a move, a bot opposite
    await page.select_option("#game", "duel")
    await page.fill("#seats", "2")
    await page.click("#create-form > details > summary")
    await page.select_option("#pace", "turn-based")
    await page.fill("#turn-timeout", "2")
    await page.select_option("#turn-timeout-unit", label="days")
    await page.click("#create")
    await page.wait_for_selector("#table:not(.hidden) #invite-code")
    assert "turn-based · time per move (turns and sealed rounds) 2 days" in \
        await page.inner_text("#table-body")
    await add_bots(page, 1)
    first = await start(page)

    await page.click("#mygames-link")
    await page.wait_for_selector(f"{ROWS}[data-game='{first}'][data-turn=mine]")
    row = page.locator(f"{ROWS}[data-game='{first}']")
    clock = (await row.locator("td.clock").inner_text()).strip()
    assert re.fullmatch(r"(1 day \d+ h|2 days) left", clock), clock  # days, never seconds
    assert (await row.locator("td.state").inner_text()).strip() == "your turn"

    # a second game, made elsewhere: the open page hears of it on its socket
    token = await page.evaluate("JSON.parse(localStorage.getItem('empire-hall')).token")
    async with Client(web.url) as bob, Client(web.url, token=token) as me:
        await bob.sign_in("mg-bob")
        t = await bob.create_table("duel", seats=2, pace="turn-based",
                                   turn_timeout_ms=3 * 3_600_000, round_timeout_ms=3 * 3_600_000)
        await me.join(t["table_id"])
        second = await bob.start(t["table_id"])
    await page.wait_for_selector(f"{ROWS}[data-game='{second}'][data-turn=mine]")
    order = await page.locator(ROWS).evaluate_all("rows => rows.map(r => r.dataset.game)")
    assert order[:2] == [first, second], order  # the oldest wait first
    clock2 = (await page.locator(f"{ROWS}[data-game='{second}'] td.clock").inner_text()).strip()
    assert re.fullmatch(r"(2 h \d+ min|3 h) left", clock2), clock2
    assert (await page.inner_text("#mygames-count")).strip() == "2"
    await page.screenshot(path=str(SHOTS / "my-games-1280.png"))

    # a phone's width: the list stays readable, the page does not scroll sideways
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.wait_for_selector(f"{ROWS}[data-game='{first}'] a.button")
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 392, wide
    for gid in (first, second):  # each row's button whole on the screen
        box = await page.locator(f"{ROWS}[data-game='{gid}'] a.button").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    await page.screenshot(path=str(SHOTS / "my-games-390.png"), full_page=True)
    await page.locator(f"{ROWS}[data-game='{second}'] a.button").click()
    await page.wait_for_selector("#play:not(.hidden) #board .board")
    assert page.url.endswith(f"#/game/{second}")
