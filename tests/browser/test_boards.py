"""Every game's drawn board, played by clicking on the board itself (auction,
nation and disaster cards, location tiles, the hand, the map, the wheels; never the side
panel: tests/browser/board_play.py), at desktop width and at 360 px with no sideways scroll;
a screenshot of each under test-output/screenshots. Whole games: test_board_games.py."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.browser.board_play import PROBE, play_on_board
from tests.browser.conftest import SHOTS, UI_TIMEOUT_MS
from tests.browser.ui import add_bots, create_table, receipts, start

pytestmark = pytest.mark.browser

SEED = "#board .seed[role=button]"
# a move drawn on the board (SVG) or an HTML button on it
MOVE = "#board button.go:enabled, #board svg .go[role=button]"

# every visible target on the board ([role=button], buttons, fields) and whether it is an SVG
# element
TARGETS = """() => [...document.querySelectorAll(
    '#board [role=button], #board button, #board input, #board select')]
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map((e) => ({svg: e instanceof SVGElement,
                what: e.tagName + '.' + [...e.classList].join('.'),
                focusable: e.tabIndex >= 0,
                named: !!(e.getAttribute('aria-label') || e.textContent.trim())}))"""


async def assert_drawn(page: Page, game: str) -> int:
    """The board is drawn: every target on it is an SVG element, keyboard-focusable and
    named (an HTML button or a list item on the board fails); returns how many there are."""
    targets = await page.evaluate(TARGETS)
    html = [x["what"] for x in targets if not x["svg"]]
    assert not html, f"{game}: targets on the board that are not drawn in SVG: {html}"
    assert all(x["focusable"] and x["named"] for x in targets), targets
    assert await page.locator("#board svg.drawn").count() > 0, f"{game}: nothing drawn"
    return len(targets)


async def _settled(page: Page, key: str) -> None:
    """The click took effect: the controls' inputs changed or the server refused it."""
    await page.wait_for_function(
        "k => document.querySelector('#controls').dataset.key !== k"
        " || document.querySelector('#status').textContent.includes('refused')",
        arg=key,
    )


