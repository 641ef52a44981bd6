"""The escrow's key object is built once per key (building it per commit was ~5% of
the escrow's CPU), and opening with the cached object is the same as before: a sealed opening
opens for its own slot only."""

from __future__ import annotations

from typing import Any

import pytest

from shared.fairness import seal

pytestmark = pytest.mark.unit


def test_the_private_key_object_is_built_once_and_opens_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bytes] = []
    real = seal.X25519PrivateKey.from_private_bytes

    def counting(data: bytes) -> Any:
        built.append(data)
        return real(data)

    monkeypatch.setattr(seal.X25519PrivateKey, "from_private_bytes", counting)
    private = seal.new_private_key()
    public = seal.public_key(private)
    for n in range(5):
        sealed = seal.seal_opening(public, "g-1", f"pick:{n}", "s0", 0, n, "ab" * 32)
        assert seal.open_sealed(private, "g-1", f"pick:{n}", "s0", 0, sealed) == (n, "ab" * 32)
        with pytest.raises(seal.BadSeal):  # bound to its slot, as before
            seal.open_sealed(private, "g-1", f"pick:{n}", "s1", 0, sealed)
    assert len(built) == 1
    assert seal.public_key(private) == public
