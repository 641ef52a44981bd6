"""Generate the committed contract files; ``--check`` fails when they drift from the code.

    python -m services.schemas [--check]

Writes shared/protocol/schema/: one JSON Schema per message union (WebSocket, inter-service
streams, lobby), openapi.json (the gateway's HTTP API) and asyncapi-<service>.json (faststream).
It lives above the services because it composes their apps for their AsyncAPI and OpenAPI
documents; the contract package (shared/protocol) imports no service.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

import shared.protocol

SCHEMA_DIR = Path(shared.protocol.__file__).resolve().parent / "schema"
SERVICES = ("adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "notifier",
            "gateway")


def _adapters() -> dict[str, TypeAdapter[Any]]:
    from shared.protocol import client, internal, lobby, server

    return {
        "ws-client-message": client.CLIENT_ADAPTER,
        "ws-server-message": server.SERVER_ADAPTER,
        "stream-adjudicator-input": internal.ADJUDICATOR_INPUT,
        "stream-escrow-input": internal.ESCROW_INPUT,
        "stream-dealer-input": internal.DEALER_INPUT,
        "stream-gateway-input": internal.GATEWAY_INPUT,
        "stream-game-ended": TypeAdapter(internal.GameEnded),
        "stream-seat-bot": TypeAdapter(internal.SeatBot),
        "lobby-request": lobby.LOBBY_REQUEST,
    }


def render() -> dict[str, str]:
    os.environ.setdefault("EMPIRE_INSTANCE", "schema")
    os.environ.setdefault("EMPIRE_LOG_LEVEL", "ERROR")
    out: dict[str, str] = {}
    for name, adapter in _adapters().items():
        out[f"{name}.json"] = json.dumps(adapter.json_schema(), indent=2, sort_keys=True) + "\n"
    from shared.protocol.ws_asyncapi import document

    out["asyncapi-ws.json"] = json.dumps(document(), indent=2, sort_keys=True) + "\n"
    for svc in SERVICES:
        if svc == "gateway":
            continue
        app = importlib.import_module(f"services.{svc}.app").create_app()
        spec = json.loads(app.schema.to_specification().to_json())
        out[f"asyncapi-{svc}.json"] = json.dumps(spec, indent=2, sort_keys=True) + "\n"
    gw = importlib.import_module("services.gateway.app").create_app()
    out["openapi.json"] = json.dumps(gw.openapi(), indent=2, sort_keys=True) + "\n"
    return out


def main() -> int:
    check = "--check" in sys.argv
    files = render()
    SCHEMA_DIR.mkdir(exist_ok=True)
    drift = []
    for name, text in files.items():
        path = SCHEMA_DIR / name
        if check:
            if not path.exists() or path.read_text() != text:
                drift.append(name)
        else:
            path.write_text(text)
    stale = {p.name for p in SCHEMA_DIR.glob("*.json")} - set(files)
    if check and (drift or stale):
        print("schema drift (run `make schema` and commit):", ", ".join(sorted(drift + list(
            stale))))
        return 1
    if not check:
        for name in stale:
            (SCHEMA_DIR / name).unlink()
        print(f"wrote {len(files)} files to {SCHEMA_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
