"""Ed25519 signature verification (RFC 8032 §5.1.7), stdlib only, for the verifier
(shared/fairness/verify.py must run without this project's dependencies).

Used by the verifier's class ``signature`` (each act/commit signed by the
seat's session key, the signatures kept in the record; shared/fairness/signing.py). Verification
only: it handles public data, so it need not be constant-time. The cofactored group equation
[8][S]B = [8]R + [8][k]A is checked, as RFC 8032 specifies; S must be below L and A and R must
decode to curve points, else the signature is refused. It is computed as
[8]([S]B - [k]A - R) = 0, with [S]B and [k](-A) in one joint double-and-add.

Where the ``cryptography`` package happens to be importable (the project's own environment;
a player's bare Python need not have it), OpenSSL's verification goes first, as a shortcut
for the common answer: OpenSSL checks the cofactorless equation [S]B = R + [k]A, which
implies the cofactored one, and this module's own decoding checks (A and R canonical curve
points, S below L) run too, so "valid" from that path is "valid" here. Anything OpenSSL
refuses is decided by the stdlib arithmetic below, so the answers are this module's own on
every input (a test compares the two paths on edge cases: small-order points, non-canonical
encodings, S + L).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _add(a: Point, b: Point) -> Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % P, g * h % P, f * g % P, e * h % P


def _mul(s: int, pt: Point) -> Point:
    q: Point = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _add(q, pt)
        pt = _add(pt, pt)
        s >>= 1
    return q


def _equal(a: Point, b: Point) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y: int, sign: int) -> int | None:
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def _decode(raw: bytes) -> Point | None:
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return x, y, 1, x * y % P


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
assert _GX is not None
BASE: Point = (_GX, _GY, 1, _GX * _GY % P)


def _openssl() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:  # a bare Python: the stdlib arithmetic alone
        return None
    return Ed25519PublicKey


_FAST = _openssl()


def _openssl_accepts(public: bytes, message: bytes, signature: bytes) -> bool:
    if _FAST is None:
        return False
    try:
        _FAST.from_public_bytes(public).verify(signature, message)
    except Exception:  # InvalidSignature, or a key OpenSSL will not decode
        return False
    return True


@functools.lru_cache(maxsize=65_536)
def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` (64 bytes) is ``public``'s (32 bytes) over ``message``. The answer
    depends on these exact bytes only, so it is remembered for them: a verifier that checks
    the same record again (a game verified twice, a tampered copy that differs in one field)
    does the curve arithmetic once per signature."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decode(public)
    r = _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    if _openssl_accepts(public, message, signature):
        return True  # the cofactorless equation holds, so the cofactored one does
    return _stdlib_equation(a, r, s, public, message, signature)


def _stdlib_equation(a: Point, r: Point, s: int, public: bytes, message: bytes,
                     signature: bytes) -> bool:
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(),
                       "little") % L
    # [8]([S]B - [k]A - R) is the neutral element: [S]B and [k](-A) in one joint
    # double-and-add (Straus), then three doublings
    minus_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    table = {(1, 0): BASE, (0, 1): minus_a, (1, 1): _add(BASE, minus_a)}
    q: Point = (0, 1, 1, 0)
    for i in range(max(s.bit_length(), k.bit_length()) - 1, -1, -1):
        q = _add(q, q)
        bits = ((s >> i) & 1, (k >> i) & 1)
        if bits != (0, 0):
            q = _add(q, table[bits])
    minus_r = ((P - r[0]) % P, r[1], r[2], (P - r[3]) % P)
    q = _add(q, minus_r)
    for _ in range(3):
        q = _add(q, q)
    return _equal(q, (0, 1, 1, 0))
