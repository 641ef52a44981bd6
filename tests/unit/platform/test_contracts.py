"""The committed contracts say what the code knows (shared/protocol/schema, `make schema`):
no free-form body in openapi.json's 200 answers or request bodies, and a real payload for
every stream in the services' AsyncAPI documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.unit
SCHEMA = Path(__file__).resolve().parents[3] / "shared" / "protocol" / "schema"
SERVICES = ("adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "notifier")


def _resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    for _ in range(10):  # bounded
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        target: Any = doc
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def free_form(doc: dict[str, Any], node: dict[str, Any]) -> bool:
    """An object schema that names nothing (any keys, any values)."""
    node = _resolve(doc, node)
    if any(k in node for k in ("oneOf", "anyOf", "allOf")):
        return False
    return not node or (node.get("type") == "object" and not node.get("properties"))


def test_every_http_answer_and_body_is_typed() -> None:
    doc = json.loads((SCHEMA / "openapi.json").read_text())
    checked = 0
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            ok = op["responses"]["200"]["content"]["application/json"]["schema"]
            assert not free_form(doc, ok), (method, path)
            for code, answer in op["responses"].items():
                if code.startswith(("4", "5")) and code != "422":
                    schema = answer["content"]["application/json"]["schema"]
                    assert _resolve(doc, schema).get("title") == "Refusal", (method, path)
            body = op.get("requestBody")
            if body is not None:
                assert not free_form(doc, body["content"]["application/json"]["schema"]), \
                    (method, path)
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("service", SERVICES)
def test_every_stream_payload_is_a_real_message(service: str) -> None:
    doc = json.loads((SCHEMA / f"asyncapi-{service}.json").read_text())
    messages = doc["components"]["messages"]
    assert messages
    for name, message in messages.items():
        assert not free_form(doc, message["payload"]), (service, name)
