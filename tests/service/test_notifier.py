"""The notifier end to end on a real Valkey, a real SMTP server (aiosmtpd; every mail parsed
with the email package) and a real HTTP server for webhooks: verification, the turn mail, the
reminder, the daily cap, one-click unsubscribe, webhooks signed and retried, a restart that
neither loses nor repeats a mail, and the hostile inputs (private webhook targets, header
injection). TurnsChanged entries are made here, as the adjudicator publishes them
(shared/protocol/turns.py). Time is passed in: ``clock.now`` is a number the test moves."""

from __future__ import annotations

import hashlib
import hmac
import ssl
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
import structlog
import trustme

from services.notifier import core
from services.notifier import service as notifier_service
from services.notifier.mail import SmtpMailer
from services.notifier.store import marker_key
from shared.runtime import metrics
from tests.support.notify_sinks import HookSink, MailSink
from tests.support.notify_system import (
    ADDR,
    HOUR,
    PUBLIC,
    T0,
    Clock,
    System,
    no_secrets,
    turns,
    verified,
)

pytestmark = pytest.mark.service

DB = 13


def counted(channel: str, outcome: str) -> float:
    """empire_notify_total for turn messages on ``channel`` with ``outcome``."""
    value = metrics.REGISTRY.get_sample_value(
        "empire_notify_total", {"kind": "turn", "channel": channel, "outcome": outcome})
    return value or 0.0


