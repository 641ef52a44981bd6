"""Accessibility: axe-core (vendored, tests/browser/vendor) finds no serious or
critical violation on the lobby, every game's board (with its moves on offer), every rules
page and the replay viewer. The script is injected into the page under test only (the tabs
bypass the CSP for the test's probes, tests/browser/conftest.py); the page never loads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from tests.browser.ui import add_bots, create_table, play_to_result, start

pytestmark = pytest.mark.browser

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
GAMES = ["empire", "empires-end", "empire-engine", "empire-nyc", "empire-cards"]
SEATS = {"empire-nyc": 3, "empire-cards": 3}  # their fewest


async def serious(page: Page, where: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands, one line each."""
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.add_script_tag(content=AXE)
    found: list[dict[str, Any]] = await page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter((v) => v.impact === 'serious' || v.impact === 'critical')"
        ".map((v) => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' '))}))")
    return [f"{where}: {v['impact']} {v['id']} ({v['help']}) at {v['nodes']}" for v in found]


async def test_lobby_and_rules_pages(tabs: Any) -> None:
    page = (await tabs("ada")).page
    problems = await serious(page, "lobby")
    for game in GAMES:
        await page.goto(page.url.split("#")[0] + f"#/rules/{game}")
        await page.wait_for_selector("#rules:not(.hidden) h2, #rules:not(.hidden) h1")
        await page.wait_for_function(
            "() => document.querySelector('#rules').textContent.length > 200")
        problems += await serious(page, f"rules {game}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game", GAMES)
async def test_board(tabs: Any, game: str) -> None:
    page = (await tabs("ada")).page
    seats = SEATS.get(game, 2)
    await create_table(page, game, seats, {})
    await add_bots(page, seats - 1)
    await start(page)
    problems = await serious(page, f"{game} board (seed)")
    # the seed on the board, then the board with the seat's first move on offer
    await page.locator("#board .seed[role=button]").click(timeout=60_000)
    await page.locator("#board button.go:enabled, #board .legal[role=button],"
                       " #board svg .go[role=button]").first.wait_for(timeout=90_000)
    problems += await serious(page, f"{game} board")
    assert not problems, "\n".join(problems)


async def test_replay_viewer(tabs: Any) -> None:
    page = (await tabs("ada")).page
    await create_table(page, "duel", 2, {"rounds": 1})
    await add_bots(page, 1)
    await start(page)
    await play_to_result([page], seed=3)
    await page.click("#replay-link")
    await page.wait_for_selector("#replay:not(.hidden) #verify-btn:enabled")
    await page.wait_for_selector("#server-seed")
    await page.wait_for_function(
        "(document.querySelector('#replay-board')?.textContent || '').includes('Board after 1 of')")
    await page.click("#verify-btn")
    await page.locator("#verify-out .verdict").wait_for()
    problems = await serious(page, "replay")
    assert not problems, "\n".join(problems)
