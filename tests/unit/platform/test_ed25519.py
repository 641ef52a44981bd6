"""The stdlib Ed25519 verifier (shared/fairness/ed25519.py, groundwork for signed
commands): RFC 8032's test vectors, agreement with `cryptography` on signatures it
makes, and every bit of a signature, key or message flipped is refused."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from shared.fairness.ed25519 import L, verify

pytestmark = pytest.mark.unit

# RFC 8032 §7.1, TEST 1 (empty message) and TEST 2 (one byte)
RFC = [
    ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
]


def test_the_rfc_vectors_verify() -> None:
    for pub, msg, sig in RFC:
        assert verify(bytes.fromhex(pub), bytes.fromhex(msg), bytes.fromhex(sig))


def test_signatures_of_cryptography_verify_and_no_flipped_bit_does() -> None:
    rng = random.Random(20)
    for n in (0, 1, 31, 64, 200):
        key = Ed25519PrivateKey.generate()
        pub = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        msg = rng.randbytes(n)
        sig = key.sign(msg)
        assert verify(pub, msg, sig)
        for i in rng.sample(range(512), 12):
            bad = bytearray(sig)
            bad[i // 8] ^= 1 << (i % 8)
            assert not verify(pub, msg, bytes(bad))
        if msg:
            assert not verify(pub, bytes([msg[0] ^ 1]) + msg[1:], sig)
        other = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw,
                                                                       PublicFormat.Raw)
        assert not verify(other, msg, sig)


def test_malformed_input_is_refused_not_raised() -> None:
    pub, msg, sig = (bytes.fromhex(x) for x in RFC[0])
    s = int.from_bytes(sig[32:], "little")
    assert not verify(pub, msg, sig[:32] + (s + L).to_bytes(32, "little"))  # S >= L
    assert not verify(pub[:31], msg, sig) and not verify(pub, msg, sig[:63])
    assert not verify(b"\xff" * 32, msg, sig)  # not a point


def test_the_openssl_shortcut_gives_the_stdlib_answer_on_every_edge_case(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``cryptography`` is importable OpenSSL answers first; on every input, valid or
    not, the answer must be the stdlib arithmetic's own (RFC 8032's cofactored equation)."""
    from shared.fairness import ed25519

    assert ed25519._FAST is not None  # this environment has it: the shortcut is exercised
    rng = random.Random(8032)
    key = Ed25519PrivateKey.generate()
    pub = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    msg = b"edge"
    sig = key.sign(msg)
    s = int.from_bytes(sig[32:], "little")
    ident = (1).to_bytes(32, "little")  # the neutral element: a small-order point
    order2 = (ed25519.P - 1).to_bytes(32, "little")  # (0, -1): order 2
    noncanon = (ed25519.P + 1).to_bytes(32, "little")  # y = 1 encoded as p + 1
    cases = [(pub, msg, sig), (pub, msg + b"!", sig),
             (pub, msg, sig[:32] + (s + ed25519.L).to_bytes(32, "little")),
             (ident, msg, ident + bytes(32)), (order2, msg, ident + bytes(32)),
             (pub, msg, ident + bytes(32)), (noncanon, msg, ident + bytes(32)),
             (ident, msg, noncanon + bytes(32)), (pub, msg, order2 + sig[32:])]
    cases += [(pub, msg, bytes(b ^ (1 << rng.randrange(8)) if i == rng.randrange(64) else b
                                for i, b in enumerate(sig))) for _ in range(20)]
    with_openssl = [ed25519.verify.__wrapped__(*c) for c in cases]
    monkeypatch.setattr(ed25519, "_FAST", None)
    stdlib_only = [ed25519.verify.__wrapped__(*c) for c in cases]
    assert with_openssl == stdlib_only
    assert with_openssl[0] and not with_openssl[1] and with_openssl[3]  # [8]-equation holds
