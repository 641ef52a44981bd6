"""Notifications through the whole system as processes (the supervisor ``make run`` uses),
with a real SMTP server receiving the mails: the settings over HTTP, the verification link's
redirect, a turn mail from a TurnsChanged on the TURNS stream (written here as the adjudicator
writes it), the notifier killed and restarted without a mail lost or repeated, one-click
unsubscribe, and the hostile inputs refused with typed errors."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis.asyncio as aioredis

from services.supervisor import Supervisor
from shared.protocol import turns
from shared.protocol.turns import TurnsChanged, Waiting
from shared.runtime.outbox import Outbox
from tests.e2e.conftest import start_system, with_db
from tests.support.notify_sinks import MailSink
from tests.support.waits import eventually

pytestmark = [pytest.mark.e2e, pytest.mark.full]
ADDR = "ada@example.org"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailSink]:
    sink = MailSink().start()
    yield sink
    sink.stop()


@pytest.fixture(scope="module")
def notify_system(redis_url: str, smtp: MailSink) -> Iterator[Supervisor]:
    sup = start_system(with_db(redis_url, 9), "notify", env_extra={
        "EMPIRE_SMTP_URL": smtp.url, "EMPIRE_MAIL_FROM": "hall@example.org",
        "EMPIRE_TURN_MAIL_DELAY_S": "0", "EMPIRE_NOTIFY_POLL_MS": "50",
        "EMPIRE_NOTIFY_DAILY_CAP": "4"})
    yield sup
    sup.stop()


async def publish(sup: Supervisor, game_id: str, seq: int, player: str, since: int) -> None:
    msg = TurnsChanged(game_id=game_id, game="duel", pace="turn-based", seq=seq, at_ms=since,
                       players=[player, "p-other"],
                       waiting=[Waiting(seat=0, player_id=player, since_ms=since,
                                        deadline_ms=since + 86_400_000)])
    r = aioredis.Redis.from_url(sup.redis_url or "")
    try:
        await Outbox(r).publish(msg.model_dump(mode="json"), stream=turns.TURNS)
    finally:
        await r.aclose()


def now_ms() -> int:
    return int(time.time() * 1000)


def turn_mails(smtp: MailSink, game_id: str) -> int:
    return len([m for m in smtp.to(ADDR) if game_id in str(m.msg["Subject"])])


async def test_settings_verification_turn_mail_restart_and_unsubscribe(
        notify_system: Supervisor, smtp: MailSink) -> None:
    sup = notify_system
    async with httpx.AsyncClient(base_url=sup.url, timeout=30) as http:
        me = (await http.post("/api/players", json={"name": "ada"})).json()
        auth = {"Authorization": f"Bearer {me['token']}"}
        view = (await http.get("/api/me/notifications", headers=auth)).json()
        assert view["mail_enabled"] is True and view["email"] is None

        async def put(**body: Any) -> httpx.Response:
            return await http.put("/api/me/notifications", json=body, headers=auth)

        bad = await put(email="a@b.c\r\nBcc: x@evil.example")
        assert bad.status_code == 400 and bad.json()["code"] == "notify/bad_email"
        for url in ("https://127.0.0.1/h", "https://10.0.0.1/h", "https://[::1]/h",
                    "https://localhost/h"):
            refused = await put(webhook_url=url)
            assert refused.status_code == 400, url
            assert refused.json()["code"] == "notify/webhook_private", url
        assert (await http.put("/api/me/notifications", json={"email": ADDR})).status_code == 401

        ok = await put(email=ADDR)
        assert ok.status_code == 200 and ok.json()["verification_sent"] is True
        await eventually(lambda: len(smtp.to(ADDR)) == 1, "the verification mail")
        link = next(w for w in smtp.to(ADDR)[0].text.split() if "/verify?" in w)
        assert link.startswith(sup.url)
        # a turn before the address is confirmed (and taken in by the notifier before it is):
        # nothing goes to it
        await publish(sup, "g-early", 1, me["player_id"], now_ms())
        admin = aioredis.Redis.from_url(sup.redis_url or "")
        try:
            await eventually(lambda: admin.exists("notify:game:g-early"), "g-early taken in")
        finally:
            await admin.aclose()
        confirmed = await http.get(link.removeprefix(sup.url))
        assert confirmed.status_code == 303
        assert confirmed.headers["location"] == "/?notice=email-verified#/account"
        view = (await http.get("/api/me/notifications", headers=auth)).json()
        assert view["email_verified"] is True and view["email"] == ADDR

        one_since = now_ms()
        await publish(sup, "g-one", 1, me["player_id"], one_since)
        await eventually(lambda: turn_mails(smtp, "g-one") == 1, "the turn mail")
        mail = next(m for m in smtp.to(ADDR) if "g-one" in str(m.msg["Subject"]))
        assert f"{sup.url}/#/game/g-one" in mail.text
        assert turn_mails(smtp, "g-early") == 0

        sup.kill("notifier")  # SIGKILL; the watchdog starts it again
        await publish(sup, "g-one", 1, me["player_id"], one_since)  # delivered again
        await publish(sup, "g-two", 1, me["player_id"], now_ms())
        await eventually(lambda: turn_mails(smtp, "g-two") == 1, "a turn mail after restart")
        assert turn_mails(smtp, "g-one") == 1

        unsub = str(mail.msg["List-Unsubscribe"]).strip("<>")
        path = urlsplit(unsub)
        page = await http.get(f"{path.path}?{path.query}")
        assert page.status_code == 200 and "<form" in page.text
        assert (await http.get("/api/me/notifications", headers=auth)).json()["email_turns"]
        click = await http.post(f"{path.path}?{path.query}",
                                content=b"List-Unsubscribe=One-Click",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert click.status_code == 200 and click.json()["player_id"] == me["player_id"]
        view = (await http.get("/api/me/notifications", headers=auth)).json()
        assert view["email_turns"] is False
        forged = await http.post(f"{path.path}?{path.query[:-2]}xx")
        assert forged.status_code == 400 and forged.json()["code"] == "notify/bad_token"

        # hostile: junk links and bodies, and the daily cap (4: three mails so far)
        for junk in ("", "x" * 201, "nope"):
            answer = await http.get("/api/me/notifications/verify", params={"token": junk})
            assert answer.status_code == 400 and answer.json()["code"] == "notify/bad_token"
        unknown = await put(email_turns=True, admin=True)
        assert unknown.status_code == 400 and unknown.json()["code"] == "notify/bad_request"
        wrong = await put(email_turns="yes")
        assert wrong.json()["code"] == "notify/bad_request"
        fourth = await put(email="second@example.org")
        assert fourth.status_code == 200, (fourth.json(), [m.msg["Subject"] for m in smtp.mails])
        await eventually(lambda: len(smtp.to("second@example.org")) == 1, "the 4th mail")
        capped = await put(email="third@example.org")
        assert capped.status_code == 429 and capped.json()["code"] == "notify/capped"
        view = (await http.get("/api/me/notifications", headers=auth)).json()
        assert view["email"] == "second@example.org"

        # the account's data: the export names the address; deleting the player forgets it
        export = (await http.get("/api/account/export", headers=auth)).json()
        assert export["notifications"]["email"] == "second@example.org"
        gone = await http.request("DELETE", "/api/account", json={"confirm": me["name"]},
                                  headers=auth)
        assert gone.status_code == 200
        admin = aioredis.Redis.from_url(sup.redis_url or "")
        try:
            key = f"notify:{{{me['player_id']}}}:prefs"
            await eventually(lambda: _gone(admin, key), "the settings forgotten")
        finally:
            await admin.aclose()


async def _gone(admin: Any, key: str) -> bool:
    return not await admin.exists(key)
