"""Real Chromium: the account screen's notifications block. This system has no mail server, so
the page says so and the mail form is disabled; a webhook to a loopback address is refused
with its typed error, a public one is saved and its signing secret is shown once; the
verification link's landing (``?notice=email-verified``) is acknowledged."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


async def test_account_screen_notifications(tabs: Any) -> None:
    tab = await tabs("notify-ada")
    page = tab.page
    await page.goto(page.url.split("#")[0] + "#/account")
    await page.wait_for_selector("#account:not(.hidden) #notifications")
    assert "sends no mail" in await page.inner_text("#notify-state")
    assert await page.is_disabled("#notify-mail button[type=submit]")

    await page.fill("#notify-webhook", "https://127.0.0.1/hook")
    await page.click("#notify-hook button[type=submit]")
    await page.wait_for_function(
        "document.querySelector('#flash').textContent.includes('give a public https address')")
    assert await page.inner_text("#notify-secret") == ""

    await page.fill("#notify-webhook", "https://93.184.216.34/hook")
    await page.click("#notify-hook button[type=submit]")
    await page.wait_for_selector("#notify-secret code")
    secret = await page.inner_text("#notify-secret code")
    assert len(secret) >= 32
    # shown once: the screen drawn again has the URL, not the secret
    await page.reload()
    await page.wait_for_selector("#account:not(.hidden) #notifications")
    assert await page.input_value("#notify-webhook") == "https://93.184.216.34/hook"
    assert secret not in await page.content()

    await page.goto(page.url.split("#")[0].split("?")[0] + "?notice=email-verified#/account")
    await page.wait_for_function(
        "document.querySelector('#flash').textContent.includes('Address confirmed')")
    assert "notice" not in page.url
