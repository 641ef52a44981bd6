"""The log sentences (shared/rules/narrate.py) and the component data the page reads
(shared/rules/components.py): every event type of every game has its own sentence, with
names instead of indices, 1-based numbers, and nothing its entry does not carry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shared.rules import components, narrate, registry
from shared.rules._kit.text import generic
from shared.rules.empire_engine import data as engine_data

pytestmark = pytest.mark.unit

SAMPLES: dict[str, dict[str, dict]] = json.loads(  # type: ignore[type-arg]
    (Path(__file__).parent / "narrate_samples.json").read_text())
NAMES = ["Ada", "Bob", "Cy", "Di", "Ed", "Flo"]
GAMES = [g for g in registry.names()]
PACKAGE = {g: Path(registry._MODULES[g].replace(".", "/")) for g in GAMES}
_ROOT = Path(__file__).resolve().parents[3]

# How the engines name their events: Event(type="x"), public("x", ...), private("x", ...),
# events.add("x", ...), _score_event(state, seat, "x", ...); Empire The Card Game's
# set-taking spells are named by the spell (public(spell.kind, ...)): berserker and
# mass_sabotage.
_EVENT_RE = re.compile(
    r'(?:type=|(?:public|private|events\.add)\(\s*|_score_event\([^"]*)"([a-z_]+)"')
_DYNAMIC = {"empire-cards": {"berserker", "mass_sabotage"}}


def source_types(game: str) -> set[str]:
    root = _ROOT / PACKAGE[game]
    files = [root] if root.suffix else sorted(root.glob("*.py"))
    if not root.exists():
        files = [root.with_suffix(".py")]
    found: set[str] = set()
    for f in files if root.is_dir() else [root / "__init__.py"]:
        found |= set(_EVENT_RE.findall(f.read_text()))
    found -= {"action", "draw"} if game != "empire-cards" else {"action"}  # action models
    return found | _DYNAMIC.get(game, set())


def _action_literals(game: str) -> set[str]:
    root = _ROOT / PACKAGE[game]
    text = (root / "actions.py").read_text() if (root / "actions.py").exists() else ""
    return set(re.findall(r'type: Literal\["([a-z_]+)"\]', text))


@pytest.mark.parametrize("game", GAMES)
def test_every_event_type_has_its_own_sentence(game: str) -> None:
    emitted = source_types(game) - (_action_literals(game) - _sample_types(game))
    table = narrate.narrators(game)
    assert emitted, game
    assert emitted <= set(table), sorted(emitted - set(table))
    assert emitted <= _sample_types(game), sorted(emitted - _sample_types(game))


def _sample_types(game: str) -> set[str]:
    return {k.split("#")[0] for k in SAMPLES[game]}


_RAW = {
    "empire-nyc": re.compile(r"\b(MN|BX|QN|BK|SI|NJ)\d\d\b|\bRW\d\b"),
    "empires-end": re.compile(r"\b[a-z]+-\d+\b"),
    "empire-cards": re.compile(r"\b(10|[2-9JQKA])[SHDC]\d\b|\bW\d\b"),
}


@pytest.mark.parametrize(("game", "key"), [(g, k) for g in GAMES for k in sorted(SAMPLES[g])])
def test_sentence(game: str, key: str) -> None:
    etype = key.split("#")[0]
    data = SAMPLES[game][key]
    text = narrate.narrate(game, etype, data, NAMES)
    assert text != generic(etype, data), "fell back to the generic sentence"
    assert text.endswith((".", "!", "?")) and not text[0].islower()
    assert "…" not in text and "None" not in text and "{" not in text
    not_seats = {("empires-end", "disaster_revealed"): {"target"}}.get((game, etype), set())
    for k in ("seat", "winner", "attacker", "target", "defender", "instigator", "dealer", "to",
              "by", "from", "first", "start_player"):
        v = data.get(k)
        if k in not_seats:
            continue
        if (isinstance(v, int) and not isinstance(v, bool) and k != "first") or (
                k == "first" and isinstance(v, int) and game == "empire"):
            assert NAMES[v] in text, (k, text)
    raw = _RAW.get(game)
    if raw is not None:
        assert not raw.search(text), text


def test_numbers_are_one_based_and_names_replace_codes() -> None:
    assert narrate.narrate("empires-end", "disaster_skipped", {"disaster": 0}) \
        == "Disaster 1 is skipped: the deck is empty."
    assert "card 1 of the row" in narrate.narrate(
        "empire", "auction_opened", {"round": 1, "card": 0, "resource": "goods", "first": 0}, NAMES)
    assert narrate.narrate("empire-nyc", "placed", {"seat": 0, "nb": "MN03", "n": 2}) \
        == "Seat 1 places 2 cubes on Harlem (Manhattan)."
    assert narrate.narrate("empire-cards", "discard", {"seat": 1, "card": "QH2", "source": "hand"},
                           NAMES) == "Bob discards Q♥."
    assert "Fire 4 (“Convert 1 Wheat into 1 Coin, up to 3 times”)" in narrate.narrate(
        "empires-end", "innovation_placed", {"seat": 0, "card": "fire-4", "tile": "city"}, NAMES)


@pytest.mark.parametrize(("game", "etype", "secret"), [
    ("empires-end", "card_drawn", "Drought 7"), ("empires-end", "card_sold", "Flood 4"),
    ("empires-end", "hand_discarded", "Fire 4"), ("empire-engine", "salvage", "a good"),
])
def test_the_public_twin_of_a_private_event_says_no_secret(game: str, etype: str,
                                                           secret: str) -> None:
    """A hidden card reaches a sentence only through the private entry (visible_to its seat)."""
    public = narrate.narrate(game, etype, SAMPLES[game][etype], NAMES)
    private = narrate.narrate(game, etype, SAMPLES[game][etype + "#private"], NAMES)
    assert secret in private
    assert secret not in public


def test_unknown_or_malformed_entries_get_a_whole_generic_sentence() -> None:
    assert narrate.narrate("empire-nyc", "placed", {}) == "Placed."
    long = {"text": "x" * 500}
    assert narrate.narrate("duel", "new_kind", long).endswith("x" * 500 + ".")
    assert narrate.narrate("no-such-game", "placed", {"seat": 1}) == "Placed: seat 1."


@pytest.mark.parametrize("game", GAMES)
def test_components_are_json_and_label_reconstructed_data(game: str) -> None:
    c = components.components(game)
    assert json.loads(json.dumps(c)) == c
    assert isinstance(c["reconstructed"], list)
    assert components.rulings(game).startswith("# ")


def test_reconstructed_games_say_so_in_their_rules_page() -> None:
    for game in ("empire-engine", "empires-end", "empire-nyc"):
        assert components.components(game)["reconstructed"]
        assert "RECONSTRUCTED" in components.rulings(game)


def test_nyc_map_draws_every_neighborhood_once_inside_the_box() -> None:
    c = components.components("empire-nyc")
    x0, y0, w, h = c["viewbox"]
    spots = {(n["x"], n["y"]) for n in c["neighborhoods"]}
    assert len(spots) == len(c["neighborhoods"]) == 42
    r = c["node_radius"]
    assert all(x0 + r <= x <= w - r and y0 + r <= y <= h - r for x, y in spots)
    pairs = {(lk["a"], lk["b"]) for lk in c["links"] if not lk["optional"]}
    adjacent = {tuple(sorted((n["id"], o))) for n in c["neighborhoods"] for o in n["adjacent"]}
    assert pairs == adjacent


def test_engine_wheel_turns_clockwise_bringing_the_left_edge_up() -> None:
    """RULINGS.md §2.2: a clockwise quarter-turn brings the LEFT-edge action to the top, so
    one turn from R's printed invent shows attack, not defend."""
    c = components.components("empire-engine")
    for e, wheel in c["engines"].items():
        top, right, bottom, left = wheel["edges"]
        assert wheel["top_by_orientation"] == [top, left, bottom, right]
        assert wheel["top_by_orientation"] == [engine_data.top_action(e, o) for o in range(4)]
    assert c["engines"]["R"]["top_by_orientation"][1] == "attack"
