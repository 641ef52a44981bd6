"""Real Chromium: two players talk at a table before the start and in the game, a spectator
talks in the spectators' channel and never sees the players' ("Table talk").
Typed HTML stays text; a muted player's messages disappear for the one who muted it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, WebSocketRoute

from services.supervisor import Supervisor
from tests.browser.conftest import SHOTS
from tests.browser.ui import create_table, start

pytestmark = pytest.mark.browser


async def say(page: Page, box: str, text: str) -> None:
    await page.fill(f"#{box} .chat-input", text)
    await page.click(f"#{box} .chat-send")


async def sees(page: Page, box: str, text: str) -> None:
    await page.locator(f"#{box} .chat-text", has_text=text).first.wait_for()


async def texts(page: Page, box: str) -> list[str]:
    return [t.strip() for t in await page.locator(f"#{box} .chat-text").all_inner_texts()]


async def test_two_browsers_chat_at_a_table_and_in_a_game(tabs: Any, web: Supervisor) -> None:
    ada, bob, eve = await tabs("chat-ada"), await tabs("chat-bob"), await tabs("chat-eve")
    invite = await create_table(ada.page, "duel", 2, {"rounds": 1})
    await bob.page.fill("#invite", invite)
    await bob.page.click("#invite-form button[type=submit]")
    await bob.page.wait_for_selector("#seats-list >> text=chat-bob")

    # the table's chat, before the start
    await ada.page.wait_for_selector("#table-chat[class~=chat] .chat-title >> text=Table chat")
    await bob.page.wait_for_selector("#table-chat .chat-title >> text=Table chat")
    await say(ada.page, "table-chat", "hello <b>bob</b> <img src=x onerror=alert(1)>")
    await sees(bob.page, "table-chat", "hello <b>bob</b>")
    assert await bob.page.locator("#table-chat b, #table-chat img").count() == 0  # text only
    await say(bob.page, "table-chat", "hi \u202eada\u202c, ready")
    await sees(ada.page, "table-chat", "hi ada, ready")
    await ada.page.screenshot(path=str(SHOTS / "chat-table.png"))

    # the game: the seats' channel; a spectator gets the spectators' channel
    gid = await start(ada.page)
    await bob.page.wait_for_selector("#play:not(.hidden)")
    await ada.page.wait_for_selector("#game-chat .chat-title >> text=Players' chat")
    await bob.page.wait_for_selector("#game-chat .chat-title >> text=Players' chat")
    await eve.page.goto(f"{web.url}/#/game/{gid}")
    await eve.page.wait_for_selector("#game-chat .chat-title >> text=Spectators' chat")
    await say(ada.page, "game-chat", "bluff or not?")
    await sees(bob.page, "game-chat", "bluff or not?")
    await say(eve.page, "game-chat", "go ada")
    await sees(eve.page, "game-chat", "go ada")
    await say(bob.page, "game-chat", "never telling")
    await sees(ada.page, "game-chat", "never telling")
    assert await texts(eve.page, "game-chat") == ["go ada"]
    assert "go ada" not in await texts(ada.page, "game-chat")

    # ada mutes bob: his messages go from her panel; a new one never arrives
    await ada.page.locator("#game-chat .chat-line[data-player] .chat-mute").first.click()
    await ada.page.wait_for_selector("#game-chat .chat-unmute")
    await say(bob.page, "game-chat", "are you there?")
    await sees(bob.page, "game-chat", "are you there?")
    await say(ada.page, "game-chat", "quiet now")
    await sees(ada.page, "game-chat", "quiet now")
    assert await texts(ada.page, "game-chat") == ["bluff or not?", "quiet now"]
    await ada.page.screenshot(path=str(SHOTS / "chat-game.png"))


async def test_a_dropped_socket_at_a_table_comes_back_and_the_chat_with_it(
        tabs: Any, web: Supervisor) -> None:
    """A socket that drops before the start (a flaky network, a gateway restart) comes back
    on its own, joins the table's chat again and shows what was said meanwhile: the page
    reconnects while any chat panel is open, not only while it watches a game."""
    ada, bob = await tabs("drop-ada"), await tabs("drop-bob")
    sockets: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:  # bob's sockets, each passed on to the gateway
        ws.connect_to_server()
        sockets.append(ws)

    await bob.page.route_web_socket("**/ws", through)
    invite = await create_table(ada.page, "duel", 2, {"rounds": 1})
    await bob.page.fill("#invite", invite)
    await bob.page.click("#invite-form button[type=submit]")
    await bob.page.wait_for_selector("#table-chat .chat-title >> text=Table chat")
    await ada.page.wait_for_selector("#seats-list >> text=drop-bob")
    assert len(sockets) == 1

    await sockets[0].close(code=4000, reason="dropped by the test")  # bob's page loses it
    await say(ada.page, "table-chat", "still there?")
    await sees(bob.page, "table-chat", "still there?")  # from the history of the new join
    assert len(sockets) == 2
    await say(bob.page, "table-chat", "back again")
    await sees(ada.page, "table-chat", "back again")
    assert await texts(bob.page, "table-chat") == ["still there?", "back again"]
