"""Real Chromium, at 1280 and 390 px: playing with a friend. A private table's invite link,
copied with its button, opened on another device (a separate browser context) by a friend
who signs up as a guest there and lands seated at the table; a stranger opening the table's
URL reads a sentence, not an empty invite code. Resigning a running game with its confirm
step: everyone's log says so and a bot finishes the seat. A guest signing out is told first
that the name cannot be recovered and may keep it with a password in the same dialog."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page

from services.supervisor import Supervisor
from tests.browser.conftest import SHOTS, UI_TIMEOUT_MS, Tab
from tests.browser.test_a11y import serious
from tests.browser.ui import add_bots, create_table, start

pytestmark = pytest.mark.browser

WIDTHS = [1280, 390]


async def at_width(page: Page, width: int) -> None:
    await page.set_viewport_size({"width": width, "height": 900 if width > 600 else 800})
    await page.wait_for_function("w => innerWidth === w", arg=width)


async def no_sideways_scroll(page: Page) -> None:
    wide = await page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"the page scrolls {wide} px sideways"


async def device(browser: Browser, width: int, name: str) -> Tab:
    """Another device: its own browser context (no shared storage), not signed in."""
    context = await browser.new_context(viewport={"width": width, "height": 800},
                                        bypass_csp=True)
    page = await context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    return Tab(context, page, name)


@pytest.mark.parametrize("width", WIDTHS)
async def test_an_invite_link_seats_a_friend_on_another_device(
        tabs: Any, browser: Browser, web: Supervisor, width: int) -> None:
    host = await tabs(f"host{width}")
    await host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await at_width(host.page, width)
    await host.page.click("#create-form > details > summary")
    await host.page.set_checked("#public", False)
    await host.page.set_checked("#on-expiry", True)  # a silent seat goes to a bot
    invite = await create_table(host.page, "duel", 2, {"rounds": 1})
    assert "then a bot takes the seat" in await host.page.inner_text("#table-body")
    link = await host.page.input_value("#invite-url")
    assert link == f"{web.url}/#/join/{invite}"
    await host.page.click("#copy-invite")
    await host.page.wait_for_selector("#flash >> text=Invite link copied.")
    assert await host.page.evaluate("navigator.clipboard.readText()") == link
    await no_sideways_scroll(host.page)
    assert await serious(host.page, "table with its invite link") == []
    await host.page.screenshot(path=str(SHOTS / f"invite-link-{width}.png"), full_page=True)
    table_url = host.page.url

    # a stranger (signed in, not invited) opening the table's own URL
    stranger = await tabs(f"stranger{width}")
    await at_width(stranger.page, width)
    await stranger.page.goto(table_url)
    note = await stranger.page.wait_for_selector("#table:not(.hidden) #invite-note")
    assert "private" in await note.inner_text() and "invite link" in await note.inner_text()
    assert await stranger.page.locator("#invite-code, #invite-url").count() == 0
    assert await serious(stranger.page, "a stranger at a private table") == []

    # the friend, on another device: opens the link, signs up as a guest, lands seated
    friend = await device(browser, width, f"friend{width}")
    try:
        await friend.page.goto(link)
        await friend.page.wait_for_selector("#signin:not(.hidden) #signin-invite:not(.hidden)")
        await friend.page.fill("#name", friend.name)
        await friend.page.click("#signin-form button[type=submit]")
        await friend.page.wait_for_selector(
            f"#table:not(.hidden) #seats-list >> text={friend.name}")
        assert friend.page.url.endswith(table_url.rsplit("#", 1)[-1])
        # seated: the friend may pass the link on
        assert await friend.page.input_value("#invite-url") == link
        await no_sideways_scroll(friend.page)
        await host.page.wait_for_selector(f"#seats-list >> text={friend.name}")
        assert await friend.page.evaluate("localStorage.getItem('eh:invite')") is None
        assert not friend.errors, friend.errors
    finally:
        await friend.context.close()


@pytest.mark.parametrize("width", [1280, pytest.param(390, marks=pytest.mark.full)])
async def test_resigning_hands_the_seat_to_a_bot_after_a_confirm(
        tabs: Any, width: int) -> None:
    ada = await tabs(f"resign{width}")
    await at_width(ada.page, width)
    await create_table(ada.page, "duel", 2, {"rounds": 3})
    await add_bots(ada.page, 1)
    await start(ada.page)
    await ada.page.click("#resign")
    await ada.page.wait_for_selector("#resign-confirm")
    await ada.page.click("#resign-no")  # keep playing: nothing happens
    await ada.page.wait_for_selector("#resign")
    await ada.page.click("#resign")
    await no_sideways_scroll(ada.page)
    assert await serious(ada.page, "resign confirm") == []
    await ada.page.click("#resign-yes")
    await ada.page.wait_for_selector("#resigned")
    await ada.page.wait_for_selector(
        f"#log li[data-type=seat_handed_over] >> text={ada.name} resigned; a bot plays seat")
    await ada.page.wait_for_selector("#play-sub >> text=spectating")
    # the bots finish the game
    await ada.page.wait_for_selector("#result:not(.hidden)", timeout=180_000)
    note = await ada.page.inner_text("#handed-note")
    assert f"{ada.name} resigned: a bot finished seat 1" in note and "ranks last" in note
    await no_sideways_scroll(ada.page)
    await ada.page.screenshot(path=str(SHOTS / f"resigned-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_guest_is_told_before_signing_out_and_may_keep_the_name(
        tabs: Any, web: Supervisor, width: int) -> None:
    ada = await tabs(f"leaver{width}")
    page = ada.page
    await at_width(page, width)
    await page.click("#who button.link")
    dialog = await page.wait_for_selector("#signout-dialog[open]")
    assert "cannot be recovered" in await dialog.inner_text()
    await no_sideways_scroll(page)
    assert await serious(page, "the guest's sign-out dialog") == []
    await page.screenshot(path=str(SHOTS / f"signout-guest-{width}.png"))
    await page.click("#signout-cancel")  # cancel keeps the guest signed in
    await page.wait_for_selector("#signout-dialog", state="detached")
    assert ada.name in await page.inner_text("#who")
    assert await page.locator("#lobby:not(.hidden)").count() == 1

    await page.click("#who button.link")
    await page.wait_for_selector("#signout-dialog[open]")
    await page.fill("#signout-password", "a fine long password")
    await page.click("#signout-set-password")
    await page.wait_for_selector(f"#signout-status >> text={ada.name} is now an account")
    await page.click("#signout-anyway")
    await page.wait_for_selector("#signin:not(.hidden)")
    # the name was kept: its password signs in again
    await page.fill("#acct-name", ada.name)
    await page.fill("#acct-password", "a fine long password")
    await page.click("#password-form button[type=submit]")
    await page.wait_for_selector("#lobby:not(.hidden)")
    assert ada.name in await page.inner_text("#who")
    # an account signs out without the dialog
    await page.click("#who button.link")
    await page.wait_for_selector("#signin:not(.hidden)")
    assert await page.locator("#signout-dialog").count() == 0


async def test_a_guest_keeps_the_name_with_a_passkey_from_the_sign_out_dialog(
        browser: Browser, web: Supervisor) -> None:
    """The dialog's other way to keep the player: a passkey (Chromium's virtual authenticator,
    tests/browser/test_accounts.py), then a passkey sign-in finds the same player."""
    from tests.browser.test_accounts import fresh

    site = f"http://localhost:{web.port}"  # the relying party is "localhost"
    context, page, _, _ = await fresh(browser)
    tab = Tab(context, page, "keeper")
    try:
        await page.goto(site + "/")
        await page.fill("#name", tab.name)
        await page.click("#signin-form button[type=submit]")
        await page.wait_for_selector("#lobby:not(.hidden)")
        me = await page.evaluate("JSON.parse(localStorage.getItem('empire-hall'))")
        await page.click("#who button.link")
        await page.wait_for_selector("#signout-dialog[open]")
        await page.click("#signout-passkey")
        await page.wait_for_selector(f"#signout-status >> text={tab.name} is now an account")
        await page.click("#signout-anyway")
        await page.wait_for_selector("#signin:not(.hidden)")
        await page.click("#passkey-signin")
        await page.wait_for_selector("#lobby:not(.hidden)")
        again = await page.evaluate("JSON.parse(localStorage.getItem('empire-hall'))")
        assert again["player_id"] == me["player_id"] and again["name"] == me["name"]
        assert not tab.errors, tab.errors
    finally:
        await context.close()
