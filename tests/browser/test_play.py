"""Real Chromium on the web page: tables made in the UI, games played to the result screen
by clicking the human seats' controls, sealed-choice receipts checked green, the replay
viewer's in-browser verify all green, a spectator, and a board for every game."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout

from services.supervisor import Supervisor
from shared.fairness.verify import verify
from tests.browser.conftest import SHOTS, Tab
from tests.browser.ui import add_bots, create_table, play_to_result, receipts, start

pytestmark = pytest.mark.browser


async def _verify_in_replay(tab: Tab, game_id: str) -> dict[str, Any]:
    """Open the replay from the result screen, press verify; the page's verdict and counts."""
    page = tab.page
    await page.click("#replay-link")
    await page.wait_for_selector("#replay:not(.hidden) #verify-btn:enabled")
    await page.wait_for_selector("#server-seed")
    # the board after each step, re-applied by the gateway, as a spectator and as a seat
    board = page.locator("#replay-board")
    await page.wait_for_function(
        "document.querySelector('#replay-board').textContent.includes('Board after 1 of')")
    assert "could not be drawn" not in await board.inner_text()
    await page.select_option("#replay-seat", "0")  # shown to people as seat 1
    await page.wait_for_function(
        "document.querySelector('#replay-board').textContent.includes('as seat 1 (')")
    assert "could not be drawn" not in await board.inner_text()
    await page.click("#verify-btn")
    verdict = page.locator("#verify-out .verdict")
    await verdict.wait_for()
    text = await verdict.inner_text()
    failed = await page.locator("#verify-out details.checks .bad").count()
    rows = await page.locator("#verify-out details.checks li").count()
    async with httpx.AsyncClient() as http:
        doc = (await http.get(f"{page.url.split('#')[0]}api/matches/{game_id}/record")).json()
    problems, counts = verify(doc)
    return {
        "text": text,
        "ok": await verdict.get_attribute("data-ok"),
        "failed": failed,
        "rows": rows,
        "problems": problems,
        "counts": counts,
    }


async def test_duel_two_humans_invite_spectator_and_replay(tabs: Any, web: Supervisor) -> None:
    ada, bob, eve = await tabs("ada"), await tabs("bob"), await tabs("eve")
    invite = await create_table(ada.page, "duel", 3, {"rounds": 2})
    await bob.page.fill("#invite", invite)
    await bob.page.click("#invite-form button[type=submit]")
    await bob.page.wait_for_selector("#seats-list >> text=bob")
    await ada.page.wait_for_selector("#seats-list >> text=bob")  # the host's table page polls
    await add_bots(ada.page, 1)
    game_id = await start(ada.page)
    await bob.page.wait_for_selector("#play:not(.hidden) #board .board.duel")  # follows the table

    # eve finds the live game in the lobby and watches it as a spectator
    await eve.page.click("#refresh")
    await eve.page.click(f"#live tr[data-game='{game_id}'] a.button")
    await eve.page.wait_for_selector("#play:not(.hidden) #board .board.duel")
    assert "spectat" in await eve.page.inner_text("#controls")

    clicks = await play_to_result([ada.page, bob.page], seed=1, timeout=240)
    assert clicks >= 6  # each human: the entropy seed, a pick per round, a call
    for tab in (ada, bob):
        marks = await receipts(tab.page)
        assert marks["bad"] == 0, tab.name
        assert marks["verified"] == 3, (tab.name, marks)  # entropy + 2 picks, each green
        assert "Place" in await tab.page.inner_text("#result")
    await eve.page.wait_for_selector("#result:not(.hidden) table.result")
    spectator = await receipts(eve.page)
    assert spectator["bad"] == 0 and spectator["verified"] == 0 and spectator["rounds_ok"] == 3
    SHOTS.mkdir(parents=True, exist_ok=True)
    await ada.page.screenshot(path=str(SHOTS / "duel.png"), full_page=True)

    check = await _verify_in_replay(ada, game_id)
    assert check["problems"] == [] and check["ok"] == "true", check
    assert check["failed"] == 0 and check["rows"] > 0
    c = check["counts"]
    assert (
        f"{c['draws']} draws recomputed, {c['commitments']} commitments in {c['rounds']} "
        f"sealed rounds verified, {c['applied']} applied moves match"
    ) in check["text"]
    assert c["commitments"] == 9 and c["rounds"] == 3
    await ada.page.screenshot(path=str(SHOTS / "replay-duel.png"), full_page=True)

    # the finished game shows on the leaderboard
    await ada.page.evaluate("location.hash = '#/leaderboard/duel'")
    await ada.page.wait_for_selector("#leaderboard tr.me")


@pytest.mark.full
async def test_empire_beginner_three_seats(tabs: Any) -> None:
    ada = await tabs("ada")
    await create_table(ada.page, "empire", 3, {"version": "beginner"})
    await add_bots(ada.page, 2)
    game_id = await start(ada.page)
    await ada.page.wait_for_selector("#board .board.empire")
    clicks = await play_to_result([ada.page], seed=2, timeout=240)
    assert clicks >= 20  # bids, trade windows and the sealed sales of five rounds
    marks = await receipts(ada.page)
    assert marks["bad"] == 0 and marks["verified"] == 6, marks  # entropy + 5 commerce rounds
    SHOTS.mkdir(parents=True, exist_ok=True)
    await ada.page.screenshot(path=str(SHOTS / "empire.png"), full_page=True)
    check = await _verify_in_replay(ada, game_id)
    assert check["problems"] == [] and check["ok"] == "true" and check["failed"] == 0, check
    assert check["counts"]["rounds"] == 6 and check["counts"]["commitments"] == 18


