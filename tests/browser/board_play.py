"""Playing a seat by clicking on the drawn board only.

A move is a click on ``#board``: a highlighted spot that selects (a card, a neighborhood, a
wheel's edge: ``.legal[role=button]`` without ``go``) or a move that sends (an HTML
``button.go``, or a drawn SVG target ``[role=button].go``: an amount stepper's send button, a
seal button, a nation card). The side panel (``#controls``) is never clicked: when it offers a
move for a while and the board offers none, the game is not playable on its board and the run
fails. With ``svg_only`` (Empire, Empire's End, the Card Game: boards drawn in SVG) every target
on the board must be an SVG element: an HTML button or spot on the board fails the run. After
every move the page must not scroll sideways, and at phone width every visible control on the
board and in the side panel must be at least 44 by 44 px.
"""

from __future__ import annotations

import contextlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import SHOTS

# what the page can do now, in one round trip: the board's moves (spots and buttons, visible
# and enabled), the side panel's, the controls' key and whether the result is shown
PROBE = """() => {
  const vis = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const on = (sel) => [...document.querySelectorAll(sel)].filter((e) => vis(e) && !e.disabled);
  const c = document.querySelector('#controls');
  return {
    result: !!document.querySelector('#result:not(.hidden) table.result'),
    spots: on('#board .legal[role=button]:not(.go)').length,
    buttons: on('#board button.go, #board svg .go[role=button]').length,
    // targets on the board that are not drawn (HTML buttons and spots, not SVG elements)
    html: on('#board button.go, #board .legal[role=button]:not(.go), #board [role=button].go')
      .filter((e) => !(e instanceof SVGElement))
      .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`
        + ` "${(e.textContent || '').trim().slice(0, 30)}"`),
    side: on('#controls button.go').length,
    key: c ? c.dataset.key || '' : '',
    refused: (document.querySelector('#status') || {}).textContent?.includes('refused') || false,
    wide: document.documentElement.scrollWidth - innerWidth,
  };
}"""

# every visible control smaller than 44 x 44 px (tap targets at 360 px)
SMALL_TARGETS = """() => {
  const sel = 'button, [role=button], select, a[href],'
    + ' input:not([type=hidden]):not([type=checkbox])';
  const out = [];
  for (const e of document.querySelectorAll(`#board :is(${sel}), #controls :is(${sel})`)) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;  // hidden (a closed <details>, display:none)
    if (e.closest('details.raw')) continue;  // the raw view's own summary is not a move
    if (r.width < 44 || r.height < 44) {
      const what = `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
      const text = (e.textContent || '').trim().slice(0, 30);
      out.push(`${what} "${text}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return out;
}"""


@dataclass
class Played:
    moves: int = 0
    spots: int = 0
    refused: int = 0
    finished: bool = False
    small: set[str] = field(default_factory=set)


async def _settle(page: Page, key: str, timeout_ms: float) -> None:
    """The click took effect (the controls' inputs changed, or the server refused it)."""
    with contextlib.suppress(PlaywrightTimeout):  # a new view may have come meanwhile
        await page.wait_for_function(
            "k => document.querySelector('#controls').dataset.key !== k"
            " || document.querySelector('#status').textContent.includes('refused')"
            " || !!document.querySelector('#result:not(.hidden) table.result')",
            arg=key, timeout=timeout_ms)


async def play_on_board(
    page: Page, *, seed: int, max_moves: int, timeout_s: float, phone: bool = False,
    side_grace_s: float = 15.0, shot: tuple[int, str] | None = None, stop_after: int = 0,
    svg_only: bool = False,
) -> Played:
    """Play this page's seat on the board until the result screen shows (bounded by
    ``max_moves`` clicks and ``timeout_s``). Fails when a move is offered only in the side
    panel longer than ``side_grace_s`` (a redraw under way on a busy machine takes seconds; a
    board that lacks the move never draws it), when the page scrolls sideways, (``phone``)
    when a control is under 44 px, or (``svg_only``) when a target on the board is not an SVG
    element.
    ``shot`` = (n, name): a screenshot once the seat has made n moves; ``stop_after`` > 0:
    return (unfinished) after that many moves."""
    rng = random.Random(seed)
    out = Played()
    deadline = time.monotonic() + timeout_s
    side_since: float | None = None
    for _ in range(max_moves * 40):  # polls; each move needs a few
        assert time.monotonic() < deadline, f"no result after {timeout_s} s ({out.moves} moves)"
        st: dict[str, Any] = await page.evaluate(PROBE)
        assert st["wide"] <= 0, f"the page scrolls {st['wide']} px sideways after {out.moves} moves"
        if phone:
            out.small.update(await page.evaluate(SMALL_TARGETS))
        if svg_only:
            assert not st["html"], f"targets on the board that are not drawn in SVG: {st['html']}"
        if st["result"]:
            out.finished = True
            return out
        if stop_after and out.moves >= stop_after:
            return out
        if not st["spots"] and not st["buttons"]:
            if st["side"]:  # a move only in the side panel: allowed for a moment (a redraw)
                side_since = side_since or time.monotonic()
                assert time.monotonic() - side_since < side_grace_s, (
                    f"a legal move is offered only in #controls after {out.moves} moves: "
                    + await page.inner_text("#controls"))
            else:
                side_since = None
            await page.wait_for_timeout(150)
            continue
        side_since = None
        if shot and out.moves == shot[0]:
            await shots(page, shot[1])
            shot = None
        assert out.moves < max_moves, f"no result after {max_moves} moves on the board"
        # a board button is the move; a spot (card, neighborhood, wheel edge) selects first
        use_spot = st["spots"] and (not st["buttons"] or rng.random() < 0.35)
        sel = ("#board .legal[role=button]:not(.go)" if use_spot
               else "#board button.go:enabled, #board svg .go[role=button]")
        loc = page.locator(sel)
        n = await loc.count()
        if not n:
            continue  # redrawn meanwhile
        i = 0 if rng.random() < 0.5 else rng.randrange(n)
        try:
            await loc.nth(i).click(timeout=2_000)
        except PlaywrightError:  # re-rendered under the pointer (a new view): look again
            continue
        if use_spot:
            out.spots += 1
            continue
        out.moves += 1
        await _settle(page, st["key"], 15_000)
        if "refused" in await page.inner_text("#status"):
            out.refused += 1
    raise AssertionError(f"the game did not end within the poll bound ({out.moves} moves)")


async def shots(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
