"""Real Chromium: the play screen tells the truth and fits a phone.

* The sealed-choice panel: an Engine game played through the page against a bot; every label
  of a sealed choice describes the choice in the state its round opened in: each revealed
  label of this seat equals the label it was committed under, and every revealed gear choice,
  the bot's included, names the action the server's own reveal (the record's plan_revealed
  event) put on top. One line per round in plain words; the hashes behind "details".
* The page adds the seat's random seed by itself (no click), unless the player opts to do it
  by hand; the clock reads in minutes, hours or days; bots are named in words; the replay's
  move list speaks the log's sentences; Empire's End numbers disasters as its log does.
* At 390 px (and 1280 px) the result screen and its table fit with no sideways scroll, the
  page scrolls to the result when the game ends, and New York's map fits with no two names
  overlapping.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page

from tests.browser.conftest import SHOTS
from tests.browser.ui import add_bots, create_table, play_to_result, start

pytestmark = pytest.mark.browser

# "7 min left", "1 h 5 min left", "4 days 23 h left", "42 s left": never thousands of seconds
CLOCK = re.compile(r"^ · (\d{1,2} s|\d{1,2} min|\d{1,2} h( \d{1,2} min)?"
                   r"|\d+ days?( \d{1,2} h)?) left$")

# this seat's sealed choices, their committed and revealed labels; every revealed label
SEALED = """() => [...document.querySelectorAll('#sealed .choice')].map((e) => ({
  key: e.dataset.key, mine: e.classList.contains('mine'),
  committed: e.dataset.committed ?? null, revealed: e.dataset.revealed ?? null }))"""

# this seat's entropy round receipt (its random seed, committed)
MY_SEED = "#sealed .round[data-round=entropy] .choice.mine"

# the page scrolls sideways by this many px (0 when it fits)
WIDE = "() => document.scrollingElement.scrollWidth - innerWidth"

# every cell of the result table lies within the screen (nothing cut off)
RESULT_CUT = """() => [...document.querySelectorAll('#result table.result td')]
  .filter((e) => { const r = e.getBoundingClientRect();
    return r.left < -1 || r.right > innerWidth + 1; })
  .map((e) => e.textContent)"""

# the result card's top is on the screen
RESULT_IN_VIEW = """() => { const r = document.querySelector('#result').getBoundingClientRect();
  return r.top >= -2 && r.top < innerHeight; }"""


async def _record(page: Page, game_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = await page.evaluate(
        "gid => fetch(`/api/matches/${gid}/record`).then((r) => r.json())", game_id)
    return doc


async def _ended_in_view(page: Page, width: int) -> None:
    """The result is shown, scrolled to, and fits ``width`` px."""
    await page.wait_for_function(RESULT_IN_VIEW)
    assert await page.evaluate(WIDE) <= 0, f"the page scrolls sideways at {width} px"
    assert await page.evaluate(RESULT_CUT) == [], f"result cells cut off at {width} px"


@pytest.mark.parametrize("width", [1280, pytest.param(390, marks=pytest.mark.full)])
async def test_engine_labels_hashes_seed_clock_bots_result_and_replay(
    tabs: Any, width: int,
) -> None:
    ada = await tabs("ada", seed_by_hand=False)
    page = ada.page
    await page.set_viewport_size({"width": width, "height": 900 if width > 600 else 800})
    await create_table(page, "empire-engine", 2)
    await add_bots(page, 1)
    game_id = await start(page)

    # bots named in words, also on the play screen
    sub = await page.inner_text("#play-sub")
    assert "Heuristic bot" in sub and "bot-heuristic" not in sub, sub
    # the page commits the seat's random seed by itself: no click here
    await page.wait_for_selector(MY_SEED, state="attached")
    # the clock in words
    # (read in the same step as the wait: the next state may clear the clock right after)
    shown = await page.wait_for_function(
        "() => { const t = (document.querySelector('#deadline') || {}).textContent;"
        " return t && t.includes('left') ? t : null; }")
    clock = str(await shown.json_value())
    assert CLOCK.match(clock), clock

    await play_to_result([page], seed=width, timeout=600)
    await _ended_in_view(page, width)
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"result-empire-engine-{width}.png"))

    # every receipt verified, no warning
    assert await page.locator("#sealed .bad").count() == 0
    await page.wait_for_function(
        "() => document.querySelectorAll('#sealed .round[data-round^=plan] .ok').length >= 1")
    sealed = await page.evaluate(SEALED)
    mine = [x for x in sealed if x["mine"] and x["revealed"] is not None]
    assert len(mine) >= 4, sealed  # two placements a round
    for x in mine:  # revealed exactly as committed
        assert x["revealed"] == x["committed"], x
    # the server's own reveal: what each placement put on top (the bot's included)
    labels = {x["key"]: x["revealed"] for x in sealed if x["revealed"] is not None}
    doc = await _record(page, game_id)
    checked = 0
    for e in doc["record"]:
        if e.get("type") != "event" or e.get("event") != "plan_revealed":
            continue
        for p in e["data"]["placements"]:
            key = f"plan:{e['data']['round']}/s{p['seat']}:{p['order']}"
            if p["overridden"] or key not in labels:
                continue  # an overridden placement is labelled as committed, not as applied
            assert labels[key].endswith(f"{p['top']} on top"), (key, labels[key], p)
            checked += 1
    assert checked >= 4, (checked, labels)

    # one line per round in plain words; the hashes only behind "details"
    lines = await page.locator("#sealed > .round").all_inner_texts()
    assert any(re.match(r"^Round \d+: you chose .+ and .+, Heuristic bot chose .+ and .+;"
                        r" all commitments verified$", t) for t in lines), lines
    for panel in ("#sealed", "#fairness"):
        shown = await page.evaluate("p => document.querySelector(p).innerText", panel)
        assert not re.search(r"[0-9a-f]{16}", shown), (panel, shown)
    assert await page.locator("#sealed details.hashes:not([open])").count() == 1
    assert await page.locator("#fairness details.hashes:not([open])").count() == 1
    assert await page.locator("#sealed details.hashes .receipt").count() >= len(mine)
    await page.locator("#sealed").screenshot(path=str(SHOTS / f"sealed-empire-engine-{width}.png"))

    # the replay's move list in the log's sentences
    log = {re.sub(r"^#\d+ ", "", t) for t in await page.locator("#log li.ev").all_inner_texts()}
    await page.click("#replay-link")
    await page.wait_for_selector("#replay:not(.hidden) .steps tr[data-seq]")
    events = await page.locator("#replay .steps ul.evs li").all_inner_texts()
    assert events, "no events in the replay"
    assert not [t for t in events if re.search(r"\b(true|false)\b", t, re.I)], events
    assert set(events) <= log, sorted(set(events) - log)[:5]
    moves = await page.locator("#replay .steps tr[data-seq]").all_inner_texts()
    assert not [t for t in moves if '{"' in t], moves[:5]
    # each gear placement the live panel named ("→ 2 turns: arm on top") reads the same there
    gears = re.findall(r"Engine [LR] · gear \d(?: \+ \w+)? → \d turns?: \w+ on top",
                       "\n".join(lines))
    assert gears, lines
    assert [g for g in gears if g not in "\n".join(moves)] == [], moves


async def test_a_seed_by_hand_waits_for_the_player(tabs: Any) -> None:
    """The opt-in: the page offers "Add my random seed" and commits nothing by itself."""
    ada = await tabs("ada", seed_by_hand=True)
    page = ada.page
    await create_table(page, "duel", 2)
    await add_bots(page, 1)
    await start(page)
    seed = page.locator("#board .seed[role=button]")
    await seed.wait_for()
    assert await page.is_checked("#seed-by-hand")
    assert await page.locator(MY_SEED).count() == 0
    await seed.click()
    await page.wait_for_selector(MY_SEED, state="attached")


@pytest.mark.parametrize("width", [1280, 390])
async def test_nyc_map_fits_with_no_overlapping_names(tabs: Any, width: int) -> None:
    ada = await tabs("ada", seed_by_hand=False)
    page = ada.page
    await page.set_viewport_size({"width": width, "height": 900 if width > 600 else 800})
    await create_table(page, "empire-nyc", 3, {"max_rounds": 3})
    await add_bots(page, 2)
    await start(page)
    await page.wait_for_selector("#board svg.nycmap g.nb[data-nb=MN03]")
    await page.wait_for_timeout(300)  # a resize redraw settles (no assertion on time)
    boxes = await page.evaluate("""() => [
      ...document.querySelectorAll('#board svg.nycmap text.name')]
      .map((e) => { const r = e.getBoundingClientRect();
        return { nb: e.dataset.nb, l: r.left, t: r.top, r: r.right, b: r.bottom }; })""")
    assert len(boxes) == 42
    crossing = [(a["nb"], b["nb"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                if a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]]
    assert crossing == [], crossing
    fit = await page.evaluate("""() => { const svg = document.querySelector('#board svg.nycmap');
      const box = svg.parentElement;
      return { right: svg.getBoundingClientRect().right, inner: innerWidth,
        scroll: box.scrollWidth - box.clientWidth }; }""")
    assert await page.evaluate(WIDE) <= 0
    if width < 600:  # the whole map on the screen, nothing to scroll inside its box either
        assert fit["right"] <= fit["inner"] and fit["scroll"] <= 0, fit
        # names readable: at least 9 px high on screen
        assert min(b["b"] - b["t"] for b in boxes) >= 9, boxes[:3]
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"empire-nyc-map-{width}.png"))


async def test_disasters_are_numbered_as_the_log_numbers_them(tabs: Any) -> None:
    """Empire's End's buttons and cards count disasters from 1, as its log does ("Disaster
    1: ..."): the page's own labels for the first disaster's moves."""
    ada = await tabs("ada")
    page = ada.page
    labels = await page.evaluate("""async () => {
      const { makeCtx } = await import('/static/labels.js');
      const ctx = makeCtx('empires-end',
        [{ name: 'Ada' }, { name: 'Heuristic bot', bot: 'heuristic' }], 0);
      return ['bid', 'take', 'free_bid', 'replace'].map((type) =>
        ctx.actionLabel({ type, disaster: 0, resource: 'axe', card: 'x' }));
    }""")
    assert labels == ["Bid 1 axe on disaster 1", "Take disaster 1", "Free bid on disaster 1 with x",
                      "Replace disaster 1 with x"], labels


async def test_the_clock_reads_in_minutes_hours_or_days(tabs: Any) -> None:
    """The page's one duration format (clients/web/format.js), which the in-game clock uses:
    "431998 s left" reads "4 days 23 h left"."""
    ada = await tabs("ada")
    shown = await ada.page.evaluate("""async () => {
      const { duration, timeLeft } = await import('/static/format.js');
      return [0, 42_900, 60_000, 7 * 60_000 + 59_000, 3_900_000, 86_400_000, 431_998_000, -5]
        .map(duration).concat([timeLeft(1_000_000 + 431_998_000, 1_000_000)]);
    }""")
    assert shown == ["0 s", "42 s", "1 min", "7 min", "1 h 5 min", "1 day", "4 days 23 h", "0 s",
                     "4 days 23 h left"], shown