async def test_an_unverified_address_gets_only_its_verification_mail(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    out = await sys.put(email=ADDR, email_turns=True)
    assert out["verification_sent"] and out["mail_enabled"] and not out["email_verified"]
    token = (await sys.store.prefs("p-ann"))["verify_token"]
    due_keys = sys.store.timers.keys()
    queued = [m for key in due_keys for m in await r.zrange(key, 0, -1)]
    assert len(queued) == 1 and token.encode() not in queued[0]  # the link's token: never
    await sys.notifier.dispatch(turns("g-1", 1, T0))
    await sys.poll()
    mails = smtp.to(ADDR)
    assert len(mails) == 1, [m.msg["Subject"] for m in mails]
    [mail] = mails
    assert "Confirm" in mail.msg["Subject"] and "g-1" not in mail.raw
    link = next(w for w in mail.text.split() if w.startswith(PUBLIC))
    assert "/api/me/notifications/verify?token=" in link
    # the same address again while its link is valid: no second mail
    assert not (await sys.put(email=ADDR))["verification_sent"]
    await sys.poll()
    assert len(smtp.to(ADDR)) == 1
    # opened: confirmed; the link is spent
    token = parse_qs(urlsplit(link).query)["token"][0]
    ok = await sys.prefs.handle({"op": "notify_verify", "token": token})
    assert ok == {"ok": True, "player_id": "p-ann"}
    again = await sys.prefs.handle({"op": "notify_verify", "token": token})
    assert again["code"] == "notify/bad_token"
    assert (await sys.prefs.handle({"op": "notify_get", "player_id": "p-ann"}))[
        "email_verified"]


async def test_turn_mail_once_per_wait_names_the_game_and_links_to_it(
        r: Any, smtp: MailSink, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    with structlog.testing.capture_logs() as logs:
        monkeypatch.setattr(notifier_service, "log", structlog.get_logger("notifier"))
        entry = turns("g-7", 3, T0, deadline=T0 + 48 * HOUR)
        await sys.notifier.dispatch(entry)
        await sys.notifier.dispatch(entry)  # redelivered
        await sys.poll()
        await sys.notifier.dispatch(entry)
        await sys.poll()
    turn = [m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]
    assert len(turn) == 1
    mail = turn[0]
    assert "g-7" in mail.msg["Subject"] and f"{PUBLIC}/#/game/g-7" in mail.text
    assert mail.msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail.msg["List-Unsubscribe"].startswith(f"<{PUBLIC}/api/notifications/unsubscribe?")
    assert mail.rcpt == [ADDR] and mail.msg["Bcc"] is None
    # a new wait in the same game (the turn came back): one more
    clock.now = T0 + HOUR
    await sys.notifier.dispatch(turns("g-7", 5, T0 + HOUR, deadline=T0 + 49 * HOUR))
    await sys.poll()
    assert len([m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]) == 2
    no_secrets(*(m.raw for m in smtp.mails), repr(logs))


async def test_reminder_before_the_deadline_once_and_none_after_a_move(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    await sys.notifier.dispatch(turns("g-r", 1, T0, deadline=T0 + 10 * HOUR))
    await sys.poll()
    clock.now = T0 + 9 * HOUR - 1  # 1 h left (20% would be 2 h: the later moment is 1 h)
    await sys.poll()
    assert not [m for m in smtp.to(ADDR) if "Reminder" in m.msg["Subject"]]
    clock.now = T0 + 9 * HOUR
    await sys.poll()
    await sys.poll()
    reminders = [m for m in smtp.to(ADDR) if "Reminder" in m.msg["Subject"]]
    assert len(reminders) == 1 and "g-r" in reminders[0].msg["Subject"]
    # a game whose player moved before the reminder: none
    start = clock.now
    await sys.notifier.dispatch(turns("g-s", 1, start, deadline=start + 10 * HOUR))
    await sys.poll()
    await sys.notifier.dispatch(turns("g-s", 2, start + HOUR, player="p-bob"))
    clock.now = start + 10 * HOUR
    await sys.poll()
    assert not [m for m in smtp.to(ADDR) if "Reminder" in m.msg["Subject"]
                and "g-s" in m.msg["Subject"]]


async def test_daily_cap_stops_mail_and_a_new_address_is_refused(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url, notify_daily_cap=3)
    await verified(sys, smtp)  # mail 1 of 3: the verification
    for i in range(4):
        await sys.notifier.dispatch(turns(f"g-{i}", 1, T0 + i))
    clock.now = T0 + 10
    await sys.poll()
    assert len(smtp.to(ADDR)) == 3  # the verification and two turn mails
    out = await sys.put(email="other@example.org")
    assert out["code"] == "notify/capped"
    assert (await sys.prefs.handle({"op": "notify_get", "player_id": "p-ann"}))[
        "email"] == ADDR
    clock.now = T0 + 24 * HOUR  # the next UTC day counts afresh
    await sys.notifier.dispatch(turns("g-next", 1, clock.now))
    await sys.poll()
    assert len(smtp.to(ADDR)) == 4


async def test_one_click_unsubscribe_stops_turn_mails(r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    await sys.notifier.dispatch(turns("g-u", 1, T0))
    await sys.poll()
    [mail] = [m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]
    url = mail.msg["List-Unsubscribe"].strip("<>")
    token = parse_qs(urlsplit(url).query)["token"][0]
    forged = token[:-1] + ("0" if token[-1] != "0" else "1")
    bad = await sys.prefs.handle({"op": "notify_unsubscribe", "token": forged})
    assert bad["code"] == "notify/bad_token"
    other = await sys.prefs.handle({"op": "notify_unsubscribe",
                                    "token": token.replace("p-ann", "p-bob")})
    assert other["code"] == "notify/bad_token"
    ok = await sys.prefs.handle({"op": "notify_unsubscribe", "token": token})
    assert ok == {"ok": True, "player_id": "p-ann"}
    await sys.notifier.dispatch(turns("g-v", 1, T0 + 5))
    await sys.poll()
    assert len([m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]) == 1


async def test_a_restart_neither_loses_nor_repeats_a_mail(r: Any, smtp: MailSink) -> None:
    clock = Clock()
    first = System(r, clock, smtp.url, turn_mail_delay_s=300)
    await verified(first, smtp)
    await first.notifier.dispatch(turns("g-a", 1, T0))
    await first.notifier.dispatch(turns("g-b", 1, T0))
    await first.poll()  # not due yet: nothing
    assert not [m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]

    class Dies(BaseException):
        pass

    class DyingMailer(SmtpMailer):
        async def send(self, msg: Any) -> None:
            raise Dies  # the process dies after claiming, before the server took the mail

    first.notifier.mailer = DyingMailer(smtp.url, "hall@example.org")
    clock.now = T0 + 300_000
    with pytest.raises(Dies):
        await first.poll()
    # a new process on the same Valkey: the claimed one once its lease ends, and the other
    second = System(r, clock, smtp.url, turn_mail_delay_s=300)
    clock.now = T0 + 300_000 + 61_000
    await second.poll()
    await second.poll()
    got = sorted(m.msg["Subject"] for m in smtp.to(ADDR) if "turn" in m.msg["Subject"])
    assert len(got) == 2 and "g-a" in got[0] and "g-b" in got[1]
    # and another restart, with the entries delivered again: nothing more
    third = System(r, clock, smtp.url, turn_mail_delay_s=300)
    await third.notifier.dispatch(turns("g-a", 1, T0))
    await third.notifier.dispatch(turns("g-b", 1, T0))
    clock.now += 3 * 61_000
    await third.poll()
    assert len([m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]]) == 2


async def test_mail_server_down_is_retried_with_back_off(r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    down = System(r, clock, "smtp://127.0.0.1:9")  # nothing listens there
    await down.notifier.dispatch(turns("g-d", 1, T0))
    await down.poll()
    assert await r.get(marker_key("p-ann", f"g-d:{T0}:turn:mail")) == b"sending:1:0"
    clock.now = T0 + 29_000
    await sys.poll()
    assert not [m for m in smtp.to(ADDR) if "g-d" in m.msg["Subject"]]
    clock.now = T0 + 31_000  # the first retry, 30 s after
    await sys.poll()
    assert len([m for m in smtp.to(ADDR) if "g-d" in m.msg["Subject"]]) == 1


async def test_webhook_signed_retried_and_delivered_once(r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sink = HookSink(fail_first=2).start()
    try:
        sys = System(r, clock, smtp.url, notify_allow_private=True)
        before = {o: counted("hook", o) for o in ("retry", "sent")}
        out = await sys.put(webhook_url=sink.url)
        secret = out["webhook_secret"]
        assert len(secret) >= 32 and out["webhook_url"] == sink.url
        view = await sys.prefs.handle({"op": "notify_get", "player_id": "p-ann"})
        assert "webhook_secret" not in view and secret not in repr(view)
        await sys.notifier.dispatch(turns("g-h", 2, T0, deadline=T0 + 20 * HOUR))
        await sys.poll()
        clock.now += 30_000
        await sys.poll()
        clock.now += 60_000
        await sys.poll()
        clock.now += 120_000
        await sys.poll()
        assert len(sink.calls) == 3
        ok = sink.calls[-1]
        body = orjson.loads(ok.body)
        assert body["game_id"] == "g-h" and "g-h" in body["text"] and body["event"] == "turn"
        assert body["url"] == f"{PUBLIC}/#/game/g-h"
        ts = ok.headers["X-Empire-Timestamp"]
        want = hmac.new(secret.encode(), ts.encode() + b"." + ok.body, hashlib.sha256)
        assert ok.headers["X-Empire-Signature"] == "sha256=" + want.hexdigest()
        assert len({c.headers["X-Empire-Delivery"] for c in sink.calls}) == 1
        assert counted("hook", "retry") == before["retry"] + 2
        assert counted("hook", "sent") == before["sent"] + 1
        clock.now += 3_600_000
        await sys.poll()
        assert len(sink.calls) == 3
        no_secrets(*(c.body.decode() for c in sink.calls))
    finally:
        sink.stop()


@pytest.mark.parametrize("url,code", [
    ("https://127.0.0.1/hook", "notify/webhook_private"),
    ("https://10.0.0.1/hook", "notify/webhook_private"),
    ("https://[::1]/hook", "notify/webhook_private"),
    ("https://[::ffff:127.0.0.1]/hook", "notify/webhook_private"),
    ("https://169.254.169.254/latest", "notify/webhook_private"),
    ("https://localhost/hook", "notify/webhook_private"),
    ("http://93.184.216.34/hook", "notify/bad_webhook"),
    ("https://user:pw@93.184.216.34/hook", "notify/bad_webhook"),
    ("https://no-such-host.invalid/hook", "notify/webhook_unresolvable"),
    ("https://93.184.216.34/a b", "notify/bad_webhook"),
])
async def test_webhook_to_private_addresses_is_refused(r: Any, url: str, code: str) -> None:
    sys = System(r, Clock(), "")
    out = await sys.put(webhook_url=url)
    assert out["ok"] is False and out["code"] == code, out
    assert await sys.store.prefs("p-ann") == {}  # nothing changed


@pytest.mark.parametrize("bad", ["a@b.c\r\nBcc: x@evil.example", "a@b.c\nBcc: x",
                                 "a@b.c, x@evil.example", "Ann <a@b.c>", "a@b", "@b.c",
                                 "a" * 300 + "@b.c", 42])
async def test_header_injection_and_bad_addresses_are_refused(
        r: Any, smtp: MailSink, bad: Any) -> None:
    sys = System(r, Clock(), smtp.url)
    out = await sys.put(email=bad)
    assert out["code"] == "notify/bad_email"
    await sys.poll()
    assert smtp.mails == [] and await sys.store.prefs("p-ann") == {}


async def test_without_smtp_nothing_is_mailed_and_the_api_says_so(r: Any) -> None:
    sys = System(r, Clock(), "")
    view = await sys.prefs.handle({"op": "notify_get", "player_id": "p-ann"})
    assert view["mail_enabled"] is False
    assert (await sys.put(email=ADDR))["code"] == "notify/mail_off"


async def test_real_time_games_and_malformed_entries_send_nothing(
        r: Any, smtp: MailSink, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    await sys.notifier.dispatch(turns("g-rt", 1, T0, pace="real-time"))
    bad = {**turns("g-x", 1, T0), "hand": ["SECRET-card"], "nonce": "SECRET-nonce"}
    with structlog.testing.capture_logs() as logs:
        # a logger first used here: the service's own may be cached already (the logging
        # setup caches loggers on first use), and a cached logger bypasses the capture
        monkeypatch.setattr(notifier_service, "log", structlog.get_logger("notifier"))
        await sys.notifier.dispatch(bad)
    await sys.poll()
    assert [m for m in smtp.to(ADDR) if "turn" in m.msg["Subject"]] == []
    assert "SECRET" not in repr(logs) and logs[0]["event"] == "malformed_internal_message"


async def test_a_webhook_that_keeps_failing_is_dropped_after_its_tries(
        r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sink = HookSink(fail_first=100).start()
    try:
        sys = System(r, clock, smtp.url, notify_allow_private=True, notify_tries=3)
        await sys.put(webhook_url=sink.url)
        await sys.notifier.dispatch(turns("g-f", 1, T0))
        for _ in range(6):
            await sys.poll()
            clock.now += 3_600_000
        assert len(sink.calls) == 3  # EMPIRE_NOTIFY_TRIES, then no more
        assert await r.get(marker_key("p-ann", f"g-f:{T0}:turn:hook")) == b"failed"
    finally:
        sink.stop()


async def test_mail_over_starttls_with_a_password_and_never_a_password_in_the_clear(
        r: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))  # the mailer checks the server's cert
    secure = MailSink(tls=server_ctx, login=("hall", "s3cret")).start()
    plain = MailSink(login=("hall", "s3cret")).start()
    try:
        clock = Clock()
        sys = System(r, clock, f"smtp://hall:s3cret@127.0.0.1:{secure.port}")
        assert (await sys.put(email=ADDR))["verification_sent"]
        await sys.poll()
        assert len(secure.to(ADDR)) == 1
        # a server without STARTTLS: the password is not sent, the mail waits for a retry
        other = System(r, clock, f"smtp://hall:s3cret@127.0.0.1:{plain.port}")
        await other.put("p-bob", email="bob@example.org")
        await other.poll()
        assert plain.mails == []
        assert (await r.get(marker_key("p-bob", "p-bob:" + core.token_ref(
            (await other.store.prefs("p-bob"))["verify_token"]) + ":verify:mail"))
                ).startswith(b"sending:1:")
    finally:
        secure.stop()
        plain.stop()


async def test_the_address_policy_is_checked_again_at_every_call(
        r: Any, smtp: MailSink, hooks: HookSink) -> None:
    """A URL stored while its host was public (here: set in development) whose host is now
    private is not called: the check runs on the address the call would connect to."""
    clock = Clock()
    dev = System(r, clock, smtp.url, notify_allow_private=True)
    loopback = hooks.url.replace("http://", "https://")
    assert (await dev.put(webhook_url=loopback))["ok"]
    prod = System(r, clock, smtp.url)
    await prod.notifier.dispatch(turns("g-p", 1, T0))
    await prod.poll()
    clock.now += 3_600_000
    await prod.poll()
    assert hooks.calls == []  # refused, not failed to connect (that would be retried)
    assert await r.get(marker_key("p-ann", f"g-p:{T0}:turn:hook")) == b"failed"


async def test_a_deleted_player_is_forgotten_and_mailed_no_more(r: Any, smtp: MailSink) -> None:
    clock = Clock()
    sys = System(r, clock, smtp.url)
    await verified(sys, smtp)
    await sys.notifier.dispatch(turns("g-del", 1, T0 + 1))  # armed while the address is set
    out = await sys.prefs.handle({"op": "notify_forget", "player_id": "p-ann"})
    assert out == {"ok": True, "player_id": "p-ann"}
    assert await sys.store.prefs("p-ann") == {}
    clock.now = T0 + 10
    await sys.poll()
    assert [m for m in smtp.to(ADDR) if "g-del" in str(m.msg["Subject"])] == []
