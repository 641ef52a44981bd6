"""How to play and the lobby in plain words, in real Chromium at 1280 and 390 px: the "How to
play" links of the lobby, the table and the game open the game's guide with its headings and
its pictures loaded (every game's guide too); the New table form labels its options in words
with a one-line help and the ruling only behind "why"; a time per move picked as "2 hours"
reaches the API as 7,200,000 ms and is shown back in words; a refusal shows the server's
sentence, never its code."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.async_api import Page

from tests.browser.conftest import SHOTS
from tests.browser.ui import add_bots, create_table, start

pytestmark = pytest.mark.browser

WIDTHS = [1280, 390]
GAMES = ["empire", "empire-engine", "empires-end", "empire-nyc", "empire-cards", "duel"]
HEADINGS = ["The goal", "Setup", "The end and scoring"]
RULING_ID = re.compile(r"\b[A-Z]{1,4}(?:-[A-Z]?\d+)+\b")


async def sized(tabs: Any, name: str, width: int) -> Page:
    page: Page = (await tabs(name)).page
    await page.set_viewport_size({"width": width, "height": 900})
    return page


async def guide_shown(page: Page, title: str) -> None:
    """The rules screen shows the guide: its headings, every picture loaded, the rulings
    folded under their own heading, nothing wider than the screen."""
    await page.wait_for_selector("#rules:not(.hidden) #guide h3")
    assert title in await page.inner_text("#rules-title")
    heads = await page.locator("#guide h3").all_inner_texts()
    for want in HEADINGS:
        assert want in heads, (title, heads)
    assert any(h in ("A round", "A turn") for h in heads), heads
    await page.wait_for_function(
        "() => { const imgs = [...document.querySelectorAll('#guide img')];"
        " return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0); }")
    alts = await page.locator("#guide img").evaluate_all("(imgs) => imgs.map((i) => i.alt)")
    assert all(len(a) > 20 for a in alts), alts
    summary = await page.inner_text("#rulings > summary")
    assert summary.strip() == "Rulings and reconstructed data"
    assert not await page.locator("#rulings").evaluate("(d) => d.open")  # folded by default
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"{title}: the page scrolls sideways by {wide} px"


@pytest.mark.parametrize("width", WIDTHS)
async def test_how_to_play_from_the_lobby_the_table_and_the_game(tabs: Any, width: int) -> None:
    page = await sized(tabs, "ada", width)
    await page.select_option("#game", "empire-engine")
    link = page.locator("#howto-link")
    assert (await link.inner_text()) == "How to play The Empire Engine"
    await link.click()
    await guide_shown(page, "The Empire Engine")
    await page.screenshot(path=str(SHOTS / f"guide-engine-{width}.png"), full_page=True)
    # every game's guide: its pictures load at this width
    for game in GAMES:
        await page.evaluate("() => document.querySelector('#rules-body').replaceChildren()")
        await page.goto(page.url.split("#")[0] + f"#/rules/{game}")
        await guide_shown(page, "How to play")
    # the table's link, then the game's
    await page.goto(page.url.split("#")[0] + "#/lobby")
    await page.wait_for_selector("#lobby:not(.hidden)")
    await create_table(page, "duel", 2, {"rounds": 1})
    await page.click("#table-howto")
    await guide_shown(page, "Duel")
    await page.go_back()
    await page.wait_for_selector("#table:not(.hidden) #add-bot")
    await add_bots(page, 1)
    await start(page)
    await page.click("#rules-link")
    await guide_shown(page, "Duel")


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_new_table_form_speaks_in_words(tabs: Any, width: int) -> None:
    page = await sized(tabs, "bea", width)
    await page.select_option("#game", "empire")
    titles = await page.locator("#options .opt-title").all_inner_texts()
    assert "Rules version" in titles and "Memory mode" in titles, titles
    helps = await page.locator("#options .opt-desc").all_inner_texts()
    assert len(helps) == len(titles) and all(len(x) > 10 for x in helps)
    # the ruling ids only behind "why", folded
    visible = " ".join(titles + helps)
    assert not RULING_ID.search(visible), visible
    why = page.locator("#options [data-option=version] details.why")
    assert not await why.evaluate("(d) => d.open")
    await why.locator("summary").click()
    assert "E-22" in await why.inner_text()
    await page.screenshot(path=str(SHOTS / f"new-table-form-{width}.png"), full_page=True)
    # enum values in words
    await page.select_option("#game", "empire-cards")
    dealer = await page.locator("#options [name=first_dealer] option").all_inner_texts()
    assert dealer == ["a random player", "rock-paper-scissors"]
    # the clock: 2 hours is sent as 7,200,000 ms and shown back in words
    await page.select_option("#game", "duel")
    await page.click("#create-form > details > summary")
    await page.fill("#turn-timeout", "2")
    await page.select_option("#turn-timeout-unit", label="hours")
    assert "2 hours" in await page.inner_text("#turn-timeout-row .duration-words")
    async with page.expect_request(lambda r: r.url.endswith("/api/tables")
                                   and r.method == "POST") as req:
        await page.click("#create")
    body = json.loads((await req.value).post_data or "{}")
    assert (body["turn_timeout_ms"], body["round_timeout_ms"]) == (7_200_000, 7_200_000)
    await page.wait_for_selector("#table:not(.hidden) #invite-code")
    assert "time per move (turns and sealed rounds) 2 hours" in await page.inner_text("#table")
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_refusal_is_shown_as_a_sentence(tabs: Any, width: int) -> None:
    page = await sized(tabs, "cy", width)
    await create_table(page, "duel", 2, {})
    await page.click("#start")  # alone at a table for two: the lobby refuses
    flash = page.locator("#flash.bad")
    await flash.wait_for()
    text = await flash.inner_text()
    assert text == ("Duel (reference game) needs 2 to 4 seated players: add a bot or wait for "
                    "more players to join.")
    assert await flash.get_attribute("data-code") == "lobby/bad_request"
    # an invite nobody issued
    await page.goto(page.url.split("#")[0] + "#/lobby")
    await page.wait_for_selector("#lobby:not(.hidden)")
    await page.fill("#invite", "no-such-invite-code")
    await page.click("#invite-form button[type=submit]")
    await page.wait_for_function(
        "() => document.querySelector('#flash').textContent.startsWith('No table has')")
    text = await page.inner_text("#flash")
    assert text.endswith("or ask for a new one.") and "lobby/" not in text
    # a clock out of range never reaches the server: the picker says what to do
    await page.click("#create-form > details > summary")
    await page.fill("#turn-timeout", "3")
    await page.select_option("#turn-timeout-unit", label="days")
    await page.click("#create")
    await page.wait_for_function(
        "() => document.querySelector('#flash').textContent.includes('between 1 minute and"
        " 1 day')")
    assert (await page.inner_text("#flash")).endswith("choose a smaller number or another unit.")


NEW_TABLE_SHOWN = """() => {
  const id = location.hash.startsWith("#/table/") && location.hash.split("/")[2];
  const body = document.querySelector("#table:not(.hidden) #table-body");
  return !!id && !!body && body.textContent.includes(`Table ${id} `)
    && !!body.querySelector("#add-bot");
}"""


@pytest.mark.parametrize("width", [1280, pytest.param(390, marks=pytest.mark.full)])
async def test_the_fourth_running_game_is_refused_in_a_sentence(tabs: Any, width: int) -> None:
    """The running-games quota (3 by default): the fourth start shows what to do next."""
    page = await sized(tabs, f"quota-{width}", width)
    lobby = page.url.split("#")[0] + "#/lobby"
    for n in range(4):
        await page.goto(lobby)
        await page.wait_for_selector("#lobby:not(.hidden)")
        await page.select_option("#game", "duel")
        await page.fill("#seats", "2")
        await page.eval_on_selector("#create-form > details", "(d) => { d.open = true; }")
        await page.fill("#turn-timeout", "1")  # nobody plays these games: they wait a day
        await page.select_option("#turn-timeout-unit", label="days")
        await page.click("#create")
        # this table's own page, not the last one's still in the (hidden) screen
        await page.wait_for_function(NEW_TABLE_SHOWN)
        assert "1 day" in await page.inner_text("#table")
        await add_bots(page, 1)
        if n < 3:
            await start(page)
    await page.click("#start")
    flash = page.locator("#flash.bad")
    await flash.wait_for()
    assert await flash.inner_text() == (
        "You already have 3 running games, the most one player may have: finish one of them "
        "first, then start this one.")
    assert await flash.get_attribute("data-code") == "lobby/quota"
