"""The WebSocket edge: authenticate, count the socket against its quotas, decode, stamp the
seat, forward, answer every refusal.

Authentication (issue #19), never in the URL: the ``Sec-WebSocket-Protocol`` offer
``empire.v1, empire.token.<access token>`` (the server answers ``empire.v1``), or else the
first frame ``{"type": "auth", "token": "<access token>"}`` within EMPIRE_WS_AUTH_TIMEOUT_S.
A token in the URL (``/ws?token=``: proxies and access logs record URLs) is refused
(``auth/invalid_token``, close 4401) and never read. The ``Origin`` is checked first
(services/gateway/auth/sessions.py). A socket whose session is revoked is closed 4401 with the
reason ``auth/revoked_session``.

Close codes: 4401 (bad, expired or revoked token), 4403 (Origin not allowed, after a typed
``auth/bad_origin``), 4029 (too many open sockets for the player or its address,
after a typed ``message/rate_limited``), 4008 (slow consumer: services/gateway/fanout/outbound.py),
1013 (this gateway process holds EMPIRE_WS_MAX_SOCKETS: try again, another replica may
serve). A hostile frame (not UTF-8, not JSON, too deep, too big) gets a typed ``rejected``
and the socket stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import orjson
import structlog
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from services.gateway.auth.sessions import BAD_ORIGIN, Revocations, origin_allowed
from services.gateway.chat.table_talk import CHAT_FRAMES, Chat
from services.gateway.edge import json_guard
from services.gateway.edge.client_ip import client_ip
from services.gateway.edge.limits import GatewayLimits, get_limits
from services.gateway.edge.quotas import Quotas, Slots, Verdict
from services.gateway.edge.ratelimit import TokenBucket
from services.gateway.fanout.hub import Connection, Hub
from services.gateway.fanout.outbound import Close, Outbound
from shared.protocol import client as cm
from shared.protocol import internal as im
from shared.protocol import server as sm
from shared.protocol import streams
from shared.protocol.versions import (
    KNOWN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION,
    SEALED_COMMIT_VERSION,
)
from shared.runtime import tokens, tracing
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")

TOO_MANY_SOCKETS = 4029  # close code after a typed message/rate_limited
FLOODING = 1008  # policy violation: more rate refusals than the burst without calming down
TRY_AGAIN_LATER = 1013  # this process is full
BAD_TOKEN = 4401
MOVES = ("act", "commit")
SUBPROTOCOL = "empire.v1"
TOKEN_PROTOCOL = "empire.token."


def _rejected(code: str, message: str, cmd_id: str | None = None,
              game_id: str | None = None) -> dict[str, Any]:
    return {"type": "rejected", "v": 1, "cmd_id": cmd_id, "game_id": game_id, "code": code,
            "message": message}


class Edge:
    def __init__(self, settings: Settings, hub: Hub, broker: Any, outbox: Any = None,
                 limits: GatewayLimits | None = None, quotas: Quotas | None = None,
                 revocations: Revocations | None = None) -> None:
        self.settings = settings
        self.revocations = revocations
        self.hub = hub
        self.broker = broker
        self.out = outbox if outbox is not None else broker  # stream publishes
        self.limits = limits or get_limits()
        self.quotas = quotas
        self.chat: Chat | None = None  # table talk (chat/table_talk.py), set by the app
        self.open = 0  # sockets of this process

    async def _refuse(self, ws: WebSocket, frame: dict[str, Any], code: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.send_text(orjson.dumps(frame).decode()),
                                   self.limits.ws_send_timeout_s)
            await asyncio.wait_for(ws.close(code=code), self.limits.ws_send_timeout_s)

    async def _token(self, ws: WebSocket, offered: list[str]) -> str | None:
        """The access token: from the subprotocol offer or the first frame. None: the client
        went away."""
        token = next((p[len(TOKEN_PROTOCOL):] for p in offered
                      if p.startswith(TOKEN_PROTOCOL)), "")
        if token:
            return token
        try:
            message = await asyncio.wait_for(ws.receive(), self.settings.ws_auth_timeout_s)
        except TimeoutError:
            return ""
        if message["type"] == "websocket.disconnect":
            return None
        raw = message.get("text") or ""
        if len(raw) > self.settings.max_message_bytes:
            return ""
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return ""
        if isinstance(data, dict) and data.get("type") == "auth" \
                and isinstance(data.get("token"), str):
            return str(data["token"])
        return ""

    async def serve(self, ws: WebSocket) -> None:
        offered = [str(p) for p in ws.scope.get("subprotocols") or []]
        await ws.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
        if not origin_allowed(self.settings, ws.scope):
            log.info("ws_origin_refused")
            await self._refuse(ws, _rejected("auth/bad_origin", "this page's origin may not "
                                             "open a socket here"), BAD_ORIGIN)
            return
        if "token" in ws.query_params:  # the removed /ws?token=: refused, never read
            log.info("ws_token_in_url_refused")
            await self._refuse(ws, _rejected(
                "auth/invalid_token", "a token in the URL is refused: send it in the first "
                'frame {"type": "auth", "token": "<access token>"} or offer the subprotocols '
                '"empire.v1, empire.token.<access token>"'), BAD_TOKEN)
            return
        token = await self._token(ws, offered)
        if token is None:
            return
        try:
            if not token:
                raise tokens.TokenError("auth/invalid_token", 'authenticate first: send '
                                        '{"type": "auth", "token": "<access token>"}')
            ident = tokens.verify(self.settings.verify_secrets, token, int(time.time() * 1000))
            if self.revocations is not None:
                await self.revocations.check(ident)
        except tokens.TokenError as exc:
            await self._refuse(ws, _rejected(exc.code, str(exc)), BAD_TOKEN)
            return
        if self.open >= self.limits.ws_max_sockets:
            await self._refuse(ws, _rejected("message/unavailable",
                                             "this gateway is full; reconnect"), TRY_AGAIN_LATER)
            return
        slots: Slots | None = None
        if self.quotas is not None:
            bot = ident.player_id.startswith("b-")  # bot tokens only reach the bot runner
            ip = client_ip(ws.scope, self.limits.trusted)
            held = await self.quotas.open_socket(ident.player_id, ip, per_ip=not bot)
            if isinstance(held, Verdict):
                whose = "player" if held.limit == "ws_player" else "address"
                await self._refuse(ws, _rejected("message/rate_limited",
                                                 f"too many open connections for this {whose}"),
                                   TOO_MANY_SOCKETS)
                return
            slots = held
        self.open += 1
        out = Outbound(ws.send_text, _closer(ws, self.limits.ws_close_grace_s),
                       self.limits.ws_queue_frames, self.limits.ws_queue_bytes,
                       self.limits.ws_send_timeout_s, label=ident.player_id)
        conn = Connection(player_id=ident.player_id, name=ident.name, out=out,
                          session=ident.session)
        out.start()
        self.hub.add(conn)
        bucket = TokenBucket(self.settings.rate_per_s, self.settings.rate_burst)
        strikes = 0  # rate refusals since the bucket was last full
        await conn.send(sm.Welcome(player_id=ident.player_id, name=ident.name
                                   ).model_dump(mode="json"))
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                refused_before = bucket.refusals
                with structlog.contextvars.bound_contextvars(player_id=ident.player_id):
                    if raw is None:
                        reply: dict[str, Any] | None = _binary(message.get("bytes") or b"") \
                            if bucket.take() else _rejected("message/rate_limited",
                                                            "too many messages; slow down")
                    else:
                        with tracing.command_span("WS command"):  # one trace per command
                            reply = await self._handle_safely(conn, raw, bucket)
                if reply is not None:
                    await conn.send(reply)
                if bucket.refusals > refused_before:  # over its rate (not another refusal)
                    strikes += 1
                    if strikes > self.settings.rate_burst:
                        log.info("ws_flooding_closed", player_id=ident.player_id)
                        conn.out.end(FLOODING, "message/rate_limited: flooding")
                        break
                    # paced: the next frame is read once a token is back (ratelimit.py)
                    await asyncio.sleep(bucket.wait_s())
                elif strikes and bucket.full():
                    strikes = 0  # calmed down
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.open -= 1
            self.hub.remove(conn)
            await out.aclose()
            if slots is not None and self.quotas is not None:
                await self.quotas.close_socket(slots)

    async def _handle_safely(self, conn: Connection, raw: str,
                             bucket: TokenBucket) -> dict[str, Any] | None:
        try:
            return await self.handle(conn, raw, bucket)
        except Exception as exc:  # a backend hiccup must not drop the socket
            log.error("message_failed", error=repr(exc)[:300])
            # named by its cmd_id, so the client's waiting command gets its answer
            cmd_id, game_id = _ids_of(raw)
            return _rejected("message/unavailable",
                             "the server could not take this message; retry",
                             cmd_id=cmd_id, game_id=game_id)

    async def handle(self, conn: Connection, raw: str,
                     bucket: TokenBucket) -> dict[str, Any] | None:
        size = len(raw.encode())
        if not bucket.take():
            # named by its cmd_id and game_id (a frame within the size limit), so a client's waiting
            # command gets its answer and can send it again later (without it, a bot playing
            # faster than the rate waited out its 30 s command timeout: the "unanswered
            # commit" of the siege's victims); floods are paced, so this parse is bounded too
            cmd_id, game_id = _ids_of(raw) if size <= self.settings.max_message_bytes \
                else (None, None)
            return _rejected("message/rate_limited", "too many messages; slow down",
                             cmd_id=cmd_id, game_id=game_id)
        if size > self.settings.max_message_bytes:
            return _rejected("message/too_large",
                             f"messages are limited to {self.settings.max_message_bytes} bytes")
        try:
            data = json_guard.parse(raw, self.limits.json_max_depth)
        except json_guard.BadJson as exc:
            return _rejected("message/malformed", str(exc))
        if isinstance(data, dict) and data.get("type") in MOVES \
                and size > self.limits.ws_move_max_bytes:
            return _rejected("message/too_large",
                             f"act and commit frames are limited to "
                             f"{self.limits.ws_move_max_bytes} bytes",
                             cmd_id=_str(data.get("cmd_id")), game_id=_str(data.get("game_id")))
        if isinstance(data, dict) and data.get("v", 1) not in KNOWN_PROTOCOL_VERSIONS:
            return _rejected("message/unsupported_version", "unknown protocol version",
                             cmd_id=_str(data.get("cmd_id")))
        if isinstance(data, dict) and data.get("type") == "commit" \
                and data.get("v", 1) < SEALED_COMMIT_VERSION:
            return _rejected("message/unsupported_version",
                             f"a commit needs protocol version {SEALED_COMMIT_VERSION}: its "
                             "opening sealed to the escrow, never in clear",
                             cmd_id=_str(data.get("cmd_id")), game_id=_str(data.get("game_id")))
        try:
            msg = cm.CLIENT_ADAPTER.validate_python(data)
        except ValidationError as exc:
            cmd_id = _str(data.get("cmd_id")) if isinstance(data, dict) else None
            return _rejected("message/malformed", _brief(exc), cmd_id=cmd_id)
        if isinstance(msg, cm.Ping):
            return {"type": "pong", "v": 1}
        if isinstance(msg, cm.Auth):
            return _rejected("message/malformed", "this connection is already authenticated")
        if isinstance(msg, cm.Unwatch):
            self.hub.unwatch(conn, msg.game_id)
            return None
        if isinstance(msg, CHAT_FRAMES):
            if self.chat is None:
                return _rejected("message/unavailable", "chat is not served here",
                                 getattr(msg, "cmd_id", None))
            return await self.chat.handle(conn, msg)
        exists, seat = await self.hub.seat_of(msg.game_id, conn.player_id)
        cmd = getattr(msg, "cmd_id", None)
        if not exists:
            return _rejected("game/not_found", "no such game", cmd, msg.game_id)
        if isinstance(msg, cm.Watch):
            if seat is None and not await self.hub.spectators_allowed(msg.game_id):
                return _rejected("game/private", "only this game's players may watch it", cmd,
                                 msg.game_id)
            if self.hub.watchers_of(conn.player_id, msg.game_id, besides=conn) \
                    >= self.limits.ws_watches_per_game:
                return _rejected("message/rate_limited",
                                 f"at most {self.limits.ws_watches_per_game} of your connections "
                                 "may watch one game", cmd, msg.game_id)
            # the watch's version picks its frames: >= 3 combined (issue 25), else today's;
            # a watch without ``v`` is version 1 (as every check above reads it), not the
            # model's default
            version = msg.v if "v" in msg.model_fields_set else 1
            await self.hub.watch(conn, msg.game_id, seat, msg.after_seq, msg.after_record,
                                 version=version)
            return None
        if seat is None:
            return _rejected("seat/not_seated", "you have no seat in this game", cmd,
                             msg.game_id)
        shards = self.settings.partitions
        if self.hub.want is not None:  # its answer comes on the game's fan-out shard
            await self.hub.want(msg.game_id, pin=True)
        if isinstance(msg, cm.Act):
            body = im.SubmitAction(cmd_id=msg.cmd_id, game_id=msg.game_id, seat=seat,
                                   player_id=conn.player_id, expected_seq=msg.expected_seq,
                                   action=msg.action, key=msg.key, sig=msg.sig)
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
                  "sealed": msg.sealed, "public": msg.public, "key": msg.key, "sig": msg.sig}
        await self.out.publish(commit,
                                  stream=streams.sharded(streams.ESC_COMMITS, msg.game_id,
                                                         shards),
                                  maxlen=streams.MAXLEN_INTERNAL)
        conn.awaiting[msg.cmd_id] = (time.monotonic(), msg.game_id)  # (hub.expire_commits)
        return None  # the escrow answers with the receipt ("committed") or a refusal


def _binary(data: bytes) -> dict[str, Any]:
    """A binary frame, or a text frame whose bytes are not UTF-8 (the gateway's server hands
    those to the app as bytes instead of failing the connection)."""
    try:
        data.decode()
    except UnicodeDecodeError:
        return _rejected("message/malformed", "the frame is not valid UTF-8")
    return _rejected("message/malformed", "binary frames are not accepted; send JSON text")


def _closer(ws: WebSocket, grace_s: float) -> Close:
    """Close the socket at once, even while a send is blocked on it: the gateway's server
    (services/gateway/edge/server.py) writes the close frame and cuts the socket after
    ``grace_s``; elsewhere an ordinary close, bounded by ``grace_s``."""
    close_now = ws.scope.get("extensions", {}).get("empire.close_now", {}).get("call")

    async def close(code: int, reason: str) -> None:
        if close_now is not None:
            close_now(code, reason, grace_s)
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=code, reason=reason), grace_s)

    return close


def _ids_of(raw: str) -> tuple[str | None, str | None]:
    """The cmd_id and game_id of a message within the size limit (None where absent or not
    JSON): a refusal named by them reaches the client's waiting command, or the game's
    session for a message with no cmd_id (a ``watch``: without its game_id, a watch refused
    for the rate or a backend hiccup was never answered, and the client waited out its 30 s
    for a view)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    return _str(data.get("cmd_id")), _str(data.get("game_id"))


def _str(v: Any) -> str | None:
    return v[:64] if isinstance(v, str) else None


def _brief(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors(include_url=False, include_input=False)[:3]:
        loc = ".".join(str(x) for x in e["loc"])
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)[:300]
