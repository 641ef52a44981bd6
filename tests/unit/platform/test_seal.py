"""Sealed openings: the vendored JavaScript crypto the page and the Node
client seal with (clients/web/vendor: @noble/curves, @noble/ciphers and
@noble/hashes 2.4.0, see clients/web/vendor_noble.py) is exactly the pinned files, each
with its licence, self-contained (no bare or remote import: the page has no import map and its
CSP allows scripts from 'self' only)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from shared.fairness.seal import SEALED_MAX_CHARS, new_private_key, public_key, seal_opening
from shared.protocol import client as cm

pytestmark = pytest.mark.unit

STATIC = Path(__file__).resolve().parents[3] / "clients" / "web"
VENDOR = STATIC / "vendor"
PINNED = {
    "noble-ciphers/LICENSE": "f36671a5487c9c5050efacb58011c37c24c55a889803cb036cf9d9a6347c1e2d",
    "noble-ciphers/_arx.js": "9672fc3447bce4bfb63aad543ba76bb6985f66f29620f60462fd3a58e568049c",
    "noble-ciphers/_poly1305.js":
        "a331707e7ff0cc1967b930670f332b16be8c4a7a28b43da9a46c2d53f439725d",
    "noble-ciphers/_polyval.js": "6d6faac55a7f850f504344e640d18907da26bce66d33fa13e5825bb792209168",
    "noble-ciphers/aes.js": "f497f6d212d2a902e1eff46b07c6433c27c34063d295c6f01cc59addf1c09abb",
    "noble-ciphers/chacha.js": "85b3740f77c73701d40935685ddddcc8241925df72b3bcc62c96a9d755e12b03",
    "noble-ciphers/utils.js": "070f456f03bb6eefb262df685fc0da530065fb73436824e8d62fea3c2a2231ad",
    "noble-curves/LICENSE": "4f221aee6e072336700c408c68ab3b96a3fc09f6aebe6f48f1bd99e5ef13faec",
    "noble-curves/abstract/curve.js":
        "7782bed10018c70caec4da0a67b5c089a5e78f564501cd75d6a2a006eafd22b2",
    "noble-curves/abstract/der.js":
        "7f80d698611b131368ecf732b8740bb97f72cd42fef77c4b0bb923e2e2d44159",
    "noble-curves/abstract/edwards.js":
        "c8adde941c6dcaabd1e380f97505ceac20bfa48098cc612bc730832f70c1129c",
    "noble-curves/abstract/fft.js":
        "19c17f17c54d077d94ae80f5cf14ad1aa6d27c6e654caa39e7ece24680988368",
    "noble-curves/abstract/frost.js":
        "c337bc6e031c2bde21fad1a378ed8c55d445603a93edf95b47fed2c3033765b7",
    "noble-curves/abstract/hash-to-curve.js":
        "28c5dbe30b16ad88c4bc146c44ee5b101301a7afa39f55048283a13cf9a8f564",
    "noble-curves/abstract/modular.js":
        "cf1a4c6d646b5981e05ccf0d75874961433947958a2171b7852f959d990fb97c",
    "noble-curves/abstract/montgomery.js":
        "995ddb6e014e6c1330a6aa50b1a3236af92024beacf53051356be18259145876",
    "noble-curves/abstract/oprf.js":
        "b440b8cfb40837ce3f80139858de984f3e7bbee81d7fe8dbfff9c465fc55c212",
    "noble-curves/abstract/weierstrass.js":
        "aaa41fe0e5713d4282100803da27f1739d9cecaa95b12be54a256a6a8e51c610",
    "noble-curves/ed25519.js": "75fa6c999d5aab24c273670ff4b1b8766cb3ea99bf97cb4ef08d9223375c0336",
    "noble-curves/misc.js": "b9f72aa8525f15edad87765c4059f8e0df19b34beb7bd60f7df2c47819cd728e",
    "noble-curves/nist.js": "5af45c1414df41fbce49e6b2d099c1d0ffb5d508dbe51b8888135c761a14c501",
    "noble-curves/utils.js": "7ff4b03f3adbb2fdeb2aa8ea51e411ec300874ffbd020c26ac13b94efc1e6337",
    "noble-hashes/LICENSE": "4f221aee6e072336700c408c68ab3b96a3fc09f6aebe6f48f1bd99e5ef13faec",
    "noble-hashes/_blake.js": "cabbff61d1f373bac45594ad758df7c42e176464ddbb94b44f5533fa977a4f56",
    "noble-hashes/_md.js": "48d1603244d860abab12b0852ca8e1d11c5e0d0675a0e2d7e83083be6432dd3a",
    "noble-hashes/_u64.js": "b09da8c07fe8187c07649494cdb7cd0bcf13df90b506a9473d19e4d5f8c2e102",
    "noble-hashes/blake1.js": "da1d08b4d0702ad4f185a796df8fce3fec2855de53b02190eba3bd8555677b5c",
    "noble-hashes/blake2.js": "d7a681841592b89539da90b64113eee528a8359b5c80a9a4a6305f5c423fc6e4",
    "noble-hashes/hkdf.js": "e2beaf1b3fe3c5553c814b80b4883561ee0d55ef6d8869219bc408dc612fe17a",
    "noble-hashes/hmac.js": "fec9f8f3aeda785ea2de91cc4c059d54ef98196261c026c43f48341007ae52c9",
    "noble-hashes/legacy.js": "690553a41af2fdd1e32ff6b534ba8508e95f1861c09c2d62fe762b6b501e09be",
    "noble-hashes/sha2.js": "471746bba6ec4c6238ca41358d1d3b40b6ff31cf3363f0b4d550c649c1a8e83b",
    "noble-hashes/sha3.js": "9a81e1edb24eae27b335533220167609cfb58008c5690e140ce478acdc669f32",
    "noble-hashes/utils.js": "a04e3f30fc4b8ff0c748a3aa0bc78d83e039bac379c9af08739790320f8f3a78",
}
_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]""", re.M)


