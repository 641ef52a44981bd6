"""The gateway serves each game's component data and rules page from the repository (never
from ../shared), and adds the one-sentence ``text`` to every event it relays (issue 21)."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway import app as gateway
from services.gateway.http_errors import HttpError
from services.gateway.hub import Hub, Watch
from shared.rules import registry

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("game", registry.names())
def test_components_and_rules_of_every_game(game: str) -> None:
    comp = asyncio.run(gateway.game_components(game))
    assert comp["game"] == game and isinstance(comp["reconstructed"], list)
    rules = asyncio.run(gateway.game_rules(game))
    assert rules["markdown"].startswith("# ") and rules["reconstructed"] == comp["reconstructed"]


def test_an_unknown_game_is_a_typed_404() -> None:
    with pytest.raises(HttpError) as err:
        asyncio.run(gateway.game_components("chess"))
    assert err.value.status == 404


def test_rules_pages_cite_the_rulings() -> None:
    md = asyncio.run(gateway.game_rules("empire-nyc"))["markdown"]
    assert "NY-S1" in md and "RECONSTRUCTED" in md and "../shared" not in md


def test_relayed_events_carry_their_sentence_with_player_names() -> None:
    w = Watch(game_id="g1", seat=None, game="empire-nyc", names=["Ada", "Bob", "Cy"])
    view_event = {"type": "placed", "data": {"seat": 1, "nb": "BX02", "n": 3}}
    assert Hub._narrated(w, view_event)["text"] == "Bob places 3 cubes on Fordham (The Bronx)."
    record = {"type": "event", "seq": 4, "event": "placed",
              "data": {"seat": 0, "nb": "MN01", "n": 1}}
    out = Hub._narrated(w, record)
    assert out["text"] == "Ada places 1 cube on Inwood (Manhattan)." and out["seq"] == 4
    other = {"type": "round_opened", "round_id": "r"}
    assert "text" not in Hub._narrated(w, other)
