"""Mail over SMTP: ``EMPIRE_SMTP_URL`` (``smtp://user:password@host:port``, STARTTLS when the
server offers it, and a password is never sent without it; or ``smtps://...``, TLS from the
start) and ``EMPIRE_MAIL_FROM``. The stdlib
``smtplib`` runs in a worker thread, one connection per mail (a turn mail is rare: minutes
apart per player), so a slow mail server never holds the event loop.

Every mail is built here from the core's text (services/notifier/core.py) and addresses the
core has checked: one recipient, no header made from a player's input but the address."""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import unquote, urlsplit

SMTP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class SmtpConfig:
    tls: bool  # smtps: TLS from the start
    host: str
    port: int
    user: str
    password: str

    @classmethod
    def parse(cls, url: str) -> SmtpConfig:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("EMPIRE_SMTP_URL must be smtp://[user:password@]host[:port] or "
                             "smtps://...")
        tls = parts.scheme == "smtps"
        return cls(tls, parts.hostname, parts.port or (465 if tls else 587),
                   unquote(parts.username or ""), unquote(parts.password or ""))


def build(sender: str, to: str, subject: str, body: str, message_id: str,
          headers: dict[str, str] | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate(usegmt=True)
    msg["Message-ID"] = message_id
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to it
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(body)
    return msg


class SmtpMailer:
    """``send`` raises on any failure (refused, unreachable, timed out): the caller retries
    later with back-off."""

    def __init__(self, url: str, sender: str) -> None:
        self.config = SmtpConfig.parse(url) if url else None
        self._sender = sender

    @property
    def enabled(self) -> bool:
        return self.config is not None and bool(self._sender)

    @property
    def sender(self) -> str:
        return self._sender

    async def send(self, msg: EmailMessage) -> None:
        if self.config is None:
            raise RuntimeError("mail is off (no EMPIRE_SMTP_URL)")
        await asyncio.to_thread(self._send, self.config, msg)

    @staticmethod
    def _send(c: SmtpConfig, msg: EmailMessage) -> None:
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if c.tls:
            smtp = smtplib.SMTP_SSL(c.host, c.port, timeout=SMTP_TIMEOUT_S, context=context)
        else:
            smtp = smtplib.SMTP(c.host, c.port, timeout=SMTP_TIMEOUT_S)
        with smtp:
            smtp.ehlo()
            secure = c.tls
            if not c.tls and smtp.has_extn("starttls"):
                smtp.starttls(context=context)
                smtp.ehlo()
                secure = True
            if c.user and not secure:  # never a password over plaintext
                raise smtplib.SMTPException("the mail server offers no TLS: not signing in")
            if c.user:
                smtp.login(c.user, c.password)
            smtp.send_message(msg)
