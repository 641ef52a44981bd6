"""Real receivers for the notifier's tests: an SMTP server (aiosmtpd) that keeps every mail
parsed with the email package, and an HTTP server (the stdlib's) that keeps every webhook
call and can answer errors first."""

from __future__ import annotations

import email
import ssl
import threading
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from shared.runtime.valkey import free_port


@dataclass
class Mail:
    rcpt: list[str]
    msg: EmailMessage

    @property
    def text(self) -> str:
        body = self.msg.get_body(("plain",))
        return "" if body is None else str(body.get_content())

    @property
    def raw(self) -> str:
        return self.msg.as_string()


class _Handler:
    def __init__(self, box: MailSink) -> None:
        self.box = box

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=default)
        assert isinstance(msg, EmailMessage)
        with self.box.lock:
            self.box.mails.append(Mail(list(envelope.rcpt_tos), msg))
        return "250 OK"


@dataclass
class MailSink:
    """``tls``: STARTTLS with this server context, required before anything else; ``login``:
    (user, password) the server accepts (AUTH over TLS only)."""

    port: int = 0
    mails: list[Mail] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    controller: Controller | None = None
    tls: ssl.SSLContext | None = None
    login: tuple[str, str] | None = None

    def _auth(self, server: Any, session: Any, envelope: Any, mechanism: str,
              auth_data: Any) -> AuthResult:
        ok = (self.login is not None and isinstance(auth_data, LoginPassword)
              and (auth_data.login.decode(), auth_data.password.decode()) == self.login)
        return AuthResult(success=ok)

    def start(self) -> MailSink:
        self.port = free_port()
        extra: dict[str, Any] = {}
        if self.tls is not None:
            extra.update(tls_context=self.tls, require_starttls=True)
        if self.login is not None:
            extra.update(authenticator=self._auth, auth_required=True, auth_require_tls=True)
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port,
                                     **extra)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def to(self, address: str) -> list[Mail]:
        with self.lock:
            return [m for m in self.mails if address in m.rcpt]


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: bytes


class HookSink:
    """``fail_first``: answer that many calls with 503 before accepting."""

    def __init__(self, fail_first: int = 0) -> None:
        self.calls: list[Call] = []
        self.fail_first = fail_first
        self.lock = threading.Lock()
        sink = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with sink.lock:
                    sink.calls.append(Call(self.path, dict(self.headers.items()), body))
                    failing = sink.fail_first > 0
                    sink.fail_first -= 1 if failing else 0
                self.send_response(503 if failing else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> HookSink:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"
