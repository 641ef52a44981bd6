"""A client's WebSocket frame, decoded once into its typed wire model
(``shared.protocol.client.CLIENT_ADAPTER``), or refused with a typed ``rejected``.

The guards run before the model is built, in the order a client sees their refusals: the
frame's size, its JSON (syntax, depth: edge/json_guard.py), the move frames' own size bound,
the protocol version (a commit needs the sealed-commit version: its opening sealed to the
escrow, never in clear). Past them the frame is validated once; what the edge does next works
on the typed value.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from services.gateway.edge import json_guard
from services.gateway.edge.limits import GatewayLimits
from shared.protocol import client as cm
from shared.protocol.versions import KNOWN_PROTOCOL_VERSIONS, SEALED_COMMIT_VERSION

MOVES = ("act", "commit")


class Refused(Exception):
    """A frame refused before it became a typed message; ``reply``: the typed refusal."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(reply["code"])
        self.reply = reply


def rejected(code: str, message: str, cmd_id: str | None = None,
             game_id: str | None = None) -> dict[str, Any]:
    return {"type": "rejected", "v": 1, "cmd_id": cmd_id, "game_id": game_id, "code": code,
            "message": message}


def decode(raw: str, max_bytes: int, limits: GatewayLimits) -> cm.ClientMessage:
    """The frame's typed message, or ``Refused``."""
    size = len(raw.encode())
    if size > max_bytes:
        raise Refused(rejected("message/too_large", f"messages are limited to {max_bytes} bytes"))
    try:
        data = json_guard.parse(raw, limits.json_max_depth)
    except json_guard.BadJson as exc:
        raise Refused(rejected("message/malformed", str(exc))) from None
    if not isinstance(data, dict):
        return _validated(data)
    kind, version = data.get("type"), data.get("v", 1)
    if kind in MOVES and size > limits.ws_move_max_bytes:
        raise Refused(rejected("message/too_large",
                               f"act and commit frames are limited to "
                               f"{limits.ws_move_max_bytes} bytes",
                               cmd_id=_str(data.get("cmd_id")), game_id=_str(data.get("game_id"))))
    if version not in KNOWN_PROTOCOL_VERSIONS:
        raise Refused(rejected("message/unsupported_version", "unknown protocol version",
                               cmd_id=_str(data.get("cmd_id"))))
    if kind == "commit" and version < SEALED_COMMIT_VERSION:
        raise Refused(rejected(
            "message/unsupported_version",
            f"a commit needs protocol version {SEALED_COMMIT_VERSION}: its opening sealed to "
            "the escrow, never in clear",
            cmd_id=_str(data.get("cmd_id")), game_id=_str(data.get("game_id"))))
    return _validated(data)


def _validated(data: Any) -> cm.ClientMessage:
    try:
        return cm.CLIENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        cmd_id = _str(data.get("cmd_id")) if isinstance(data, dict) else None
        raise Refused(rejected("message/malformed", json_guard.brief(exc), cmd_id=cmd_id)) from None


def binary(data: bytes) -> dict[str, Any]:
    """The refusal of a binary frame, or of a text frame whose bytes are not UTF-8 (the
    gateway's server hands those to the app as bytes instead of failing the connection)."""
    try:
        data.decode()
    except UnicodeDecodeError:
        return rejected("message/malformed", "the frame is not valid UTF-8")
    return rejected("message/malformed", "binary frames are not accepted; send JSON text")


def ids_of(raw: str) -> tuple[str | None, str | None]:
    """The cmd_id and game_id of a frame (None where absent or not JSON), for a refusal that
    comes before the frame is decoded (its rate, a backend hiccup): named by them, it reaches
    the client's waiting command, or the game's session for a frame without a cmd_id (a
    ``watch``), instead of leaving the client to wait out its own timeout."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    return _str(data.get("cmd_id")), _str(data.get("game_id"))


def _str(v: Any) -> str | None:
    return v[:64] if isinstance(v, str) else None
