"""How tests open a raw WebSocket: the access token in the ``Sec-WebSocket-Protocol`` offer
(``empire.v1, empire.token.<token>``), never in the URL (docs/protocol.md section 2)."""

from __future__ import annotations

from websockets.typing import Subprotocol


def ws_url(http_url: str) -> str:
    """The gateway's WebSocket URL for its HTTP base URL (no token in it)."""
    return http_url.replace("http", "ws", 1).rstrip("/") + "/ws"


def offer(token: str) -> list[Subprotocol]:
    """The subprotocols that authenticate a socket with ``token`` (pass as
    ``websockets.connect(..., subprotocols=offer(token))``)."""
    return [Subprotocol("empire.v1"), Subprotocol("empire.token." + token)]