async def phone_check(page: Page, game: str) -> None:
    """At 360 px wide nothing scrolls sideways; screenshots at both widths."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"board-{game}.png"), full_page=True)
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.wait_for_function("() => innerWidth === 360")
    # a board drawn in SVG lays itself out again for the new width (drawn.js redrawOnResize)
    await page.wait_for_function(
        "() => [...document.querySelectorAll('#board svg.drawn')]"
        ".every((s) => +(s.getAttribute('width') || 0) <= innerWidth)")
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"{game}: the page scrolls {wide} px sideways at 360 px"
    await page.screenshot(path=str(SHOTS / f"board-{game}-360.png"), full_page=True)


async def new_game(tabs: Any, game: str, seats: int, options: dict[str, Any]) -> Page:
    ada = await tabs("ada")
    await create_table(ada.page, game, seats, options)
    await add_bots(ada.page, seats - 1)
    await start(ada.page)
    return ada.page


async def test_empire_standard_nations_and_auction_on_the_board(tabs: Any) -> None:
    page = await new_game(tabs, "empire", 3, {"version": "standard"})
    await page.locator(SEED).click()  # the entropy seed, on the board
    # the nation market: drawn cards with their starting cards and institution, claimed by a
    # click on the card itself
    claim = page.locator("#board svg .ecard.nation.legal[role=button]").first
    await claim.wait_for(timeout=60_000)
    await assert_drawn(page, "empire")
    text = await page.locator("#board .ecard.nation").first.text_content() or ""
    assert "Starting cards" in text and "Institution" in text and "per institution" in text
    key = await page.get_attribute("#controls", "data-key") or ""
    await claim.click()
    await _settled(page, key)
    await page.wait_for_selector("#sealed .choice.mine", state="attached")  # a receipt
    # the auction: one amount stepper for any raise, never "withdraw" at 0/0/0, a status line
    bids = 0
    for _ in range(12):
        mine = page.locator(f"#board .yourbid, {MOVE}")
        try:
            await mine.first.wait_for(timeout=90_000)
        except PlaywrightTimeout:
            break
        if not await page.locator("#board .yourbid").count():
            # a collided claim again, commerce's sealed sale (a stepper on the board), or
            # the trade window's "done" (all on the board)
            key = await page.get_attribute("#controls", "data-key") or ""
            await page.locator(MOVE).first.click()
            await _settled(page, key)
            continue
        await assert_drawn(page, "empire")
        panel = await page.locator("#board svg.auction").text_content() or ""
        assert "would win" in panel or "nobody" in panel
        # one stepper (drawn: − amount + and the bid it sends) for any raise
        assert await page.locator("#board .yourbid .stepper").count() <= 1
        assert await page.locator("#controls .picker select").count() == 0
        # the bids and the seat's buttons read in one go (one drawn view, never two)
        snap = await page.evaluate(
            "() => ({amounts: [...document.querySelectorAll('#board svg.auction .bid text.amount')]"
            ".map((b) => b.textContent.trim()),"
            " mine: (document.querySelector('#board .yourbid') || {}).textContent || ''})")
        assert snap["amounts"], "no bids drawn"
        if all(a in ("0 gold", "withdrawn") for a in snap["amounts"]):
            assert "Withdraw" not in snap["mine"], snap
        key = await page.get_attribute("#controls", "data-key") or ""
        if bids == 0 and await page.locator("#board .yourbid .amount-go").count():
            # one more than the lowest raise with the drawn + (when allowed), then send it
            go = page.locator("#board .yourbid .amount-go")
            before = await go.get_attribute("aria-label") or ""
            await page.locator("#board .yourbid .stepper .step").last.click()  # the drawn +
            after = await go.get_attribute("aria-label") or ""
            # a stepper spans at least two amounts: + moved from the lowest to the next
            assert after.startswith("Bid ") and after != before, (before, after)
            if "not allowed" in after:
                await page.locator("#board .yourbid .stepper .step").first.click()
            await go.click()
        else:
            await page.click("#board .yourbid .pass")  # pass / take it
        bids += 1
        await _settled(page, key)
        if bids >= 3:
            break
    assert bids >= 2, "the seat was never polled in an auction"
    await page.wait_for_function(
        "() => [...document.querySelectorAll('#board .ecard.nation')]"
        ".some((c) => c.textContent.includes('Held by'))")
    assert (await receipts(page))["bad"] == 0
    await phone_check(page, "empire")


async def test_empire_trade_offer_put_together_on_the_drawing(tabs: Any) -> None:
    """Empire's trade offer is made on the drawing: open it, − / + per kind of card given and
    asked for (bounded by what the seat may trade), and one move naming the whole offer."""
    page = await new_game(tabs, "empire", 2, {"version": "beginner"})
    await page.locator(SEED).click()
    toggle = page.locator("#board svg.trading .toggle[role=button]")
    sell = page.locator("#board svg.commerce .go[role=button]")
    await page.locator("#board svg.trading .toggle[role=button],"
                       " #board svg.commerce .go[role=button]").first.wait_for(timeout=90_000)
    if await sell.count():  # the round's sealed sale comes first: sell, on the drawing
        await sell.first.click()
    await toggle.wait_for(timeout=90_000)
    await toggle.click()
    send = page.locator("#board svg.trading .offer")
    assert "Choose what to give" in (await send.get_attribute("aria-label") or "")
    # by keyboard: the drawn + is focusable, Enter and Space act, and the focus stays on it
    # when the board is drawn again
    plus = '[aria-label="You give: one gold more"]'
    await page.locator(f"#board svg.trading {plus}").focus()
    await page.keyboard.press("Enter")
    focused = "() => document.activeElement.getAttribute('aria-label')"
    assert await page.evaluate(focused) == "You give: one gold more"
    await page.keyboard.press(" ")
    assert await page.evaluate(focused) == "You give: one gold more"
    await page.locator('#board svg.trading [aria-label="You give: one gold less"]').click()
    label = await send.get_attribute("aria-label") or ""
    assert "you give 1 gold for nothing" in label, label
    await assert_drawn(page, "empire")
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "board-empire-trade.png"), full_page=True)
    await page.locator("#board svg.trading .go.offer[role=button]").click()
    # the offer is on the record (the bot may take it at once: a gift raises its value)
    await page.wait_for_selector("#log li.ev[data-type=trade_offered]", timeout=30_000)


async def test_empires_end_cards_with_text(tabs: Any) -> None:
    page = await new_game(tabs, "empires-end", 2, {})
    made = await play_on_board(page, seed=1, max_moves=400, timeout_s=300, stop_after=5,
                               svg_only=True)
    assert made.moves >= 5 or made.finished, made
    await assert_drawn(page, "empires-end")
    tiles = await page.locator("#board svg .ecard.tile").count()
    assert tiles > 0
    # every tile and disaster card carries its text from the data module
    text = await page.locator("#board .board.end").text_content() or ""
    assert "Reconstructed data" in text
    assert await page.locator("#board .ecard.tile .small").count() >= tiles
    await phone_check(page, "empires-end")


async def test_card_game_rps_and_hand(tabs: Any) -> None:
    page = await new_game(tabs, "empire-cards", 3, {"first_dealer": "rps", "max_hands": 1})
    await page.locator(SEED).click()  # the entropy seed, on the board
    shape = page.locator("#board svg.rps .seal[role=button]").first
    await shape.wait_for(timeout=60_000)
    key = await page.get_attribute("#controls", "data-key") or ""
    await shape.click()
    await _settled(page, key)
    await page.wait_for_selector("#sealed .choice.mine", state="attached")  # a receipt
    await page.wait_for_selector("#board svg.hand g.pc", timeout=90_000)
    await assert_drawn(page, "empire-cards")
    made = await play_on_board(page, seed=2, max_moves=400, timeout_s=300, stop_after=4,
                               svg_only=True)
    assert made.moves >= 4 or made.finished, made
    await phone_check(page, "empire-cards")


@pytest.mark.parametrize(("game", "seats"), [pytest.param("empire-nyc", 3, marks=pytest.mark.full),
                                           ("empire-engine", 3)])
async def test_map_and_wheels_fit_a_phone(tabs: Any, game: str, seats: int) -> None:
    page = await new_game(tabs, game, seats, {})
    made = await play_on_board(page, seed=3, max_moves=400, timeout_s=300, stop_after=3)
    assert made.moves >= 3 or made.finished, made
    await phone_check(page, game)


async def test_the_drawn_check_fails_on_an_html_target(browser: Browser) -> None:
    """The SVG boards' checks (assert_drawn here, board_play's svg_only probe) pass on a drawn
    target and fail as soon as the board holds an HTML one, so a board that is not drawn
    cannot pass them."""
    page = await browser.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    try:
        await page.set_content(
            '<div id="board"><svg class="drawn" width="120" height="60" role="group"'
            ' aria-label="board"><g role="button" tabindex="0" class="go" aria-label="Bid 1 gold">'
            '<rect width="60" height="60"/></g></svg></div>'
            '<div id="controls"></div><div id="status"></div>')
        assert await assert_drawn(page, "drawn") == 1
        st = await page.evaluate(PROBE)
        assert (st["buttons"], st["html"]) == (1, [])
        await page.evaluate(
            "() => { const b = document.createElement('button'); b.className = 'go';"
            " b.textContent = 'Bid 1 gold'; document.querySelector('#board').append(b); }")
        with pytest.raises(AssertionError, match="not drawn in SVG"):
            await assert_drawn(page, "html")
        st = await page.evaluate(PROBE)
        assert st["html"] == ['button.go "Bid 1 gold"']
    finally:
        await page.close()
