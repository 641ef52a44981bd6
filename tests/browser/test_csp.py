"""The page works under its Content-Security-Policy: no inline script, no eval, no
frames. A context that enforces the CSP signs in, creates a table, adds a bot, starts and plays
by clicks only; the browser reports no CSP violation and no page error."""

from __future__ import annotations

import random

import pytest
from playwright.async_api import Browser

from services.supervisor import Supervisor
from tests.browser.conftest import UI_TIMEOUT_MS
from tests.browser.ui import click_control, create_table, seated, start

pytestmark = pytest.mark.browser


async def test_the_page_runs_under_its_csp(browser: Browser, web: Supervisor) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" and (
        "Content Security Policy" in m.text or "Refused to" in m.text) else None)
    try:
        response = await page.goto(web.url + "/")
        assert response is not None
        csp = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        await page.fill("#name", "csp-player")
        await page.click("#signin-form button[type=submit]")
        await page.wait_for_selector("#lobby:not(.hidden)")
        await page.wait_for_selector("#game option", state="attached")
        await create_table(page, "duel", 2)
        await page.click("#add-bot")  # no wait_for_function: it evaluates a string (eval)
        for _ in range(100):
            if await seated(page) >= 2:
                break
            await page.wait_for_timeout(100)
        await start(page)
        rng = random.Random(3)
        for _ in range(20):
            await click_control(page, rng)
            await page.wait_for_timeout(100)
        assert problems == []
    finally:
        await context.close()