def test_the_vendored_files_are_the_pinned_ones() -> None:
    on_disk = {p.relative_to(VENDOR).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted(VENDOR.rglob("*")) if p.is_file()}
    assert on_disk == PINNED
    assert {"noble-curves/LICENSE", "noble-ciphers/LICENSE", "noble-hashes/LICENSE"} <= set(PINNED)


def test_every_import_of_the_seal_module_resolves_inside_static() -> None:
    todo, seen = [STATIC / "seal.mjs"], set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for spec in _IMPORT.findall(f.read_text()):
            assert spec.startswith("./") or spec.startswith("../"), (f, spec)
            target = (f.parent / spec).resolve()
            assert target.is_file() and STATIC in target.parents, (f, spec)
            todo.append(target)
    assert STATIC / "fairness-core.mjs" in seen and VENDOR / "noble-curves/ed25519.js" in seen


def test_the_largest_allowed_sealed_text_fits_the_wire_bound() -> None:
    pub = public_key(new_private_key())
    sealed = seal_opening(pub, "g", "r", "s0", 0, "x" * 1000, "00" * 32)
    frame = {"type": "commit", "v": 2, "cmd_id": "k", "game_id": "g", "round_id": "r",
             "slot": "s0", "commitment": "0" * 64, "sealed": sealed}
    assert isinstance(cm.CLIENT_ADAPTER.validate_python(frame), cm.Commit)
    with pytest.raises(ValueError, match="too large"):
        seal_opening(pub, "g", "r", "s0", 0, "x" * SEALED_MAX_CHARS, "00" * 32)
    # a v1 commit (the opening in clear) is not a frame of this protocol
    with pytest.raises(ValueError):
        cm.CLIENT_ADAPTER.validate_python({**frame, "choice": 1, "nonce": "00" * 32})