BOARDS = [
    ("empire-engine", 3, "engine", {}),
    ("empires-end", 2, "end", {}),
    ("empire-nyc", 3, "nyc", {}),
    ("empire-cards", 3, "cards", {"max_hands": 1}),
]


@pytest.mark.parametrize(("game", "seats", "css", "options"), BOARDS, ids=[b[0] for b in BOARDS])
async def test_board_of_every_game(
    tabs: Any, game: str, seats: int, css: str, options: dict[str, Any]
) -> None:
    """Each game's board renders its view and the seat's controls act: a few moves (the
    entropy seed included) are made by clicking, then a screenshot."""
    ada = await tabs("ada")
    await create_table(ada.page, game, seats, options)
    await add_bots(ada.page, seats - 1)
    await start(ada.page)
    page = ada.page
    await page.wait_for_selector(f"#board .board.{css}")
    clicks = 0
    for _ in range(8):  # the entropy seed, then game moves as they come (bots may be slow)
        if clicks >= 4:  # (a look that lost its move to a new view is not a click)
            break
        # a move is a ready control, or (games played on their drawn board) a highlighted
        # spot on the board, then the amount it asks for
        # (a drawn SVG move, g.go[role=button], sends at once; a g.legal spot selects)
        button = page.locator(
            "#controls[data-state=ready] button.go:enabled:visible,"
            " #board g.legal[role=button]:not(.go):visible,"
            " #board svg .go[role=button]:visible,"
            " #board button.go.onboard:enabled:visible").first  # a hidden one is no move
        try:
            await button.wait_for(timeout=60_000 if clicks < 2 else 10_000)
        except PlaywrightTimeout:
            break
        spot = page.locator("#board g.legal[role=button]:not(.go):visible")
        if await spot.count():
            seq = await page.get_attribute("#controls", "data-seq") or ""
            key = await page.get_attribute("#controls", "data-key") or ""
            try:
                await spot.first.click(timeout=5_000)
            except PlaywrightTimeout:
                continue  # a new view (a bot's move) took that spot away: look again
            # what the spot offers: an amount, dice, (the Engine's wheel edge) the sealed
            # placements that bring that action to the top, or (the Card Game's hand) the
            # drawn plays with the card
            go = page.locator("#board .amount-go:enabled, #board button.dice:enabled,"
                              " #board button.go.seal, #board svg .go[role=button]").first
            if await go.count():
                await go.click()
            clicks += 1
            # the click took effect: a new view (a one-cube placement is sent at once, and the
            # seat may be to move again by the time this looks), a sealed choice's receipt, an
            # amount to choose, or a refusal
            await page.wait_for_function(
                "([s, k]) => document.querySelector('#controls').dataset.seq !== s"
                " || document.querySelector('#controls').dataset.key !== k"
                " || document.querySelector('#status').textContent.includes('refused')"
                " || document.querySelector('#board .amount-go, #board button.dice,"
                " #board svg .go[role=button]')",
                arg=[seq, key])
            continue
        key = await page.get_attribute("#controls", "data-key") or ""
        try:
            await button.click(timeout=5_000)
        except PlaywrightTimeout:
            continue  # a new view took that move away before the click: look again
        clicks += 1
        # the click took effect: the controls' inputs changed (a new view, the sealed
        # choice's receipt, the seat busy with its action) or the server refused it
        await page.wait_for_function(
            "k => document.querySelector('#controls').dataset.key !== k"
            " || document.querySelector('#status').textContent.includes('refused')",
            arg=key,
        )
    assert clicks >= 2, f"{game}: the seat got no move after its entropy seed"
    assert (await receipts(page))["bad"] == 0
    # the entropy seed's reveal checked (older rounds sit in a collapsed <details>)
    await page.wait_for_selector("#sealed .verified", state="attached")
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{game}.png"), full_page=True)
    # a table of the players, or a board drawn in SVG
    assert await page.locator("#board .board table, #board .board svg.drawn").count() > 0


async def test_nyc_map_is_clicked_and_fits_a_phone(tabs: Any) -> None:
    """New York is a drawn map (names from the server's component data) played by
    clicking it; at 360 px the page does not scroll sideways; the log speaks in sentences."""
    ada = await tabs("ada")
    page = ada.page
    await create_table(page, "empire-nyc", 3, {})
    await add_bots(page, 2)
    await start(page)
    await page.wait_for_selector("#board svg.nycmap g.nb[data-nb=MN03]")
    assert "Harlem" in (await page.locator("#board g.nb[data-nb=MN03]").text_content() or "")
    seed = page.locator("#controls[data-state=ready] button.go:enabled").first  # entropy
    await seed.wait_for(timeout=60_000)
    await seed.click()
    spot = page.locator("#board g.legal[role=button]").first
    await spot.wait_for(timeout=60_000)
    seq = await page.get_attribute("#controls", "data-seq")
    await spot.click()
    await page.wait_for_function("s => document.querySelector('#controls').dataset.seq !== s",
                                 arg=seq, timeout=30_000)
    await page.wait_for_selector("#log li.ev")
    lines = await page.locator("#log li.ev").all_inner_texts()
    assert any(" places " in x and "(" in x for x in lines), lines[-5:]
    assert not any("…" in x for x in lines)
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.wait_for_timeout(200)
    wide = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wide <= 0, f"the page scrolls {wide} px sideways at 360 px"
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "empire-nyc-360.png"), full_page=True)
