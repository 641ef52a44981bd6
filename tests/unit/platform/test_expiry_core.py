"""A game's absolute lifetime in the adjudicator's core: the end path with a
public ``expired`` outcome, whatever the game was waiting for."""

from __future__ import annotations

import pytest

from services.adjudicator import core
from shared.protocol import internal as im
from shared.protocol import streams

pytestmark = pytest.mark.unit


def waiting_game() -> core.GameDoc:
    players = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]
    eff = core.create(im.CreateGame(game_id="g-x", game="duel", players=players,
                                    client_entropy=False), expires_ms=5_000)
    assert eff.doc is not None and eff.doc.expires_ms == 5_000
    doc = core.on_seed_committed(eff.doc, im.SeedCommitted(game_id="g-x", commitment="00"),
                                 1_000).doc
    assert doc is not None and doc.stage == "playing"  # waits for the first draw
    return doc


def test_a_game_ends_as_expired_at_its_lifetime_only() -> None:
    doc = waiting_game()
    assert not core.expire(doc, 4_999).changed
    eff = core.expire(doc, 5_000)
    assert eff.doc is not None and eff.doc.stage == "ended" and eff.doc.seq == doc.seq + 1
    assert eff.doc.ended_ms == 5_000 and eff.log == []  # no move was applied
    assert eff.records == [{"type": "game_ended", "outcome": core.expired_outcome(doc)}]
    kinds = [(base, type(m).__name__) for base, m in eff.outbound]
    assert kinds == [(streams.GAME_ENDED, "GameEnded"), (streams.DEALER_IN, "RevealSeed")]
    assert core.expired_outcome(doc)["status"] == "expired"
    assert not core.expire(eff.doc, 9_000).changed  # once


def test_an_expired_game_shows_the_end_and_asks_nothing_more() -> None:
    ended = core.expire(waiting_game(), 6_000).doc
    assert ended is not None
    views = core.render_views(ended, [])
    assert all(v["node"] == {"kind": "terminal"} and v["legal"] == [] for v in views.values())
    again = core.redrive(ended, 7_000)  # a late input: the end messages, not the draw
    assert [type(m).__name__ for _, m in again.outbound] == ["GameEnded", "RevealSeed"]
    late = core.on_draw(ended, im.DrawMade(game_id="g-x", label="setup:first", values=[0]),
                        7_000)
    assert not late.changed
