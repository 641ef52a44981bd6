"""The gateway's HTTP server: uvicorn (h11 + websockets sans-I/O) with guards of its own
against slow and hostile clients, configured from services/gateway/edge/limits.py.

uvicorn bounds the idle time between two requests (``timeout_keep_alive``) and the number of
connections and tasks (``limit_concurrency``: HTTP 503 beyond it), but not how long a client
may take to send a request: a socket that sends nothing, or one header byte per second, stays
open for ever (slow-loris). ``GuardedH11Protocol`` adds, per connection:

* a head timeout (EMPIRE_HTTP_HEAD_TIMEOUT_S) from the connection's start, or a request's
  first byte, to the end of its head; then 408 (if something arrived) and close;
* a body timeout (EMPIRE_HTTP_BODY_TIMEOUT_S) from the end of the head to the end of the
  body; the app sees a disconnect, the client a 408 and a close;
* a write timeout (EMPIRE_HTTP_WRITE_TIMEOUT_S): a response the client stops reading for
  that long (the transport's buffer stays full) is cut.

and a connection cap that holds before a request head is complete: uvicorn's
``limit_concurrency`` answers 503 only once a whole head has arrived, so ~20k sockets that send
half a head each would take every file descriptor of the process (then accept() fails with
EMFILE, and new Valkey connections too) until their head timeouts. ``connection_cap`` is the
configured caps (EMPIRE_HTTP_MAX_CONNECTIONS + EMPIRE_WS_MAX_SOCKETS) within RLIMIT_NOFILE
less EMPIRE_FD_RESERVE (the Valkey pools, the listening socket, logs and files); a connection
accepted over it is answered a typed 503 at once and closed (its unread request discarded
for a moment first, so the client reads the answer instead of a reset).

``GuardedWebSocketProtocol`` gives the app two things uvicorn does not:

* ``scope["extensions"]["empire.close_now"]["call"](code, reason, grace_s)`` writes the
  close frame at once, even while a send is blocked on a client that does not read (uvicorn's
  own close waits behind the blocked send), and cuts the socket ``grace_s`` later unless the
  client answers the close;
* a text frame that is not UTF-8 reaches the app as bytes, which it refuses with a typed
  ``rejected``, instead of the connection being failed (1007);
* a handshake refused with an HTTP answer (429 from the rate limits) is not logged as an
  error (uvicorn logs one per refused handshake).
"""

from __future__ import annotations

import asyncio
import resource
import socket
from collections.abc import Callable
from typing import Any, Protocol

import h11
import structlog
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from services.gateway.edge import metrics as edge_metrics
from services.gateway.edge.client_ip import within
from services.gateway.edge.limits import GatewayLimits
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")

_TIMEOUT_BODY = b'{"ok":false,"code":"message/malformed","message":"the request took too long"}'
TIMEOUT_408 = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
               b"connection: close\r\ncontent-length: " + str(len(_TIMEOUT_BODY)).encode()
               + b"\r\n\r\n" + _TIMEOUT_BODY)


_BUSY_BODY = (b'{"ok":false,"code":"message/unavailable","message":"this server holds all the '
              b'connections it can; retry"}')
BUSY_503 = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"retry-after: 1\r\nconnection: close\r\ncontent-length: "
            + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)
SHED_GRACE_S = 1.0  # a shed connection's unread request is discarded this long, then closed

_LIMITED_BODY = (b'{"ok":false,"code":"message/rate_limited","message":"too many requests '
                 b'(http); retry later"}')


def limited_429(retry_after_s: int) -> bytes:
    """The answer to a connection whose address is already over its HTTP rate (the same typed
    429 the middleware gives, before any request is parsed)."""
    return (b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
            b"retry-after: " + str(retry_after_s).encode() + b"\r\nconnection: close\r\n"
            b"content-length: " + str(len(_LIMITED_BODY)).encode() + b"\r\n\r\n"
            + _LIMITED_BODY)


# peer address -> seconds until its next request fits (0: parse and decide as usual);
# services/gateway/edge/quotas.py Quotas.http_refused_now
EarlyRefusal = Callable[[str], int]


def connection_cap(limits: GatewayLimits, nofile: int | None = None) -> int:
    """The most connections (HTTP and WebSocket) one gateway process holds: the configured
    caps, within the descriptors RLIMIT_NOFILE leaves after EMPIRE_FD_RESERVE."""
    wanted = limits.http_max_connections + limits.ws_max_sockets
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if nofile is None else nofile
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - limits.fd_reserve))


