"""The WebSocket edge: authenticate, decode, stamp the seat, forward, answer every refusal."""

from __future__ import annotations

import time
from typing import Any

import orjson
import structlog
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from services.gateway.hub import Connection, Hub
from services.gateway.ratelimit import TokenBucket
from shared.protocol import client as cm
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.versions import KNOWN_PROTOCOL_VERSIONS, PROTOCOL_VERSION
from shared.runtime import tokens
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")


def _rejected(code: str, message: str, cmd_id: str | None = None,
              game_id: str | None = None) -> dict[str, Any]:
    return {"type": "rejected", "v": 1, "cmd_id": cmd_id, "game_id": game_id, "code": code,
            "message": message}


class Edge:
    def __init__(self, settings: Settings, hub: Hub, broker: Any,
                 outbox: Any = None) -> None:
        self.settings = settings
        self.hub = hub
        self.broker = broker
        self.out = outbox if outbox is not None else broker  # stream publishes

    async def serve(self, ws: WebSocket) -> None:
        await ws.accept()
        try:
            ident = tokens.verify(self.settings.verify_secrets, ws.query_params.get("token", ""),
                                  int(time.time() * 1000))
        except tokens.TokenError as exc:
            await ws.send_text(orjson.dumps(_rejected(exc.code, str(exc))).decode())
            await ws.close(code=4401)
            return
        conn = Connection(player_id=ident.player_id, name=ident.name, send_text=ws.send_text)
        self.hub.add(conn)
        bucket = TokenBucket(self.settings.rate_per_s, self.settings.rate_burst)
        await conn.send({"type": "welcome", "v": 1, "player_id": ident.player_id,
                         "name": ident.name})
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text") or ""  # a binary frame is refused as not JSON
                with structlog.contextvars.bound_contextvars(player_id=ident.player_id):
                    try:
                        reply = await self.handle(conn, raw, bucket)
                    except Exception as exc:  # a backend hiccup must not drop the socket
                        log.error("message_failed", error=repr(exc)[:300])
                        # named by its cmd_id, so the client's waiting command gets its answer
                        reply = _rejected("message/unavailable",
                                          "the server could not take this message; retry",
                                          cmd_id=_cmd_of(raw))
                if reply is not None:
                    await conn.send(reply)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.hub.remove(conn)

    async def handle(self, conn: Connection, raw: str,
                     bucket: TokenBucket) -> dict[str, Any] | None:
        if not bucket.take():
            return _rejected("message/rate_limited", "too many messages; slow down")
        if len(raw.encode()) > self.settings.max_message_bytes:
            return _rejected("message/too_large",
                             f"messages are limited to {self.settings.max_message_bytes} bytes")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return _rejected("message/malformed", "not JSON")
        if isinstance(data, dict) and data.get("v", 1) not in KNOWN_PROTOCOL_VERSIONS:
            return _rejected("message/unsupported_version", "unknown protocol version",
                             cmd_id=_str(data.get("cmd_id")))
        try:
            msg = cm.CLIENT_ADAPTER.validate_python(data)
        except ValidationError as exc:
            cmd_id = _str(data.get("cmd_id")) if isinstance(data, dict) else None
            return _rejected("message/malformed", _brief(exc), cmd_id=cmd_id)
        if isinstance(msg, cm.Ping):
            return {"type": "pong", "v": 1}
        if isinstance(msg, cm.Unwatch):
            self.hub.unwatch(conn, msg.game_id)
            return None
        exists, seat = await self.hub.seat_of(msg.game_id, conn.player_id)
        cmd = getattr(msg, "cmd_id", None)
        if not exists:
            return _rejected("game/not_found", "no such game", cmd, msg.game_id)
        if isinstance(msg, cm.Watch):
            await self.hub.watch(conn, msg.game_id, seat, msg.after_seq, msg.after_record)
            return None
        if seat is None:
            return _rejected("seat/not_seated", "you have no seat in this game", cmd,
                             msg.game_id)
        shards = self.settings.partitions
        if isinstance(msg, cm.Act):
            body = im.SubmitAction(cmd_id=msg.cmd_id, game_id=msg.game_id, seat=seat,
                                   player_id=conn.player_id, expected_seq=msg.expected_seq,
                                   action=msg.action)
            await self.out.publish(body.model_dump(mode="json"),
                                      stream=streams.sharded(streams.ADJ_ACTIONS, msg.game_id,
                                                             shards),
                                      maxlen=streams.MAXLEN_INTERNAL)
            return {"type": "accepted", "v": 1, "cmd_id": msg.cmd_id}
        assert isinstance(msg, cm.Commit)
        # im.CommitChoice's wire form, built directly: every field was just validated
        commit = {"v": PROTOCOL_VERSION, "type": "commit_choice", "cmd_id": msg.cmd_id,
                  "game_id": msg.game_id, "seat": seat, "player_id": conn.player_id,
                  "round_id": msg.round_id, "slot": msg.slot, "commitment": msg.commitment,
                  "choice": msg.choice, "nonce": msg.nonce, "public": msg.public}
        await self.out.publish(commit,
                                  stream=streams.sharded(streams.ESC_COMMITS, msg.game_id,
                                                         shards),
                                  maxlen=streams.MAXLEN_INTERNAL)
        return None  # the escrow answers with the receipt ("committed") or a refusal


def _cmd_of(raw: str) -> str | None:
    """The cmd_id of a message already known to be JSON and within the size limit."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return _str(data.get("cmd_id")) if isinstance(data, dict) else None


def _str(v: Any) -> str | None:
    return v[:64] if isinstance(v, str) else None


def _brief(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors(include_url=False, include_input=False)[:3]:
        loc = ".".join(str(x) for x in e["loc"])
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)[:300]
