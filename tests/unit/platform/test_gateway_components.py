"""The gateway serves each game's component data and rules page from the repository (never
from ../shared), and adds the one-sentence ``text`` to every event it relays."""

from __future__ import annotations

import asyncio
import re

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.edge.http_errors import HttpError
from services.gateway.fanout.hub import Hub, Watch
from services.gateway.routes import games
from shared.rules import registry
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("game", registry.names())
def test_components_and_rules_of_every_game(game: str) -> None:
    comp = asyncio.run(games.game_components(game))
    assert comp["game"] == game and isinstance(comp["reconstructed"], list)
    rules = asyncio.run(games.game_rules(game))
    assert rules["markdown"].startswith("# ") and rules["reconstructed"] == comp["reconstructed"]


def test_an_unknown_game_is_a_typed_404() -> None:
    with pytest.raises(HttpError) as err:
        asyncio.run(games.game_components("chess"))
    assert err.value.status == 404


def test_rules_pages_cite_the_rulings() -> None:
    md = asyncio.run(games.game_rules("empire-nyc"))["markdown"]
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


def test_empires_end_conversions_name_each_choice() -> None:
    """The board names a conversion by what it gives ("Road (14 VP): 1 wheat → 1 axe"), so the
    component data carries each conversion's choices: every ``convert`` move the engine offers
    along a random game indexes one of its source's ``outs``."""
    from shared.rules._kit.playout import play

    comp = asyncio.run(games.game_components("empires-end"))
    by_id = {x["id"]: x for x in comp["tiles"] + comp["disasters"]}
    road = by_id["road-14"]["convert"]
    assert road == {"src": "wheat", "outs": [{"hammer": 1}, {"axe": 1}], "times": 2}
    g = registry.get("empires-end")
    seen = 0

    def check(state: object, move: object) -> None:
        nonlocal seen
        for seat in range(2):
            for a in g.legal_actions(state, seat):
                if isinstance(a, dict) and a.get("type") == "convert":
                    conv = by_id[a["source"]]["convert"]
                    assert conv is not None and 0 <= a["option"] < len(conv["outs"]), a
                    seen += 1

    play(g, 2, {}, seed=4, on_step=check, max_steps=400)
    assert seen > 0


def _client(monkeypatch: pytest.MonkeyPatch) -> TestClient:
    """The whole gateway app, never reaching a Valkey (no lifespan runs; rate limits off)."""
    monkeypatch.setenv("EMPIRE_RATE_LIMITS", "0")
    return TestClient(create_app(Settings(redis_url="redis://127.0.0.1:1/0")))


def test_the_rules_page_serves_the_guide_and_its_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(monkeypatch)
    body = client.get("/api/games/empire-engine/rules").json()
    assert body["markdown"].startswith("# How to play The Empire Engine")
    srcs = re.findall(r"\]\((/api/games/empire-engine/images/[a-z0-9-]+\.svg)\)", body["markdown"])
    assert srcs
    for src in srcs:
        res = client.get(src)
        assert res.status_code == 200 and res.headers["content-type"].startswith("image/svg+xml")
        assert res.text.startswith("<svg") and "style-src 'self'" in res.headers[
            "content-security-policy"]


@pytest.mark.parametrize("path", [
    "/api/games/duel/images/..%2Fguide.md", "/api/games/duel/images/..%2F..%2Fapi.py",
    "/api/games/duel/images/guide.md", "/api/games/duel/images/nope.svg",
    "/api/games/duel/images/ROUND.SVG", "/api/games/chess/images/round.svg",
    "/api/games/duel/images/round.svg%00", "/api/games/duel/images/" + "a" * 300 + ".svg"])
def test_anything_but_a_guide_picture_is_a_typed_404(monkeypatch: pytest.MonkeyPatch,
                                                     path: str) -> None:
    res = _client(monkeypatch).get(path)
    assert res.status_code == 404
    # a name with a slash matches no route at all: the router's own typed 404
    assert res.json()["code"] in ("game/not_found", "message/malformed")
    assert "<svg" not in res.text and "How to play" not in res.text
