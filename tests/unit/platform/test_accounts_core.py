"""Accounts, the pure parts: an admin's end of a game in the adjudicator's core, access
tokens naming their session, the WebSocket's Origin check."""

from __future__ import annotations

import pytest

from services.adjudicator import core
from services.gateway.auth.sessions import origin_allowed
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime import tokens
from shared.runtime.settings import Settings
from tests.unit.platform.test_expiry_core import waiting_game

pytestmark = pytest.mark.unit


def test_an_admin_ends_a_game_with_a_typed_public_reason_once() -> None:
    doc = waiting_game()
    eff = core.end_by_admin(doc, "abusive chat", 2_000)
    assert eff.doc is not None and eff.doc.stage == "ended" and eff.doc.seq == doc.seq + 1
    outcome = {"status": "aborted", "results": [], "tiebreak": "", "by": "admin",
               "reason": "abusive chat"}
    assert eff.records == [{"type": "game_ended", "outcome": outcome}]
    assert [(b, type(m).__name__) for b, m in eff.outbound] == [
        (streams.GAME_ENDED, "GameEnded"), (streams.DEALER_IN, "RevealSeed")]
    assert not core.end_by_admin(eff.doc, "again", 3_000).changed
    assert not core.expire(eff.doc, 9_000).changed
    again = core.redrive(eff.doc, 4_000)  # a redelivery repeats the admin's outcome
    ended = [m for _, m in again.outbound if isinstance(m, im.GameEnded)]
    assert ended and ended[0].outcome == outcome
    assert im.ADJUDICATOR_INPUT.validate_python(
        {"type": "end_game", "game_id": "g-x", "reason": "x"}).reason == "x"


def test_access_tokens_name_their_session() -> None:
    key = tokens.new_private_key()
    public = tokens.parse_public_keys(tokens.public_key(key))
    t = tokens.issue(key, "p-1", "ada", exp_ms=5_000, session="s1")
    assert tokens.verify(public, t, now_ms=1_000).session == "s1"
    bot = tokens.issue(key, "b-1", "bot", exp_ms=5_000)
    assert tokens.verify(public, bot, now_ms=1_000).session == ""


def scope(origin: str | None, host: str = "hall.example:8000") -> dict[str, object]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"headers": headers}


def test_origin_allow_list() -> None:
    own = Settings(dev=True)
    assert origin_allowed(own, scope(None))  # not a browser
    assert origin_allowed(own, scope("http://hall.example:8000"))
    assert not origin_allowed(own, scope("http://evil.example"))
    assert not origin_allowed(own, scope("http://hall.example:8000.evil.example"))
    assert not origin_allowed(own, scope("null"))
    listed = Settings(dev=True, ws_origins="https://play.example, https://b.ex")
    assert origin_allowed(listed, scope("https://play.example", host="gw.internal"))
    assert not origin_allowed(listed, scope("http://hall.example:8000"))
