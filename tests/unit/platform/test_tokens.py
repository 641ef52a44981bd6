"""Signed player tokens (Ed25519): forged, expired, session-less and other players' tokens are
refused; a verifier holds public keys only, so it cannot mint one."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from shared.runtime import tokens

pytestmark = pytest.mark.unit
KEY = tokens.new_private_key()
PUBLIC = tokens.parse_public_keys(tokens.public_key(KEY))


def test_round_trip() -> None:
    t = tokens.issue(KEY, "p-1", "ada", exp_ms=2_000, session="s1")
    ident = tokens.verify(PUBLIC, t, now_ms=1_000)
    assert (ident.player_id, ident.name, ident.session) == ("p-1", "ada", "s1")


def test_expired() -> None:
    t = tokens.issue(KEY, "p-1", "ada", exp_ms=2_000, session="s1")
    with pytest.raises(tokens.TokenError) as e:
        tokens.verify(PUBLIC, t, now_ms=2_000)
    assert e.value.code == "auth/expired_token"


def test_forged_payload_with_other_player_id() -> None:
    t = tokens.issue(KEY, "p-1", "ada", exp_ms=2_000, session="s1")
    other = tokens.issue(KEY, "p-2", "bob", exp_ms=2_000, session="s2")
    forged = other.split(".")[0] + "." + t.split(".")[1]  # bob's payload, ada's signature
    with pytest.raises(tokens.TokenError) as e:
        tokens.verify(PUBLIC, forged, now_ms=1_000)
    assert e.value.code == "auth/invalid_token"


@pytest.mark.parametrize("bad", ["", "x", "a.b", "....", "eyJ9.AAAA", "W10.AAAA", "bnVsbA.AA"])
def test_garbage(bad: str) -> None:
    with pytest.raises(tokens.TokenError):
        tokens.verify(PUBLIC, bad, now_ms=0)


def test_only_a_bots_token_goes_without_a_session() -> None:
    """A human's token without ``sid`` would skip revocation: the lobby never issues one and
    a verifier refuses one, even correctly signed."""
    bot = tokens.issue(KEY, "b-1", "Bot", exp_ms=2_000)
    assert tokens.verify(PUBLIC, bot, now_ms=0).bot
    with pytest.raises(ValueError):
        tokens.issue(KEY, "p-1", "ada", exp_ms=2_000)
    payload = json.dumps({"pid": "p-1", "name": "ada", "exp": 2_000,
                          "kid": tokens.key_id(tokens.public_key(KEY))},
                         separators=(",", ":"), sort_keys=True).encode()
    signed = tokens._private(KEY).sign(payload)  # what a lobby bug would have signed
    sessionless = f"{tokens._b64(payload)}.{tokens._b64(signed)}"
    with pytest.raises(tokens.TokenError, match="session"):
        tokens.verify(PUBLIC, sessionless, now_ms=0)


def test_rotation_accepts_every_listed_public_key() -> None:
    new = tokens.new_private_key()
    old_token = tokens.issue(KEY, "p-1", "ada", exp_ms=2_000, session="s1")
    both = tokens.parse_public_keys(f"{tokens.public_key(new)},{tokens.public_key(KEY)}")
    assert tokens.verify(both, old_token, now_ms=0).player_id == "p-1"
    assert tokens.verify(both, tokens.issue(new, "p-1", "ada", 2_000, "s1"), 0).session == "s1"
    with pytest.raises(tokens.TokenError, match="unknown key"):
        tokens.verify(tokens.parse_public_keys(tokens.public_key(new)), old_token, now_ms=0)


def test_a_verifier_cannot_mint_with_what_it_holds() -> None:
    """Everything a verifier holds is the public key: as an HMAC key or as an Ed25519 seed it
    signs nothing the verifier accepts."""
    pub = tokens.public_key(KEY)
    kid = tokens.key_id(pub)
    payload = json.dumps({"pid": "p-9", "name": "x", "exp": 9_000, "kid": kid, "sid": "s"},
                         separators=(",", ":"), sort_keys=True).encode()
    mac = hmac.new(pub.encode(), payload, hashlib.sha256).digest()
    enc = base64.urlsafe_b64encode
    for forged in (f"{enc(payload).decode()}.{enc(mac).decode()}",
                   tokens.issue(pub, "p-9", "x", 9_000, "s")):  # the public key as a seed
        with pytest.raises(tokens.TokenError):
            tokens.verify(PUBLIC, forged, now_ms=0)


def test_bad_configured_keys_are_refused() -> None:
    with pytest.raises(ValueError):
        tokens.parse_public_keys("zz")
    with pytest.raises(ValueError):
        tokens.public_key("12")
