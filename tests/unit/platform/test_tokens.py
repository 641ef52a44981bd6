"""Signed player tokens: forged, expired and other players' tokens are refused."""

from __future__ import annotations

import pytest

from shared.runtime import tokens

pytestmark = pytest.mark.unit
SECRET = "s3cret"


def test_round_trip() -> None:
    t = tokens.issue(SECRET, "p-1", "ada", exp_ms=2_000)
    ident = tokens.verify(SECRET, t, now_ms=1_000)
    assert (ident.player_id, ident.name) == ("p-1", "ada")


def test_expired() -> None:
    t = tokens.issue(SECRET, "p-1", "ada", exp_ms=2_000)
    with pytest.raises(tokens.TokenError) as e:
        tokens.verify(SECRET, t, now_ms=2_000)
    assert e.value.code == "auth/expired_token"


def test_forged_payload_with_other_player_id() -> None:
    t = tokens.issue(SECRET, "p-1", "ada", exp_ms=2_000)
    other = tokens.issue(SECRET, "p-2", "bob", exp_ms=2_000)
    forged = other.split(".")[0] + "." + t.split(".")[1]  # bob's payload, ada's signature
    with pytest.raises(tokens.TokenError) as e:
        tokens.verify(SECRET, forged, now_ms=1_000)
    assert e.value.code == "auth/invalid_token"


@pytest.mark.parametrize("bad", ["", "x", "a.b", "....", "eyJ9.AAAA"])
def test_garbage(bad: str) -> None:
    with pytest.raises(tokens.TokenError):
        tokens.verify(SECRET, bad, now_ms=0)


def test_rotation_accepts_the_previous_key_until_it_is_dropped() -> None:
    old = tokens.issue("old", "p-1", "ada", exp_ms=2_000)
    assert tokens.verify(["new", "old"], old, now_ms=0).player_id == "p-1"
    with pytest.raises(tokens.TokenError):
        tokens.verify(["new"], old, now_ms=0)


def test_other_secret() -> None:
    t = tokens.issue("other", "p-1", "ada", exp_ms=2_000)
    with pytest.raises(tokens.TokenError):
        tokens.verify(SECRET, t, now_ms=0)
