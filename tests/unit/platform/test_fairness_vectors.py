"""The one set of fairness vectors (tests/fixtures/fairness-vectors.json) is what shared/fairness
computes today: Node and the browser check their JavaScript against this same file
(tests/clients/test_js_fairness.py, tests/browser/test_fairness_twin.py)."""

from __future__ import annotations

import json

import pytest

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
