"""Real Chromium: a guest with a rating and a running game registers a passkey
through Chromium's virtual authenticator (CDP WebAuthn), then a fresh browser context holding
the same passkey (a synced passkey on another device) signs in with it and finds the same
player: its name, its rating on the leaderboard and its running game to play. Also the
session list: the first browser's session is revoked from the second."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, CDPSession, Page

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.runtime.session_keys import SessionKey
from tests.browser.conftest import UI_TIMEOUT_MS, Tab

pytestmark = pytest.mark.browser

AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                 "hasUserVerification": True, "isUserVerified": True,
                 "automaticPresenceSimulation": True}


async def fresh(browser: Browser) -> tuple[BrowserContext, Page, CDPSession, str]:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000},
                                        bypass_csp=True)
    page = await context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    cdp = await context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable")
    made = await cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return context, page, cdp, made["authenticatorId"]


async def test_passkey_on_a_fresh_browser_reaches_the_same_player(
        browser: Browser, web: Supervisor) -> None:
    # the relying party is "localhost" (an IP address is not a valid RP id)
    site = f"http://localhost:{web.port}"
    first, page, cdp, auth_id = await fresh(browser)
    second = None
    errors: list[str] = []
    try:
        page.on("pageerror", lambda e: errors.append(str(e)))
        tab = Tab(first, page, "passkey-ada")
        await page.goto(site + "/")
        await page.fill("#name", tab.name)
        await page.click("#signin-form button[type=submit]")
        await page.wait_for_selector("#lobby:not(.hidden)")
        me: dict[str, Any] = await page.evaluate(
            "JSON.parse(localStorage.getItem('empire-hall'))")
        assert me["refresh_token"] and me["access_expires_ms"]
        # the page keeps its session's key with the session: the lobby bound it at sign-in
        assert me["signing_key"]
        # a rating (one finished game, our seat played by the SDK's bot with our session: its
        # token and its key, the only key the session takes) and a running game
        async with Client(site, token=me["token"]) as c:
            c.session_key = SessionKey.from_seed(me["signing_key"])
            t = await c.create_table("duel", seats=2, options={"rounds": 1})
            await c.add_bot(t["table_id"])
            done = await c.start(t["table_id"])
            await asyncio.wait_for(play_seat(c, done), 120)
            for _ in range(100):
                board = await c.leaderboard("duel")
                if any(e["player_id"] == me["player_id"] for e in board):
                    break
                await asyncio.sleep(0.2)
            rating = next(e["rating"] for e in board if e["player_id"] == me["player_id"])
            t2 = await c.create_table("duel", seats=2, options={"rounds": 3})
            await c.add_bot(t2["table_id"])
            running = await c.start(t2["table_id"])
        # upgrade the guest with a passkey, in the page
        await page.goto(site + "/#/account")
        await page.wait_for_selector("#account:not(.hidden) #add-passkey")
        assert "guest" in await page.inner_text("#account-status")
        await page.click("#add-passkey")
        await page.wait_for_function(
            "document.querySelector('#account-status').textContent.includes('is an account')")
        kept: dict[str, Any] = await page.evaluate(
            "JSON.parse(localStorage.getItem('empire-hall'))")
        assert kept["signing_key"] == me["signing_key"]  # a new page, the session's one key
        creds = (await cdp.send("WebAuthn.getCredentials",
                                {"authenticatorId": auth_id}))["credentials"]
        assert len(creds) == 1 and creds[0]["isResidentCredential"]

        # another device: a fresh context, the same passkey (synced), no local storage
        second, page2, cdp2, auth2 = await fresh(browser)
        page2.on("pageerror", lambda e: errors.append(str(e)))
        await cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2,
                                                    "credential": creds[0]})
        await page2.goto(site + "/")
        await page2.wait_for_selector("#signin:not(.hidden)")
        await page2.click("#passkey-signin")
        await page2.wait_for_selector("#lobby:not(.hidden)")
        again: dict[str, Any] = await page2.evaluate(
            "JSON.parse(localStorage.getItem('empire-hall'))")
        assert again["player_id"] == me["player_id"] and again["name"] == me["name"]
        assert again["session_id"] != me["session_id"]
        assert again["signing_key"] != me["signing_key"]  # a new session, a new key
        assert me["name"] in await page2.inner_text("#who")
        await page2.select_option("#lb-game", "duel")
        row = page2.locator("#leaderboard tr.me")
        await row.wait_for()
        assert f"{rating:.2f}" in await row.inner_text()
        live = page2.locator(f'#live tr[data-game="{running}"]')
        await live.wait_for()
        assert "Play" in await live.inner_text()  # our seat, from the other device
        await page2.click(f'#live tr[data-game="{running}"] a')
        await page2.wait_for_selector("#play:not(.hidden)")

        # the second browser revokes the first one's session from the session list
        await page2.goto(site + "/#/account")
        revoke = page2.locator(f'button[data-session="{me["session_id"]}"]')
        await revoke.click()
        await revoke.wait_for(state="detached")
        async with httpx.AsyncClient(base_url=site) as http:
            old = await http.get("/api/tables",
                                 headers={"Authorization": "Bearer " + me["token"]})
        assert (old.status_code, old.json()["code"]) == (401, "auth/revoked_session")
        assert errors == []
    finally:
        await first.close()
        if second is not None:
            await second.close()
