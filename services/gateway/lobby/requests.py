"""What the lobby routes take from a client, refused typed unless valid: the JSON body
(Content-Type application/json, within EMPIRE_HTTP_MAX_BODY_BYTES, parsed by
edge/json_guard.py) and the ids in the path, each validated once into the lobby's request
model (shared/protocol/lobby.py). The lobby receives a request rebuilt from that model with
the identity stamped from the token, never the client's raw body: a client that names
``op``, ``player_id`` or another field the gateway sets is refused, not overridden.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from services.gateway.edge import json_guard
from services.gateway.edge import metrics as edge_metrics
from services.gateway.edge.http_errors import HttpError
from services.gateway.edge.limits import GatewayLimits
from shared.protocol.versions import KNOWN_PROTOCOL_VERSIONS

M = TypeVar("M", bound=BaseModel)
PATH_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")
SERVER_SET = frozenset({"op", "player_id", "session", "agent", "address"})


def _refuse(status: int, code: str, message: str, reason: str) -> HttpError:
    edge_metrics.REFUSED_INPUT.labels(reason).inc()
    return HttpError(status, code, message)


async def json_object(request: Request, limits: GatewayLimits,
                      required: bool = True) -> dict[str, Any]:
    body = await request.body()  # bounded by the middleware (edge/http_guard.py)
    if not body.strip():
        if required:
            raise _refuse(400, "message/malformed", "a JSON object body is required", "empty")
        return {}
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise _refuse(415, "message/malformed", "bodies are JSON: Content-Type: "
                      "application/json", "content_type")
    try:
        data = json_guard.parse(body, limits.json_max_depth)
    except json_guard.BadJson as exc:
        raise _refuse(400, "message/malformed", str(exc), "json") from None
    if not isinstance(data, dict):
        raise _refuse(400, "message/malformed", "the body must be a JSON object", "not_object")
    return data


def path_id(value: str, what: str) -> str:
    """A table id or invite code from the path: anything else names no table."""
    if not PATH_ID.match(value):
        raise _refuse(404, "lobby/not_found", f"There is no such {what}: check the link or "
                      "the code.", "path")
    return value


def lobby_request(model: type[M], client: dict[str, Any], stamped: dict[str, Any]) -> M:
    """The lobby request: the client's fields plus the ones the gateway sets, validated."""
    fields = dict(client)
    if fields.pop("v", 1) not in KNOWN_PROTOCOL_VERSIONS:
        raise _refuse(400, "message/unsupported_version", "unknown protocol version",
                      "version")
    forged = sorted(k for k in fields if k in SERVER_SET or k in stamped)
    if forged:
        raise _refuse(400, "lobby/bad_request", f"The server sets {forged[0]} itself: leave it "
                      "out of the request.", "forged")
    try:
        return model.model_validate({**fields, **stamped})
    except ValidationError as exc:
        raise _refuse(400, "lobby/bad_request", f"Some fields are not valid "
                      f"({json_guard.brief(exc)}): correct them and try again.",
                      "invalid") from None


def body_schema(model: type[BaseModel], *server_set: str,
                required: bool = True) -> dict[str, Any]:
    """The model's JSON Schema as a client writes the body (for the OpenAPI document)."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(defs[ref.removeprefix("#/$defs/")])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    schema = inline(schema)
    for name in (*SERVER_SET, *server_set):
        schema["properties"].pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r in schema["properties"]]
    return {"requestBody": {"required": required, "content": {"application/json": {
        "schema": schema}}}}
