"""Each game's how-to-play guide (shared/rules/<game>/guide.md) against its engine, and the
rules page the gateway serves from it (shared/rules/guides.py): the guide comes first with
its headings, every action type of the game's action union is named in it, every picture
exists and is described, and the rulings that follow carry no source address and no
"#<n>" reference."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from shared.rules import guides, registry

pytestmark = pytest.mark.unit

GAMES = registry.names()
HEADINGS = (r"The goal", r"Setup", r"A (round|turn)", r"The end and scoring")
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
SVG = "{http://www.w3.org/2000/svg}"


def action_types(game: str) -> set[str]:
    """The ``type`` tags of the game's action union, read from its JSON schema."""
    schema = registry.get(game).Actions.json_schema()
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            tag = node.get("properties", {}).get("type") if "properties" in node else None
            if isinstance(tag, dict) and "const" in tag:
                found.add(tag["const"])
            if isinstance(tag, dict) and tag.get("enum"):
                found.update(tag["enum"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    return found


def test_the_action_unions_are_read() -> None:
    assert {"raise", "pass", "withdraw", "offer_trade", "done"} <= action_types("empire")
    assert action_types("empire-engine") == {"block", "loot", "salvage"}
    assert action_types("duel") == {"call"}


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_guide_with_its_headings_in_order(game: str) -> None:
    md = guides.guide(game)
    assert md.startswith("# How to play ")
    heads = [m.group(1) for m in re.finditer(r"^## (.+)$", md, re.M)]
    at = [next(i for i, h in enumerate(heads) if re.fullmatch(p, h)) for p in HEADINGS]
    assert at == sorted(at), heads


@pytest.mark.parametrize("game", GAMES)
def test_every_action_type_is_named_in_the_guide(game: str) -> None:
    md = guides.guide(game)
    missing = sorted(t for t in action_types(game) if f"`{t}`" not in md)
    assert not missing, f"{game}: guide.md does not name {missing}"


@pytest.mark.parametrize("game", GAMES)
def test_every_picture_exists_is_described_and_used(game: str) -> None:
    md = guides.guide(game)
    pictures = IMAGE.findall(md)
    assert pictures, f"{game}: the guide has no picture of the game"
    used = set()
    for alt, src in pictures:
        assert len(alt) >= 20, f"{game}: {src} needs alt text that says what it shows"
        assert src.startswith("images/"), src
        name = src.removeprefix("images/")
        path = guides.image(game, name)
        assert path is not None, f"{game}: {src} is missing"
        root = ET.parse(path).getroot()
        assert root.tag == f"{SVG}svg" and root.get("role") == "img"
        title = root.find(f"{SVG}title")
        assert title is not None and title.text and len(title.text) >= 20
        # the gateway's CSP (style-src 'self') applies to the picture too: no inline styles
        assert not list(root.iter(f"{SVG}style"))
        assert all("style" not in el.attrib for el in root.iter()), path
        assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}foreignObject"))
        used.add(name)
    on_disk = {p.name for p in (guides.game_dir(game) / "images").glob("*")}
    assert on_disk == used, f"{game}: pictures not in the guide: {on_disk - used}"


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_is_the_guide_then_the_rulings_without_sources(game: str) -> None:
    md = guides.rules_markdown(game)
    assert md.startswith("# How to play ")
    head = f"## {guides.RULINGS_HEADING}"
    assert md.count(head) == 1
    guide_part, rulings_part = md.split(head)
    for pattern in HEADINGS:
        assert re.search(rf"^## {pattern}$", guide_part, re.M), pattern
    assert "](/api/games/" in guide_part and "](images/" not in guide_part
    assert not re.search(r"https?://", md), "a URL in the rules page"
    assert not re.search(r"\b[\w-]+\.(com|org|net|co\.uk|de|at|mx|io)\b", md), "a source site"
    assert not re.search(r"#\d", md), "a '#<digits>' reference"
    assert "docs/" not in md and "RULINGS.md" not in md and "../shared" not in md
    # the rulings keep their ids, one heading level below the rulings heading
    assert not re.search(r"^#{1,2} ", rulings_part, re.M)


def test_the_rulings_keep_what_players_need() -> None:
    md = guides.rules_markdown("empire-nyc")
    rulings = md.split(guides.RULINGS_HEADING)[1]
    assert "NY-S1" in rulings and "NY-8" in rulings and "RECONSTRUCTED" in rulings
    assert "the six occupation missions" in rulings  # the reconstructed list, in words
    engine = guides.rules_markdown("empire-engine").split(guides.RULINGS_HEADING)[1]
    assert "EE-4" in engine and "Family-games review" not in engine  # research notes left out
    empire = guides.rules_markdown("empire").split(guides.RULINGS_HEADING)[1]
    assert "(no. 6)" in empire and "E-22" in empire


def test_player_rulings_drop_research_sections_and_number_signs() -> None:
    md = ("# Title\n\nA preamble for developers (`docs/x.md`).\n\n## Server rulings\n\nKeep #3.\n\n"
          "### 1.2 Public material: FOUND\n\nexample.com/page\n\n#### deeper\n\nstill out\n\n"
          "### 1.3 Errata (RULINGS.md §1.3)\n\nIn.\n")
    out = guides.player_rulings(md)
    assert out == "### Server rulings\n\nKeep no. 3.\n\n#### 1.3 Errata\n\nIn.\n"


@pytest.mark.parametrize("name", ["../guide.md", "..%2Fguide.md", "guide.md", "images/x.svg",
                                  "x.svg.png", "", "A.svg", ".svg", "x" * 80 + ".svg",
                                  "nope.svg", "/etc/passwd", "round.svg\x00"])
def test_only_a_guide_picture_is_ever_served(name: str) -> None:
    assert guides.image("duel", name) is None


def test_a_picture_is_served_by_its_plain_name() -> None:
    path = guides.image("duel", "round.svg")
    assert path is not None and path.parent.name == "images"
    with pytest.raises(registry.UnknownGame):
        guides.image("chess", "round.svg")


RULING_ID = re.compile(r"\b[A-Z]{1,4}(?:-[A-Z]?\d+)+\b")


@pytest.mark.parametrize("game", GAMES)
def test_every_option_is_labelled_in_words_with_its_ruling_only_in_why(game: str) -> None:
    """The lobby's form shows ``title`` and a one-line ``description``; the ruling ids go in
    ``why``, a detail the player opens on purpose."""
    props = registry.get(game).options_schema()["properties"]
    assert isinstance(props, dict) and props
    for name, prop in props.items():
        assert isinstance(prop, dict)
        title, desc = prop.get("title"), prop.get("description")
        assert isinstance(title, str) and title, (game, name)
        assert isinstance(desc, str) and 10 <= len(desc) <= 160, (game, name)
        assert not RULING_ID.search(title + " " + desc), (game, name, desc)
        assert "docs/" not in desc and "RULINGS" not in desc and "None" not in desc
        why = prop.get("why")
        if why is not None:
            assert isinstance(why, str) and RULING_ID.search(why), (game, name, why)


def test_the_ruling_id_pattern_finds_every_kind_of_id() -> None:
    ids = "E-22 EE-14 EEND-9 NY-S1 CG-S3 CG-17 P-S1"
    assert RULING_ID.findall(ids) == ids.split()
    assert not RULING_ID.search("a 1-in-7 draw, 3 or 4 players, Round 6")


@pytest.mark.parametrize("game", GAMES)
def test_every_choice_of_an_option_has_words(game: str) -> None:
    """An enum's values are shown through ``labels`` when their code is not a word."""
    for name, prop in registry.get(game).options_schema()["properties"].items():
        assert isinstance(prop, dict)
        values = prop.get("enum") or []
        labels = prop.get("labels") or {}
        assert isinstance(values, list) and isinstance(labels, dict)
        for v in values:
            assert isinstance(v, str)
            assert v in labels or (v.isalpha() and len(v) > 3), (game, name, v)


@pytest.mark.parametrize("game", GAMES)
def test_the_guide_lists_every_table_option_by_its_title(game: str) -> None:
    """The guide's "Table options" names each option as the New table form does."""
    md = guides.guide(game)
    section = md.split("## Table options", 1)[1].split("\n## ", 1)[0]
    for prop in registry.get(game).options_schema()["properties"].values():
        assert isinstance(prop, dict)
        assert f"**{prop['title']}**" in section, (game, prop["title"])


def _flat(md: str) -> str:
    """The guide's text on one line, marks removed (numbers and names as a reader sees them)."""
    return re.sub(r"\s+", " ", md.replace("**", ""))


def test_the_figures_of_each_guide_are_the_engines() -> None:
    """Every number a guide states is the one its engine's data uses."""
    from shared.rules.empire import data as em
    from shared.rules.empire_engine import data as ee
    from shared.rules.empire_nyc import data as ny
    from shared.rules.empires_end import data as eend

    text = {g: _flat(guides.guide(g)) for g in GAMES}
    for g in GAMES:  # the seat counts of the page's game list
        game = registry.get(g)
        assert f"{game.min_seats} to {game.max_seats} players" in text[g], g
    # Empire: the beginner's starting cards, the row, the commerce price, bond gold, rounds
    s = em.BEGINNER_START
    assert (f"{s['colonies']} Colonies, {s['populations']} Populations, {s['goods']} Good, "
            f"{s['supporters']} Supporter, {s['revolts']} Revolt and {s['gold']} gold") in text[
                "empire"]
    assert "2 Goods, 2 Populations and 2 Colonies" in text["empire"]
    assert sorted(em.AUCTION_ROW["beginner"]) == sorted(["goods"] * 2 + ["populations"] * 2
                                                        + ["colonies"] * 2)
    assert "1 Good, 2 Populations, 2 Colonies and 1 Bond" in text["empire"]
    assert sorted(em.AUCTION_ROW["standard"]) == sorted(
        ["goods", "populations", "populations", "colonies", "colonies", "bonds"])
    assert f"{em.BASE_PRICE} minus the total sold" in text["empire"]
    assert f"0 to {em.MAX_SALE}" in text["empire"] and f"{em.BOND_GOLD} gold at once" in text[
        "empire"]
    assert em.ROUNDS == 6 and "There are six rounds" in text["empire"]
    # The Empire Engine: what each engine carries, clockwise from the top; the rounds
    names = {r[0]: [a.capitalize() for a in r[1:]] for r in ee.ENGINE_ROWS}
    assert (f"left engine (L) carries {', '.join(names['L'][:3])} and {names['L'][3]}"
            in text["empire-engine"])
    assert (f"right engine (R) carries {', '.join(names['R'][:3])} and {names['R'][3]}"
            in text["empire-engine"])
    r = ee.ROUNDS_BY_SEATS
    assert r[2] == r[4] and (f"{r[2]} rounds with 2 or 4 players and {r[3]} rounds with 3 "
                             f"({ee.LONG_GAME_ROUNDS} rounds" in text["empire-engine"])
    # Empire's End: both progress tracks, the starting resources, the hand
    codes = {v: k for k, v in eend._CODES.items()}
    for track in (eend.TRACK_2P, eend.TRACK_34P):
        assert " ".join(codes[p] for p in track) in text["empires-end"]
    assert f"Everyone starts with {eend.START_RESOURCES} of each resource" in text["empires-end"]
    assert f"a hand of {eend.HAND_SIZE} disaster cards" in text["empires-end"]
    tiles = sorted((t.type, t.vp) for t in eend.TILES)
    assert tiles == sorted([("City", 16), ("Town", 6), ("Town", 12), ("Army", 5), ("Army", 9),
                            ("Road", 2), ("Road", 7), ("Road", 14), ("Farm", 3), ("Farm", 8),
                            ("Farm", 11)])
    # The Card Game: packs, the deal and the draws
    from shared.rules.empire_cards import data as cg

    p = cg.PACKS_BY_SEATS
    assert p[3] == p[4] == 2 and p[5] == p[6] == 3
    assert "two packs with jokers for 3 or 4 players, three for 5 or 6" in text["empire-cards"]
    assert f"Everyone is dealt {cg.HAND_SIZE} cards" in text["empire-cards"]
    assert f"| 1st | draw {cg.FIRST_SET_DRAW} cards |" in guides.guide("empire-cards")
    assert f"you draw {cg.RUNOUT_DRAW} cards at once" in text["empire-cards"]
    assert f"draws you {cg.SAME_SUIT_DRAW} extra cards" in text["empire-cards"]
    # New York: cubes by players, borough bonuses and sizes, the set values
    c = ny.STARTING_CUBES
    assert (f"{c[3]} with 3, {c[4]} with 4, {c[5]} with 5, {c[6]} with 6"
            in text["empire-nyc"])
    for b in ny.BOROUGHS:
        size = sum(1 for n in ny.NEIGHBORHOODS if n.borough == b.id)
        assert f"{b.name} {b.bonus}" in text["empire-nyc"], b
        assert f"{b.name} ({size})" in text["empire-nyc"], b
    assert f"{len(ny.NEIGHBORHOODS)} neighborhoods" in text["empire-nyc"]
    assert ", ".join(str(v) for v in ny.SET_VALUES) in text["empire-nyc"].replace(" and ", ", ")
    assert f"then {ny.SET_VALUE_STEP} more each time" in text["empire-nyc"]
