"""A player's notification settings, asked for by the gateway on ``notify:rpc``
(docs/protocol.md "Notifications"): read them, change them, confirm an address from its
verification link, the one-click unsubscribe, and forget them when the account is deleted
(``notify_forget``, sent by the gateway once the lobby has deleted the player).

Every change is checked whole before anything is written (a refusal changes nothing). Setting
an address stores it unconfirmed and sends one verification mail (through the due-queue, so it
is durable like any other); nothing else goes to it until its link is opened. Setting it again
while its link is still valid sends nothing more. Setting a webhook URL makes a new signing
secret, shown in that answer only.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import structlog

from services.notifier import core
from services.notifier.ports import HookSender, Mailer, NotifyStorePort
from services.notifier.service import now_ms
from shared.runtime.settings import Settings

log = structlog.get_logger("notifier")
VERIFY_TTL_S = 2 * 86400  # a verification link works this long
FIELDS = ("email", "email_turns", "webhook_url")
TOKEN_MAX = 200


def refused(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "code": code, "message": message}


class Preferences:
    def __init__(self, settings: Settings, store: NotifyStorePort, mailer: Mailer,
                 hooks: HookSender, clock: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.clock = clock
        self.store = store
        self.mailer = mailer
        self.hooks = hooks

    async def handle(self, body: dict[str, Any]) -> dict[str, Any]:
        op = body.get("op")
        player = body.get("player_id")
        try:
            if op == "notify_get" and isinstance(player, str) and player:
                return {"ok": True, **await self.view(player)}
            if op == "notify_put" and isinstance(player, str) and player:
                return {"ok": True, **await self.put(player, str(body.get("name", "")),
                                                     body.get("fields"))}
            if op == "notify_forget" and isinstance(player, str) and player:
                await self.store.forget(player)
                log.info("settings_forgotten", player=player)
                return {"ok": True, "player_id": player}
            if op == "notify_verify":
                return {"ok": True, "player_id": await self.verify(body.get("token"))}
            if op == "notify_unsubscribe":
                return {"ok": True, "player_id": await self.unsubscribe(body.get("token"))}
        except core.NotifyError as exc:
            return refused(exc.code, exc.message)
        return refused("notify/bad_request", "unknown notifier request")

    async def view(self, player: str) -> dict[str, Any]:
        p = await self.store.prefs(player)
        email = p.get("email") or None
        return {"email": email, "email_verified": bool(email) and p.get("verified") == email,
                "email_turns": p.get("email_turns", "1") == "1",
                "webhook_url": p.get("hook_url") or None, "mail_enabled": self.mailer.enabled,
                "turn_mail_delay_s": self.settings.turn_mail_delay_s}

    async def put(self, player: str, name: str, fields: object) -> dict[str, Any]:
        if not isinstance(fields, dict) or not fields or set(fields) - set(FIELDS):
            raise core.NotifyError("notify/bad_request",
                                   "a JSON object with email, email_turns and/or webhook_url")
        p = await self.store.prefs(player)
        values: dict[str, str] = {"name": name[:64]}
        drop: list[str] = []
        out: dict[str, Any] = {}
        verify_to: str | None = None
        # -- check everything first ---------------------------------------------------------
        if "email_turns" in fields:
            if not isinstance(fields["email_turns"], bool):
                raise core.NotifyError("notify/bad_request", "email_turns is true or false")
            values["email_turns"] = "1" if fields["email_turns"] else "0"
        if "webhook_url" in fields:
            url = fields["webhook_url"]
            if url is None or url == "":
                drop += ["hook_url", "hook_secret"]
            elif url != p.get("hook_url"):
                await self.hooks.check(url)  # typed refusal: bad, unresolvable, private
                values["hook_url"] = url
                values["hook_secret"] = out["webhook_secret"] = secrets.token_urlsafe(32)
        if "email" in fields:
            raw = fields["email"]
            if raw is None or raw == "":
                drop += ["email", "verified", "verify_token"]
            else:
                email = core.check_email(raw)
                if not self.mailer.enabled:
                    raise core.NotifyError("notify/mail_off",
                                           "this server sends no mail (no EMPIRE_SMTP_URL)")
                if email != p.get("verified") and not (
                        email == p.get("email")
                        and await self.store.verify_record(p.get("verify_token", "")) is not None):
                    day = core.day_of(self.clock())
                    if await self.store.mails_today(player, day) >= \
                            self.settings.notify_daily_cap:
                        raise core.NotifyError("notify/capped",
                                               "no more mails to this player today")
                    verify_to = email
                values["email"] = email
        # -- then write ---------------------------------------------------------------------
        if verify_to is not None:
            token = secrets.token_urlsafe(24)
            await self.store.put_verify(token, player, verify_to, VERIFY_TTL_S)
            values["verify_token"] = token
        await self.store.set_prefs(player, values, [d for d in drop if d not in values])
        if verify_to is not None:
            job = core.Job(player, "verify", player, core.token_ref(values["verify_token"]),
                           "mail")
            await self.store.arm({job.member(): self.clock()}, keep=True)
            log.info("verification_queued", player=player)
        return {**await self.view(player), **out, "verification_sent": verify_to is not None}

    async def verify(self, token: object) -> str:
        if not isinstance(token, str) or not token or len(token) > TOKEN_MAX:
            raise core.NotifyError("notify/bad_token", "not a verification link")
        rec = await self.store.take_verify(token)
        if rec is None:
            raise core.NotifyError("notify/bad_token", "the link is used, expired or unknown")
        p = await self.store.prefs(rec["player"])
        if p.get("email") != rec["email"]:
            raise core.NotifyError("notify/bad_token", "the address has changed since")
        await self.store.set_prefs(rec["player"], {"verified": rec["email"]}, ["verify_token"])
        log.info("email_verified", player=rec["player"])
        return rec["player"]

    async def unsubscribe(self, token: object) -> str:
        if not isinstance(token, str) or not token or len(token) > TOKEN_MAX:
            raise core.NotifyError("notify/bad_token", "not an unsubscribe link")
        player = core.unsubscribed_player(await self.store.signing_key(), token)
        await self.store.set_prefs(player, {"email_turns": "0"}, [])
        log.info("unsubscribed", player=player)
        return player
