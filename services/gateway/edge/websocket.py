"""The WebSocket edge: authenticate, count the socket against its quotas, decode, stamp the
seat, forward, answer every refusal.

Authentication, never in the URL: the ``Sec-WebSocket-Protocol`` offer
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

Each text frame is decoded once into its typed message (edge/frames.py) and dispatched once
by its type: to the hub (watch, unwatch), the chat (chat/table_talk.py), or, for a move, to
the game's shard of the adjudicator's actions or the escrow's commits, stamped with the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any, assert_never

import orjson
import structlog
from fastapi import WebSocket, WebSocketDisconnect

from services.gateway.auth.sessions import BAD_ORIGIN, Revocations, origin_allowed
from services.gateway.chat.table_talk import Chat
from services.gateway.edge import frames
from services.gateway.edge.client_ip import client_ip
from services.gateway.edge.frames import rejected
from services.gateway.edge.limits import GatewayLimits
from services.gateway.edge.quotas import Quotas, Verdict
from services.gateway.edge.ratelimit import TokenBucket
from services.gateway.fanout.hub import Connection, Hub
from services.gateway.fanout.outbound import Close, Outbound
from services.gateway.ports import Publisher
from shared.protocol import client as cm
from shared.protocol import server as sm
from shared.protocol import streams
from shared.protocol.versions import PROTOCOL_VERSION
from shared.runtime import tokens, tracing
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")

TOO_MANY_SOCKETS = 4029  # close code after a typed message/rate_limited
FLOODING = 1008  # policy violation: more rate refusals than the burst without calming down
TRY_AGAIN_LATER = 1013  # this process is full
BAD_TOKEN = 4401
SUBPROTOCOL = "empire.v1"
TOKEN_PROTOCOL = "empire.token."
Reply = dict[str, Any] | None  # a frame's answer (None: none, or it answers itself)


class Edge:
    def __init__(self, settings: Settings, limits: GatewayLimits, hub: Hub, chat: Chat,
                 out: Publisher, quotas: Quotas, revocations: Revocations) -> None:
        self.settings = settings
        self.limits = limits
        self.hub = hub
        self.chat = chat
        self.out = out  # the moves' stream publishes (the Outbox)
        self.quotas = quotas
        self.revocations = revocations
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
            await self._refuse(ws, rejected("auth/bad_origin", "this page's origin may not "
                                            "open a socket here"), BAD_ORIGIN)
            return
        if "token" in ws.query_params:  # a token in the URL: refused, never read
            log.info("ws_token_in_url_refused")
            await self._refuse(ws, rejected(
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
            ident = tokens.verify(self.settings.token_verify_keys, token, int(time.time() * 1000))
            await self.revocations.check(ident)
        except tokens.TokenError as exc:
            await self._refuse(ws, rejected(exc.code, str(exc)), BAD_TOKEN)
            return
        if self.open >= self.limits.ws_max_sockets:
            await self._refuse(ws, rejected("message/unavailable",
                                            "this gateway is full; reconnect"), TRY_AGAIN_LATER)
            return
        bot = ident.player_id.startswith("b-")  # bot tokens only reach the bot runner
        ip = client_ip(ws.scope, self.limits.trusted)
        slots = await self.quotas.open_socket(ident.player_id, ip, per_ip=not bot)
        if isinstance(slots, Verdict):
            whose = "player" if slots.limit == "ws_player" else "address"
            await self._refuse(ws, rejected("message/rate_limited",
                                            f"too many open connections for this {whose}"),
                               TOO_MANY_SOCKETS)
            return
        self.open += 1
        out = Outbound(ws.send_text, _closer(ws, self.limits.ws_close_grace_s),
                       self.limits.ws_queue_frames, self.limits.ws_queue_bytes,
                       self.limits.ws_send_timeout_s, label=ident.player_id,
                       send_texts=_extension(ws, "empire.send_texts"))
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
                        reply: Reply = frames.binary(message.get("bytes") or b"") \
                            if bucket.take() else rejected("message/rate_limited",
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
            await self.quotas.close_socket(slots)

    async def _handle_safely(self, conn: Connection, raw: str, bucket: TokenBucket) -> Reply:
        try:
            return await self.handle(conn, raw, bucket)
        except Exception as exc:  # a backend hiccup must not drop the socket
            log.error("message_failed", error=repr(exc)[:300])
            # named by its cmd_id, so the client's waiting command gets its answer
            cmd_id, game_id = frames.ids_of(raw)
            return rejected("message/unavailable",
                            "the server could not take this message; retry",
                            cmd_id=cmd_id, game_id=game_id)

    async def handle(self, conn: Connection, raw: str, bucket: TokenBucket) -> Reply:
        if not bucket.take():
            # named by its cmd_id and game_id (a frame within the size limit), so a client's
            # waiting command gets its answer and can send it again later instead of waiting
            # out its own timeout; floods are paced, so this parse is bounded too
            cmd_id, game_id = frames.ids_of(raw) \
                if len(raw.encode()) <= self.settings.max_message_bytes else (None, None)
            return rejected("message/rate_limited", "too many messages; slow down",
                            cmd_id=cmd_id, game_id=game_id)
        try:
            msg = frames.decode(raw, self.settings.max_message_bytes, self.limits)
        except frames.Refused as exc:
            return exc.reply
        return await self.dispatch(conn, msg)

    async def dispatch(self, conn: Connection, msg: cm.ClientMessage) -> Reply:
        """One typed message, to whoever answers it."""
        chat = self.chat
        match msg:
            case cm.Ping():
                return {"type": "pong", "v": 1}
            case cm.Auth():
                return rejected("message/malformed", "this connection is already authenticated")
            case cm.Watch():
                return await self.watch(conn, msg)
            case cm.Unwatch():
                self.hub.unwatch(conn, msg.game_id)
                return None
            case cm.Act():
                return await self.act(conn, msg)
            case cm.Commit():
                return await self.commit(conn, msg)
            case cm.ChatJoin():
                return await chat.answer(chat.join(conn, msg.table_id, msg.game_id),
                                         msg.cmd_id, msg.game_id, ack=False)
            case cm.ChatLeave():
                chat.leave(conn, msg.table_id, msg.game_id)
                return None
            case cm.ChatSend():
                return await chat.answer(chat.post(conn, msg), msg.cmd_id, msg.game_id)
            case cm.ChatMute():
                return await chat.answer(chat.mute(conn, msg), msg.cmd_id)
            case cm.ChatReport():
                return await chat.answer(chat.report(conn, msg), msg.cmd_id, msg.game_id)
            case _:
                assert_never(msg)

    async def watch(self, conn: Connection, msg: cm.Watch) -> Reply:
        place = await self.hub.place(msg.game_id, conn.player_id)
        if not place.exists:
            return rejected("game/not_found", "no such game", None, msg.game_id)
        if place.seat is None and not place.spectators:
            return rejected("game/private", "only this game's players may watch it", None,
                            msg.game_id)
        if self.hub.watchers_of(conn.player_id, msg.game_id, besides=conn) \
                >= self.limits.ws_watches_per_game:
            return rejected("message/rate_limited",
                            f"at most {self.limits.ws_watches_per_game} of your connections "
                            "may watch one game", None, msg.game_id)
        # the watch's version picks its frames (>= 3 combined); a watch without ``v`` is
        # version 1, as the frame's guards read it, not the model's default
        version = msg.v if "v" in msg.model_fields_set else 1
        await self.hub.watch(conn, msg.game_id, place.seat, msg.after_seq, msg.after_record,
                             version=version)
        return None

    async def act(self, conn: Connection, msg: cm.Act) -> Reply:
        seat = await self._seat(conn, msg.game_id)
        if not isinstance(seat, int):
            return rejected(seat[0], seat[1], msg.cmd_id, msg.game_id)
        # im.SubmitAction's wire form, built from the validated message
        body = {"v": PROTOCOL_VERSION, "type": "submit_action", "cmd_id": msg.cmd_id,
                "game_id": msg.game_id, "seat": seat, "player_id": conn.player_id,
                "expected_seq": msg.expected_seq, "action": msg.action, "key": msg.key,
                "sig": msg.sig}
        await self.out.publish(body, stream=streams.sharded(streams.ADJ_ACTIONS, msg.game_id,
                                                            self.settings.partitions),
                               maxlen=streams.MAXLEN_INTERNAL)
        return {"type": "accepted", "v": 1, "cmd_id": msg.cmd_id}

    async def commit(self, conn: Connection, msg: cm.Commit) -> Reply:
        seat = await self._seat(conn, msg.game_id)
        if not isinstance(seat, int):
            return rejected(seat[0], seat[1], msg.cmd_id, msg.game_id)
        # im.CommitChoice's wire form, built from the validated message
        body = {"v": PROTOCOL_VERSION, "type": "commit_choice", "cmd_id": msg.cmd_id,
                "game_id": msg.game_id, "seat": seat, "player_id": conn.player_id,
                "round_id": msg.round_id, "slot": msg.slot, "commitment": msg.commitment,
                "sealed": msg.sealed, "public": msg.public, "key": msg.key, "sig": msg.sig}
        await self.out.publish(body, stream=streams.sharded(streams.ESC_COMMITS, msg.game_id,
                                                            self.settings.partitions),
                               maxlen=streams.MAXLEN_INTERNAL)
        conn.awaiting[msg.cmd_id] = (time.monotonic(), msg.game_id)  # (hub.expire_commits)
        return None  # the escrow answers with the receipt ("committed") or a refusal

    async def _seat(self, conn: Connection, game_id: str) -> int | tuple[str, str]:
        """The player's seat for a move (the game's shard read from now on, for the answer),
        or the refusal's code and message."""
        place = await self.hub.for_command(game_id, conn.player_id)
        if not place.exists:
            return "game/not_found", "no such game"
        if place.seat is None:
            return "seat/not_seated", "you have no seat in this game"
        return place.seat


def _extension(ws: WebSocket, name: str) -> Callable[..., Any] | None:
    """The callable a server offers as ASGI extension ``name`` (services/gateway/edge/server.py
    offers ``empire.*``), or None under another server."""
    call: Callable[..., Any] | None = ws.scope.get("extensions", {}).get(name, {}).get("call")
    return call


def _closer(ws: WebSocket, grace_s: float) -> Close:
    """Close the socket at once, even while a send is blocked on it: the gateway's server
    (services/gateway/edge/server.py) writes the close frame and cuts the socket after
    ``grace_s``; elsewhere an ordinary close, bounded by ``grace_s``."""
    close_now = _extension(ws, "empire.close_now")

    async def close(code: int, reason: str) -> None:
        if close_now is not None:
            close_now(code, reason, grace_s)
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=code, reason=reason), grace_s)

    return close
