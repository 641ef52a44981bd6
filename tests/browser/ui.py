"""Driving the web page the way a player does: forms, buttons, the seat's controls."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from playwright.async_api import Page

# the seat's side-panel controls, or the moves its board offers as buttons (HTML, or drawn in
# SVG: Empire's auction)
READY = ("#controls[data-state=ready] button.go:enabled, #board button.go:enabled,"
         " #board svg .go[role=button]")


async def create_table(
    page: Page, game: str, seats: int, options: dict[str, Any] | None = None
) -> str:
    """Fill the lobby's New table form (game, seats, variant options); returns the invite."""
    await page.select_option("#game", game)
    await page.fill("#seats", str(seats))
    for name, value in (options or {}).items():
        field = page.locator(f"#options [name={name}]")
        kind = await field.get_attribute("data-kind")
        if kind == "boolean":
            await field.set_checked(bool(value))
        elif kind == "enum":
            await field.select_option(str(value))
        else:
            await field.fill("" if value is None else str(value))
    await page.click("#create")
    await page.wait_for_selector("#table:not(.hidden) #invite-code")
    return (await page.inner_text("#invite-code")).strip()


async def seated(page: Page) -> int:
    return await page.locator("#seats-list li:not(:has(.muted))").count()


async def add_bots(page: Page, n: int) -> None:
    for _ in range(n):
        before = await seated(page)
        await page.click("#add-bot")
        await page.wait_for_function(
            "n => document.querySelectorAll(`#seats-list li:not(:has(.muted))`).length > n",
            arg=before,
        )


async def start(page: Page) -> str:
    await page.click("#start")
    await page.wait_for_selector("#play:not(.hidden) #board .board")
    return page.url.rsplit("/", 1)[-1]


async def click_control(page: Page, rng: random.Random) -> bool:
    """Click one of the seat's enabled controls (mostly the first: pass / done / the first
    choice, sometimes any other); False when the seat has nothing to do right now."""
    buttons = page.locator(READY)
    n = await buttons.count()
    if n == 0:
        return False
    i = 0 if rng.random() < 0.6 else rng.randrange(n)
    try:
        await buttons.nth(i).click(timeout=2000)
    except Exception:  # re-rendered under us (a new view arrived): look again
        return False
    return True


async def finished(page: Page) -> bool:
    return await page.locator("#result:not(.hidden) table.result").count() > 0


async def play_to_result(pages: list[Page], seed: int, timeout: float = 120.0) -> int:
    """Play every page's seat by clicking its controls until each shows the result screen.
    Returns the number of clicks."""
    rng = random.Random(seed)
    clicks = 0
    deadline = time.monotonic() + timeout
    done: set[int] = set()
    while len(done) < len(pages):
        assert time.monotonic() < deadline, f"no result after {timeout} s ({clicks} clicks)"
        acted = False
        for k, page in enumerate(pages):
            if k in done:
                continue
            if await finished(page):
                done.add(k)
            elif await click_control(page, rng):
                clicks += 1
                acted = True
        if not acted:
            await asyncio.sleep(0.05)
    return clicks


async def receipts(page: Page) -> dict[str, int]:
    """Counts of the sealed-choice panel's marks: own receipts verified / warnings."""
    verified: int = await page.locator("#sealed .verified").count()
    bad: int = await page.locator("#sealed .bad").count()
    rounds_ok: int = await page.locator("#sealed .round .ok").count()
    return {"verified": verified, "bad": bad, "rounds_ok": rounds_ok}
