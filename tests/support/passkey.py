"""A software passkey for tests: a P-256 key that answers WebAuthn registration ("none"
attestation) and authentication ceremonies the way a browser's authenticator would, as the
JSON a browser's ``PublicKeyCredential.toJSON()`` gives. The browser tier uses Chromium's own
virtual authenticator instead (tests/browser/test_accounts.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


class SoftPasskey:
    def __init__(self, rp_id: str = "localhost", origin: str = "http://localhost:8000") -> None:
        self.rp_id = rp_id
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.cred_id = secrets.token_bytes(16)
        self.user_handle = b""
        self.count = 0

    def _client_data(self, kind: str, challenge: str, origin: str | None = None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge,
                           "origin": origin or self.origin, "crossOrigin": False}).encode()

    def _auth_data(self, attested: bytes = b"") -> bytes:
        self.count += 1
        flags = 0x01 | 0x04 | (0x40 if attested else 0)  # user present, verified, attested
        return (hashlib.sha256(self.rp_id.encode()).digest() + bytes([flags])
                + struct.pack(">I", self.count) + attested)

    def register(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """The answer to ``navigator.credentials.create({publicKey: options})``."""
        self.user_handle = unb64url(options["user"]["id"])
        nums = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: nums.x.to_bytes(32, "big"),
                            -3: nums.y.to_bytes(32, "big")})
        attested = bytes(16) + struct.pack(">H", len(self.cred_id)) + self.cred_id + cose
        att = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": self._auth_data(attested)})
        cdj = self._client_data("webauthn.create", options["challenge"], origin)
        return {"id": b64url(self.cred_id), "rawId": b64url(self.cred_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(cdj), "attestationObject": b64url(att),
                             "transports": ["internal"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def sign_in(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """The answer to ``navigator.credentials.get({publicKey: options})``."""
        cdj = self._client_data("webauthn.get", options["challenge"], origin)
        auth = self._auth_data()
        sig = self.key.sign(auth + hashlib.sha256(cdj).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.cred_id), "rawId": b64url(self.cred_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(cdj), "authenticatorData": b64url(auth),
                             "signature": b64url(sig), "userHandle": b64url(self.user_handle)},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}