def raise_nofile() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (the usual 1024 soft limit
    is far below what a gateway holds); returns the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return soft


class _Shed:
    """Connections shed over the cap that are still in their grace: bounded too (past it,
    a shed connection is aborted at once)."""

    grace = 0


class GuardedH11Protocol(H11Protocol):
    limits: GatewayLimits  # set by guarded_protocols()
    cap: int  # connection_cap(limits), set by guarded_protocols()
    early: EarlyRefusal | None = None  # set by guarded_protocols() when the rates are known

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._upgraded = False  # the WebSocket protocol owns the transport now
        self._shed = False  # accepted over the cap: answered 503, being closed

    # -- timers ----------------------------------------------------------------------------

    def _cancel(self, name: str) -> None:
        timer = getattr(self, name)
        if timer is not None:
            timer.cancel()
            setattr(self, name, None)

    def _cancel_all(self) -> None:
        for name in ("_head_timer", "_body_timer", "_write_timer"):
            self._cancel(name)

    def _arm_head(self) -> None:
        if self._head_timer is None and not self._upgraded:
            self._head_timer = self.loop.call_later(self.limits.http_head_timeout_s,
                                                    self._expired, "head")

    def _expired(self, phase: str) -> None:
        self._cancel_all()
        if self.transport.is_closing():
            return
        edge_metrics.HTTP_TIMEOUTS.labels(phase).inc()
        if phase == "write":
            self.transport.abort()
            return
        started = self.cycle is not None and self.cycle.response_started
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # the app's receive() answers http.disconnect
            self.cycle.message_event.set()
        busy = phase == "body" or bool(self.conn.trailing_data[0])
        if busy and not started:
            self.transport.write(TIMEOUT_408)
        self.transport.close()

    def _track(self) -> None:
        """Arm or stop the head and body timers from the request's state."""
        if self._upgraded or self.transport.is_closing():
            self._cancel_all()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self.conn.trailing_data[0]:
                self._arm_head()  # a request head has started
        elif state is h11.SEND_BODY:
            self._cancel("_head_timer")
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(self.limits.http_body_timeout_s,
                                                        self._expired, "body")
        else:
            self._cancel("_head_timer")
            self._cancel("_body_timer")

    # -- uvicorn hooks ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.cap:
            edge_metrics.HTTP_SHED.inc()
            self._shed_now(BUSY_503)
            return
        wait_s = self._refused_early()
        if wait_s:
            edge_metrics.RATE_LIMITED.labels("http").inc()
            self._shed_now(limited_429(wait_s))
            return
        self._arm_head()  # a connection that never sends a byte

    def _refused_early(self) -> int:
        """Seconds to wait when the peer is already over its HTTP rate (this replica's view:
        services/gateway/edge/local_rates.py), else 0. A trusted proxy's connections carry other
        clients' requests (X-Forwarded-For): those are decided per request, as usual."""
        if self.early is None:
            return 0
        peer = self.client  # uvicorn's connection_made read it from the transport
        if not peer or within(str(peer[0]), self.limits.trusted):
            return 0
        return self.early(str(peer[0]))

    def _shed_now(self, answer: bytes) -> None:
        """Refused at once (over the connection cap: a typed 503; over the address's rate: a
        typed 429): the answer, the write side closed, the request (if any) read and dropped
        for SHED_GRACE_S so the client reads the answer, not a reset; then closed."""
        self._shed = True
        self.transport.write(answer)
        if _Shed.grace >= max(16, self.limits.fd_reserve // 4) \
                or not self.transport.can_write_eof():
            self.transport.close()  # a flood of shed connections: no grace for more
            return
        _Shed.grace += 1
        self.transport.write_eof()
        self._head_timer = self.loop.call_later(SHED_GRACE_S, self.transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._shed and self._head_timer is not None:
            _Shed.grace -= 1
        self._cancel_all()
        super().connection_lost(exc)

    def eof_received(self) -> None:
        if self._shed:
            self.transport.close()  # the client read the 503 and went
            return
        super().eof_received()

    def data_received(self, data: bytes) -> None:
        if self._shed:
            return  # the request of a connection over the cap: dropped
        super().data_received(data)
        self._track()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._track()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._upgraded = True  # the WebSocket protocol takes the transport over
        self._cancel_all()
        super().handle_websocket_upgrade(event)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None and not self._upgraded:
            self._write_timer = self.loop.call_later(self.limits.http_write_timeout_s,
                                                     self._expired, "write")

    def resume_writing(self) -> None:
        self._cancel("_write_timer")
        super().resume_writing()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake was accepted
            scope["extensions"]["empire.close_now"] = {"call": self.close_now}
            scope["extensions"]["empire.send_texts"] = {"call": self.send_texts}

    async def send_texts(self, texts: list[str]) -> None:
        """Send text messages as ``send`` sends each (``websocket.send``), framed one after
        another into a single write: a writer's backlog costs one system call."""
        await self.writable.wait()
        if self.disconnected or self.close_sent or not self.handshake_complete \
                or self.initial_response is not None:
            raise ClientDisconnected()
        try:
            for text in texts:
                self.conn.send_text(text.encode())
        except InvalidState:
            raise ClientDisconnected() from None
        self.transport.write(b"".join(self.conn.data_to_send()))

    def close_now(self, code: int, reason: str, grace_s: float) -> None:
        """Queue the close frame behind whatever is buffered, tell the app the connection is
        over, and cut the socket after ``grace_s`` unless the client answers the close."""
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        if self.read_paused:  # read on, to see the client's answer to the close
            self.read_paused = False
            self.transport.resume_reading()
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(grace_s, self.transport.abort)

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message.get("type") == "websocket.http.response.body" \
                and not message.get("more_body", False):
            # a handshake answered with an HTTP refusal (a 429) is complete: uvicorn would log
            # "ASGI callable returned without completing handshake" for each one, an error
            # line per refused handshake for an attacker to fill the logs with
            self.handshake_complete = True

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text":
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.curr_msg_data_type = "bytes"  # refused by the app, typed
        super().send_receive_event_to_app()


def guarded_protocols(limits: GatewayLimits, early: EarlyRefusal | None = None,
                      ) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    http = type("GatewayH11Protocol", (GuardedH11Protocol,),
                {"limits": limits, "cap": connection_cap(limits), "early": early})
    return http, GuardedWebSocketProtocol


class Drains(Protocol):
    """What holds the open WebSockets (fanout/hub.py ``Hub``)."""

    async def drain(self, seconds: float) -> int: ...


def listening_socket(host: str, port: int) -> socket.socket:
    """The bound listening socket: replicas on one host share the port (SO_REUSEPORT: the
    kernel spreads the connections)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                         socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


class DrainingServer(uvicorn.Server):
    """uvicorn's server with a gradual drain on SIGTERM: stop accepting, fail readiness, close
    the WebSockets with 1012 spread over EMPIRE_DRAIN_S (fanout/hub.py ``Hub.drain``),
    then uvicorn's own shutdown. Keep the orchestrator's grace period above EMPIRE_DRAIN_S
    plus the stream consumers' shutdown deadline."""

    def __init__(self, config: uvicorn.Config, drain_s: float, hub: Drains) -> None:
        super().__init__(config)
        self.drain_s, self.hub = drain_s, hub

    async def shutdown(self, sockets: list[Any] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new connections; the open ones are drained below
        try:
            closed = await self.hub.drain(self.drain_s)
            log.info("drained", sockets=closed, seconds=self.drain_s)
        except Exception as exc:  # never block the stop on the drain
            log.warning("drain_failed", error=repr(exc)[:200])
        await super().shutdown(sockets)


def config(settings: Settings, limits: GatewayLimits, app: FastAPI,
           loop: str = "uvloop", early: EarlyRefusal | None = None) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` (services/gateway/app.py ``create_app``);
    ``early``: the replica's rate view, asked as each connection is accepted."""
    http, ws = guarded_protocols(limits, early)
    return uvicorn.Config(
        app, host=settings.host, port=settings.port, loop=loop, log_level="warning",
        log_config=None,  # uvicorn's records go to the JSON root handler (shared.runtime.logging)
        http=http, ws=ws, ws_max_size=settings.max_message_bytes * 4,
        proxy_headers=False,  # client addresses: services/gateway/edge/client_ip.py
        timeout_keep_alive=limits.http_keep_alive_s,
        # uvicorn counts WebSockets among its connections: room for both, within the
        # process's descriptors (connection_cap; the guard above sheds the excess at once)
        limit_concurrency=connection_cap(limits),
        h11_max_incomplete_event_size=16 * 1024,  # request line + headers
    )
