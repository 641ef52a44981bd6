"""bench/micro.py's commit cryptography (the floor of a commit's cost): the four unit costs
it prints are of the real operations, on a seal that opens and a signature that verifies."""

from __future__ import annotations

import pytest

from bench import micro

pytestmark = pytest.mark.unit


def test_a_commits_cryptography_is_measured_on_real_operations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from shared.fairness import seal
    from shared.runtime import session_keys

    opened: list[tuple[object, str]] = []
    verified: list[bool] = []
    real_open, real_verify = seal.open_sealed, session_keys.verify

    def spy_open(*a: object) -> tuple[object, str]:
        out = real_open(*a)  # type: ignore[arg-type]
        opened.append(out)
        return out

    def spy_verify(*a: object) -> bool:
        ok = real_verify(*a)  # type: ignore[arg-type]
        verified.append(ok)
        return ok

    monkeypatch.setattr(seal, "open_sealed", spy_open)
    monkeypatch.setattr(session_keys, "verify", spy_verify)
    costs = micro.crypto_costs(3)
    assert set(costs) == {"client_seal_us", "client_sign_us", "escrow_open_us",
                          "escrow_verify_us"}
    assert all(v > 0 for v in costs.values())
    assert opened and all(choice == 7 for choice, _ in opened)
    assert verified and all(verified)
