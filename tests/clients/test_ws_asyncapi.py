"""The WebSocket's AsyncAPI document: deterministic, complete, its examples validate against
its schemas (real frames: tests/e2e/test_ws_frames.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from shared.protocol.client import CLIENT_ADAPTER
from shared.protocol.errors import ERROR_CODES
from shared.protocol.server import SERVER_ADAPTER
from shared.protocol.ws_asyncapi import document

pytestmark = pytest.mark.clients

def _validator(doc: dict[str, Any], schema_name: str) -> Draft202012Validator:
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": doc["components"]}
    return Draft202012Validator(root)


def test_document_is_deterministic_and_complete() -> None:
    a, b = document(), document()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["asyncapi"] == "3.0.0"
    members = {
        m["title"]
        for m in (CLIENT_ADAPTER.json_schema(), SERVER_ADAPTER.json_schema())
        for m in m["$defs"].values()
        if "properties" in m and "type" in m["properties"]
    }
    assert members == set(a["components"]["messages"])
    wire = {m["name"] for m in a["components"]["messages"].values()}
    assert wire == {
        "watch",
        "unwatch",
        "act",
        "commit",
        "ping",
        "auth",  # the first frame: the token, never in the URL
        "welcome",
        "accepted",
        "rejected",
        "committed",
        "view",
        "record",
        "records",  # protocol v3: several record entries per frame
        "pong",
        "chat",  # both ways: a client's post, a server's message (two models)
        "chat_join",
        "chat_leave",
        "chat_mute",
        "chat_report",
        "chat_history",
        "chat_mutes",
        "my_game",  # a player's "My games" entry changed
    }
    channel = a["channels"]["play"]
    for ref in channel["messages"].values():  # every reference resolves
        assert ref["$ref"].rsplit("/", 1)[-1] in a["components"]["messages"]
    for op in a["operations"].values():
        for m in op["messages"] + op.get("reply", {}).get("messages", []):
            assert m["$ref"].rsplit("/", 1)[-1] in channel["messages"]
    assert a["info"]["x-error-codes"] == list(ERROR_CODES)
    rejected = a["components"]["schemas"]["Rejected"]["properties"]["code"]["enum"]
    assert rejected == list(ERROR_CODES)


def test_document_parses_as_asyncapi_3() -> None:
    from faststream.specification.asyncapi.v3_0_0.schema import ApplicationSchema

    doc = document()
    parsed = ApplicationSchema.model_validate(doc)
    assert json.loads(parsed.to_json())["operations"].keys() == doc["operations"].keys()


def test_examples_validate_against_their_payload_schemas() -> None:
    doc = document()
    for name, msg in doc["components"]["messages"].items():
        v = _validator(doc, name)
        for ex in msg["examples"]:
            v.validate(ex["payload"])
        union = "ClientMessage" if "client to gateway" in msg["title"] else "ServerMessage"
        _validator(doc, union).validate(msg["examples"][0]["payload"])
    bad = {"type": "act", "cmd_id": "x!", "game_id": "g", "action": 1}
    assert not _validator(doc, "ClientMessage").is_valid(bad)


# The frames a real game sends (and the welcome and chat frames): tests/e2e/test_ws_frames.py
