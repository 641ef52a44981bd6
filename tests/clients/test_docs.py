"""The client docs stay true to the code: every error code and message type is documented,
and the guide's test vectors are what shared/fairness computes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from services.supervisor import Supervisor
from shared.fairness.commitments import commitment
from shared.fairness.draws import draw, game_key, seed_commitment
from shared.fairness.lp import canonical_json, lp
from shared.protocol.errors import ERROR_CODES
from shared.protocol.ws_asyncapi import document

pytestmark = pytest.mark.clients
DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_protocol_documents_every_code_message_and_record_entry() -> None:
    text = (DOCS / "protocol.md").read_text()
    assert [c for c in ERROR_CODES if f"`{c}`" not in text] == []
    types = {m["name"] for m in document()["components"]["messages"].values()}
    assert [t for t in sorted(types) if f"`{t}`" not in text] == []
    entries = (
        "game_created",
        "seed_committed",
        "round_opened",
        "committed",
        "round_closed",
        "round_revealed",
        "draw",
        "event",
        "game_ended",
        "seed_revealed",
    )
    assert [e for e in entries if f"`{e}`" not in text] == []


def test_guide_vectors_are_the_reference_implementation() -> None:
    text = (DOCS / "write-your-own-client.md").read_text()
    nonce = "ab" * 32
    key = game_key(bytes(32), "g-1", "1", [bytes.fromhex("cd" * 32)])
    expected = [
        canonical_json({"engine": "L", "gear": 2, "boost": "none"}),
        lp("pick:1/s0").hex(),
        commitment("g-1", "pick:1", "s0", 0, 7, nonce),
        commitment("g-1", "plan:1", "s0:1", 0, {"engine": "L", "gear": 2, "boost": "none"}, nonce),
        seed_commitment("g-1", bytes(32)),
        key.hex(),
        str(draw(key, "dice:round:1", "dice", 6, 3)).replace(" ", ""),
        str(draw(key, "deck", "shuffle", 10)).replace(" ", ""),
        str(draw(key, "setup:first", "below", 4)).replace(" ", ""),
    ]
    assert [v for v in expected if v not in text] == []


def test_the_signed_command_example_is_the_vector() -> None:
    """docs/protocol.md's worked example of a signed act is the first signature vector, and
    that vector is what shared/fairness/signing.py and `cryptography` compute."""
    import json

    from shared.fairness import signing
    from shared.runtime.session_keys import SessionKey

    text = (DOCS / "protocol.md").read_text()
    vectors = Path(__file__).resolve().parents[1] / "fixtures" / "fairness-vectors.json"
    v = json.loads(vectors.read_text(encoding="utf-8"))["signatures"][0]
    msg = signing.message(v["game"], v["seat"], v["cmd_id"], v["kind"], v["body"])
    key = SessionKey.from_seed(v["secret"])
    assert (msg.hex(), key.public, key.sign(msg)) == (v["message"], v["public"], v["sig"])
    flat = "".join(text.split())  # the example's hex is broken over lines
    for piece in (v["message"], v["sig"], v["public"], canonical_json(v["body"]),
                  f'"key":"{v["public"]}"', f'"sig":"{v["sig"]}"'):
        assert piece.replace(" ", "") in flat, piece


def test_the_guides_first_sdk_game_plays_and_verifies(clients_system: Supervisor) -> None:
    """The guide's "A first game" runs as printed against a real system: the SDK calls it
    shows exist, and the game it plays ends with every reveal and the record verified."""
    text = (DOCS / "write-your-own-client.md").read_text()
    section = text.split("### A first game", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "asyncio.run(main())" in block
    namespace: dict[str, Any] = {}
    exec(compile(block.replace("asyncio.run(main())", ""), "write-your-own-client.md", "exec"),
         namespace)
    asyncio.run(asyncio.wait_for(namespace["main"](clients_system.url), 120))
