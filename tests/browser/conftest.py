"""The browser tier: the whole system as processes (as the e2e tier starts it, on its own
logical database) and Debian's Chromium driven by Playwright."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, ConsoleMessage, Page, async_playwright

from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.browser.chromium import ARGS, ensure_chromium
from tests.e2e.conftest import OUT, with_db
from tests.support.dir_scope import until_directory_ends

BROWSER_DB = 7  # e2e uses 0 and 1, the clients tier 5
STARTUP_S = 180.0
SHOTS = OUT / "screenshots"
# every page's wait for an element or a state (Playwright's own default is 30 s): the page
# and eight processes share two busy cores with the rest of the suite, and a wait ends as
# soon as its element is there, so a generous bound costs nothing on a quiet machine
UI_TIMEOUT_MS = 90_000


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    return ensure_chromium()


@pytest.fixture(scope="session")
def web(redis_url: str) -> Iterator[Supervisor]:
    # a loaded CI machine may take longer than the default minute to bring eight processes
    # up; and a start that fails must not leave them running
    sup = Supervisor(redis_url=with_db(redis_url, BROWSER_DB), port=free_port(),
                     log_dir=OUT / "logs" / "browser")
    try:
        sup.start(wait=STARTUP_S)
    except BaseException:
        sup.stop()
        raise
    stop = until_directory_ends(__file__, sup.stop)
    yield sup
    stop()


@pytest.fixture(scope="session")
async def browser(chromium_path: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=str(chromium_path), args=ARGS)
        yield b
        await b.close()


class Tab:
    """One signed-in player's page, recording page errors (a test fails on any)."""

    def __init__(self, context: BrowserContext, page: Page, name: str) -> None:
        self.context, self.page, self.name = context, page, name
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._console)

    def _console(self, msg: ConsoleMessage) -> None:
        # a failed fetch (e.g. polling a result that is not stored yet) is logged by the
        # browser itself; anything else on console.error is ours
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            self.errors.append(msg.text)


@pytest.fixture
async def tabs(browser: Browser, web: Supervisor) -> AsyncIterator[Any]:
    """``await tabs("ada")`` -> a fresh context signed in as ada on the lobby. The page adds
    the seat's random seed by itself unless the player opts to do it by hand; these tabs opt
    in (the tests click the seed as a move of their own) unless ``seed_by_hand=False``
    (tests/browser/test_table_truth.py plays with the page's own seed)."""
    opened: list[Tab] = []

    async def open_tab(name: str, seed_by_hand: bool = True) -> Tab:
        # the page runs under a CSP without 'unsafe-eval'; Playwright's own string
        # evaluations (wait_for_function, evaluate) need eval, so these contexts bypass the
        # CSP for the test's probes; tests/browser/test_csp.py drives the page with the CSP on
        context = await browser.new_context(viewport={"width": 1400, "height": 1000},
                                            bypass_csp=True)
        page = await context.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        tab = Tab(context, page, name)
        opened.append(tab)
        await page.goto(web.url + "/")
        if seed_by_hand:  # clients/web/seedpref.js
            await page.evaluate("() => localStorage.setItem('eh:seed-by-hand', '1')")
        await page.fill("#name", name)
        await page.click("#signin-form button[type=submit]")
        await page.wait_for_selector("#lobby:not(.hidden)")
        await page.wait_for_selector("#game option", state="attached")
        return tab

    yield open_tab
    for tab in opened:
        await tab.context.close()
    errors = {t.name: t.errors for t in opened if t.errors}
    assert not errors, f"errors in the page: {errors}"
