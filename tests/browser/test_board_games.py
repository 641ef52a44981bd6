"""A whole game of each of the five games played by clicking on its drawn
board only (tests/browser/board_play.py: a move offered only in the side panel fails the run),
at desktop width (1280 px) and phone width (360 px), checking after every move that nothing
scrolls sideways and, at 360 px, that every control is at least 44 by 44 px. Screenshots of
each board (mid-game and at the end) go to test-output/screenshots. Empire, Empire's End and the
Card Game are drawn in SVG: there every target on the board must be an SVG element.

Short options keep them quick (Empire's beginner version, one Card Game hand, a few New York
rounds). ``make test-full`` plays the Engine and Empire at 360 px (about a minute together); the
rest are marked ``board_full`` and run with ``make test-browser-full``."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from tests.browser.board_play import play_on_board, shots
from tests.browser.ui import add_bots, create_table, start

pytestmark = pytest.mark.browser

FULL = pytest.mark.board_full
# boards drawn in SVG whose every target must be an SVG element (board_play's svg_only)
DRAWN_SVG = {"empire", "empires-end", "empire-cards"}

# (game, seats, options, move bound, time bound in s)
ENGINE = ("empire-engine", 2, {}, 120, 300)
CARDS = ("empire-cards", 3, {"max_hands": 1, "max_rounds_per_hand": 4}, 200, 400)
EMPIRE = ("empire", 2, {"version": "beginner"}, 400, 500)
NYC = ("empire-nyc", 3, {"max_rounds": 3}, 300, 500)
END = ("empires-end", 2, {}, 400, 500)

CASES = [
    pytest.param(*ENGINE, 360, id="empire-engine-360", marks=pytest.mark.full),
    pytest.param(*EMPIRE, 360, id="empire-360", marks=pytest.mark.full),
    pytest.param(*ENGINE, 1280, id="empire-engine-1280", marks=FULL),
    pytest.param(*EMPIRE, 1280, id="empire-1280", marks=FULL),
    pytest.param(*CARDS, 1280, id="empire-cards-1280", marks=FULL),
    pytest.param(*CARDS, 360, id="empire-cards-360", marks=FULL),
    pytest.param(*NYC, 1280, id="empire-nyc-1280", marks=FULL),
    pytest.param(*NYC, 360, id="empire-nyc-360", marks=FULL),
    pytest.param(*END, 1280, id="empires-end-1280", marks=FULL),
    pytest.param(*END, 360, id="empires-end-360", marks=FULL),
]


async def _table(tabs: Any, game: str, seats: int, options: dict[str, Any], width: int) -> Page:
    ada = await tabs("ada")
    page: Page = ada.page
    await page.set_viewport_size({"width": width, "height": 900 if width > 600 else 740})
    await create_table(page, game, seats, options)
    await add_bots(page, seats - 1)
    await start(page)
    return page


@pytest.mark.parametrize(("game", "seats", "options", "max_moves", "timeout_s", "width"), CASES)
async def test_a_whole_game_on_the_board(
    tabs: Any, game: str, seats: int, options: dict[str, Any], max_moves: int,
    timeout_s: float, width: int,
) -> None:
    page = await _table(tabs, game, seats, options, width)
    phone = width < 600
    suffix = "-360" if phone else ""
    played = await play_on_board(page, seed=len(game) * width, max_moves=max_moves,
                                 timeout_s=timeout_s, phone=phone,
                                 shot=(4, f"game-{game}{suffix}"), svg_only=game in DRAWN_SVG)
    await shots(page, f"game-{game}{suffix}-end")
    assert played.finished
    assert played.moves >= 2, played
    assert not played.small, f"controls under 44x44 px at {width} px: {sorted(played.small)}"
    # the seat's sealed choices (if any) all verified against their commitments
    assert await page.locator("#sealed .bad").count() == 0
