"""The one JavaScript fairness module (clients/web/fairness-core.mjs), which the web
page serves and the Node client imports, run under Node: the shared vectors
(tests/fixtures/fairness-vectors.json) through the module and through the client's re-exports,
and the verifier on every real and tampered record (tests/support/tamper.py), with the same
problem texts and counts as Python's verifier, alone and with receipts."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shared.fairness.signing import keys_by_seat
from shared.fairness.verify import verify
from tests.fixtures import fairness_vectors
from tests.support import tamper

pytestmark = pytest.mark.clients

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "support" / "fairness-node.mjs"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")


def _node(mode: str, path: Path) -> Any:
    assert NODE is not None
    out = subprocess.run([NODE, str(RUNNER), mode, str(path)], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@needs_node
def test_node_computes_the_shared_vectors() -> None:
    got = _node("vectors", fairness_vectors.PATH)
    want = fairness_vectors.expected(json.loads(fairness_vectors.PATH.read_text(encoding="utf-8")))
    vectors = json.loads(fairness_vectors.PATH.read_text(encoding="utf-8"))
    for lib in ("core", "client"):
        assert {k: got[lib][k] for k in want} == want, lib
        assert got[lib]["opened"] == [{"choice": x["choice"], "nonce": x["nonce"]}
                                      for x in vectors["seals"]], lib
        assert got[lib]["verified"] == [[True, False]] * len(vectors["signatures"]), lib


@needs_node
@pytest.mark.parametrize("mode", ["verify", "client"])
def test_node_verifier_reports_what_python_reports(tmp_path: Path, mode: str) -> None:
    cases = tamper.honest() + tamper.cases()
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([{"name": f"{c.game}: {c.name}", "doc": c.doc,
                                 "receipts": c.receipts} for c in cases]))
    got = _node(mode, path)
    for case, js in zip(cases, got, strict=True):
        problems, counts = verify(case.doc, case.receipts)
        assert js["problems"] == problems, js["name"]
        assert js["counts"] == counts, js["name"]
        if case.cls and not case.rules_only:
            assert any(p.startswith(case.cls + ": ") for p in js["problems"]), js["name"]


@needs_node
def test_node_client_verifies_with_its_sessions_receipts(tmp_path: Path) -> None:
    """``verifyGame(doc, game)`` takes the GameSession that played the seat: its acknowledged
    receipts (``receiptsOf``) are checked, an unanswered commit is left out, and
    ``saveReceipts`` writes exactly the file ``verify --receipts`` reads; a choice rewritten in
    every public trace fails only through the receipts."""
    cases = [c for c in tamper.honest() + tamper.cases() if c.receipts is not None]
    assert any(c.cls == "receipt" for c in cases)
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([{"name": f"{c.game}: {c.name}", "doc": c.doc,
                                 "receipts": c.receipts} for c in cases]))
    got = _node("session", path)
    for case, js in zip(cases, got, strict=True):
        problems, counts = verify(case.doc, case.receipts)
        assert js["problems"] == problems, js["name"]
        assert js["counts"] == counts and counts["receipts"] > 0, js["name"]
        assert js["saved"] == case.receipts, js["name"]
        assert verify(case.doc, js["saved"]) == (problems, counts), js["name"]
        if case.cls == "receipt":
            assert problems and all(p.startswith("receipt: ") for p in problems), js["name"]
            assert verify(case.doc)[0] == [], js["name"]


def _bundles() -> list[tuple[str, dict[str, Any], str | None]]:
    """Audit bundles of the real records (GET /api/matches/<id>/audit) and copies that
    disagree with their record: (name, bundle, the problem expected or None)."""
    out: list[tuple[str, dict[str, Any], str | None]] = []
    for game in tamper.GAMES:
        doc = tamper.load(game)
        created = tamper.one(doc, "game_created")
        honest = {**doc, "audit": 1, "options": created["options"],
                  "rules_version": created["rules_version"],
                  "escrow_key": tamper.one(doc, "round_opened")["escrow_key"],
                  "signatures": keys_by_seat(doc["record"], doc["log"]),
                  "reveals": [e for e in doc["record"] if e["type"] in (
                      "round_revealed", "seed_revealed")]}
        out.append((f"{game}: honest", honest, None))
        for name, change, want in [
            ("options", {"options": {"rounds": 99}}, "record: document: the bundle's options"),
            ("rules", {"rules_version": "x"}, "record: document: the bundle's rules version"),
            ("reveals", {"reveals": honest["reveals"][:-1]}, "record: document: the bundle's "
             "reveals"),
            ("escrow key", {"escrow_key": "ab"}, "seal: document: the bundle's escrow key ab "
             "is not the one the record's rounds publish"),
            ("version", {"audit": 2}, "shape: document: audit bundle version 2"),
        ]:
            out.append((f"{game}: {name}", {**honest, **change}, want))
        missing = dict(honest)
        del missing["signatures"]
        out.append((f"{game}: signatures missing", missing, "signature: document: the bundle's "
                    "signatures"))
        other = {**honest, "signatures": {"0": ["ab" * 32]}}
        out.append((f"{game}: signatures swapped", other, "signature: document: the bundle's "
                    "signatures"))
    return out


@needs_node
def test_node_and_python_agree_on_audit_bundles(tmp_path: Path) -> None:
    bundles = _bundles()
    path = tmp_path / "bundles.json"
    path.write_text(json.dumps([{"name": n, "doc": d, "receipts": None} for n, d, _w in bundles]))
    got = _node("verify", path)
    for (name, doc, want), js in zip(bundles, got, strict=True):
        problems, counts = verify(doc)
        assert js["problems"] == problems and js["counts"] == counts, name
        if want is None:
            assert problems == [], name
        else:
            assert any(p.startswith(want) for p in problems), (name, problems)


@needs_node
def test_node_signs_a_key_handover_as_python_does() -> None:
    """The rekey proof (docs/protocol.md "Signed commands"): the page's signing.mjs and the
    SDK sign the same bytes, so the lobby takes a handover from either."""
    from shared.runtime.session_keys import SessionKey, rekey_message, verify

    assert NODE is not None
    seed, sid, new = "00" * 32, "0123456789abcdef01234567", "ab" * 32
    script = (f'import {{ SessionKey }} from "{ROOT / "clients" / "web" / "signing.mjs"}";'
              f'process.stdout.write(new SessionKey("{seed}").signRekey("{sid}", "{new}"));')
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    key = SessionKey.from_seed(seed)
    assert out.stdout == key.sign_rekey(sid, new)
    assert verify(key.public, out.stdout, rekey_message(sid, new))
    assert not verify(key.public, out.stdout, rekey_message(sid, "cd" * 32))
