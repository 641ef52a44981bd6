"""The one set of fairness vectors (tests/fixtures/fairness-vectors.json) is what shared/fairness
computes today: Node and the browser check their JavaScript against this same file
(tests/clients/test_js_fairness.py, tests/browser/test_fairness_twin.py)."""

from __future__ import annotations

import json

import pytest

from shared.fairness.seal import BadSeal, open_sealed, public_key, seal_opening
from tests.fixtures import fairness_vectors

pytestmark = pytest.mark.unit


def test_the_vectors_file_is_the_reference_implementations() -> None:
    on_disk = json.loads(fairness_vectors.PATH.read_text(encoding="utf-8"))
    assert on_disk == json.loads(fairness_vectors.text()), (
        "tests/fixtures/fairness-vectors.json drifted: "
        "run python -m tests.fixtures.fairness_vectors")


def test_the_vectors_cover_the_hard_cases() -> None:
    v = fairness_vectors.build()
    texts = [x["text"] for x in v["canonical"]]
    assert None in texts  # floats and unsafe integers are refused, not printed
    assert any("😀" in (t or "") and "\uffff" in (t or "") for t in texts)  # code point order
    assert any(d["n"] == str(fairness_vectors.BIG) for d in v["draws"])  # ~50% rejections
    assert {len(bytes.fromhex(x["key"])) for x in v["hmac"]} >= {0, 64, 65, 100}


def test_the_seal_vectors_open_with_the_production_hpke() -> None:
    """The vectors' sealed openings (built step by step from RFC 9180, which reproduces the
    RFC's own A.2.1 ciphertext) open with shared/fairness/seal.py, i.e. cryptography's HPKE,
    and only for their own game, round, slot and seat."""
    v = fairness_vectors.build()
    rfc = v["hpke"][0]
    assert public_key(rfc["skRm"]) == rfc["pkRm"] and public_key(rfc["skEm"]) == rfc["pkEm"]
    sealed = fairness_vectors.hpke_seal_with(
        bytes.fromhex(rfc["skEm"]), bytes.fromhex(rfc["pkRm"]), bytes.fromhex(rfc["info"]),
        bytes.fromhex(rfc["pt"]), bytes.fromhex(rfc["aad"]))
    assert sealed.hex() == rfc["pkEm"] + rfc["ct"]
    for x in v["seals"]:
        assert public_key(x["escrow_private"]) == x["escrow_key"]
        args = (x["game"], x["round"], x["slot"], x["seat"])
        assert open_sealed(x["escrow_private"], *args, x["sealed"]) == (x["choice"], x["nonce"])
        with pytest.raises(BadSeal):
            open_sealed(x["escrow_private"], x["game"], x["round"], x["slot"], x["seat"] + 1,
                        x["sealed"])
        # the production seal round-trips (a fresh ephemeral key each time: never equal)
        again = seal_opening(x["escrow_key"], *args, x["choice"], x["nonce"])
        assert again != x["sealed"]
        assert open_sealed(x["escrow_private"], *args, again) == (x["choice"], x["nonce"])


def test_the_signature_vectors_are_the_services_and_the_verifiers() -> None:
    """The signed-command vectors (docs/protocol.md's worked example is the first): the
    message is shared/fairness/signing.py's, the signature is `cryptography`'s (the
    services' check) and the stdlib verifier's, and one flipped bit of the message, the
    signature or the key fails both."""
    from shared.fairness import ed25519, signing
    from shared.runtime import session_keys

    for x in fairness_vectors.build()["signatures"]:
        msg = signing.message(x["game"], x["seat"], x["cmd_id"], x["kind"], x["body"])
        assert msg.hex() == x["message"]
        assert session_keys.SessionKey.from_seed(x["secret"]).public == x["public"]
        assert session_keys.verify(x["public"], x["sig"], msg)
        assert ed25519.verify(bytes.fromhex(x["public"]), msg, bytes.fromhex(x["sig"]))
        flipped = (bytes([msg[0] ^ 1]) + msg[1:], x["sig"], x["public"]), \
            (msg, f"{int(x['sig'][0], 16) ^ 1:x}" + x["sig"][1:], x["public"]), \
            (msg, x["sig"], f"{int(x['public'][0], 16) ^ 1:x}" + x["public"][1:])
        for m, sig, key in flipped:
            assert not session_keys.verify(key, sig, m)
            assert not signing.verify(key, sig, m)
        # another seat, command or kind is another message
        assert signing.message(x["game"], x["seat"] + 1, x["cmd_id"], x["kind"],
                               x["body"]) != msg
